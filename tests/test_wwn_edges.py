"""Worlds Without Number (seed 004): the edges of rules a one-number change to the ruleset would get past.

Each number here comes from the seed or is worked out by hand in the comment beside it.
"""

from __future__ import annotations

import pytest
from helpers import edited_copy, run_given


@pytest.mark.parametrize("params", [{}, {"shock": 0}])
def test_W22_a_weapon_without_shock_does_nothing_on_a_miss(params):
    """W22: only a weapon's Shock does damage on a miss; with none (left out or 0) a miss does 0, even
    against AC 0 (a natural 1 always misses, W20)."""
    result = run_given("wwn", "attack", {"bonus": 0, "ac": 0, "damage": "1d8", **params}, [1])
    assert (result.outcome, result.values["damage"]) == ("miss", 0)
    result = run_given("wwn", "attack", {"bonus": 0, "ac": 0, "damage": "1d8", **params}, [2, 1])
    assert (result.outcome, result.values["damage"]) == ("hit", 1)      # no Shock floor above the roll


@pytest.mark.parametrize("ac, damage", [(0, 2), (1, 0)])
def test_W22_a_shock_given_without_its_ac_reaches_ac_0_only(ac, damage):
    """W22: Shock reaches a target whose AC is at most the Shock's AC; left out, that AC is 0 (the
    parameter's documented default), so Shock 2 on a miss does 2 against AC 0 and nothing against AC 1."""
    result = run_given("wwn", "attack", {"bonus": -5, "ac": ac, "damage": "1d8", "shock": 2}, [3])
    assert (result.outcome, result.values["damage"]) == ("miss", damage)


def test_W22_shock_1_on_a_miss_does_1():
    """W22: "Shock 1/13" does 1 on a miss against AC 13 or less (the least Shock there is)."""
    result = run_given("wwn", "attack", {"bonus": 0, "ac": 13, "damage": "1d8", "shock": 1, "shock_ac": 13}, [5])
    assert (result.outcome, result.values["damage"]) == ("miss", 1)


def test_W21_W22_a_hit_with_no_shock_has_no_floor_and_a_negative_modifier_can_reach_0():
    """W21: damage is the die + the modifier; the ruling min_damage keeps it at 0 or more. With no Shock
    there is no W22 floor: 1d4 rolling 1 with -3 does max(0, 1 - 3) = 0."""
    result = run_given("wwn", "attack", {"bonus": 0, "ac": 10, "damage": "1d4", "damage_bonus": -3}, [20, 1])
    assert (result.outcome, result.values["damage"]) == ("hit", 0)


def test_W22_with_the_floor_ruling_off_no_shock_still_sets_no_floor(tmp_path):
    """W22 ruling `hit_floor_needs_shock_ac: 0` (the Shock floor whatever the AC): a weapon with no Shock
    still has none. Damage 1d4-3 rolling 1 with +2: -2 + 2 = 0, not raised to anything."""
    copy = edited_copy(tmp_path, "wwn", ("hit_floor_needs_shock_ac: 1", "hit_floor_needs_shock_ac: 0"))
    params = {"bonus": 0, "ac": 10, "damage": "1d4-3", "damage_bonus": 2}
    result = run_given(str(copy), "attack", params, [20, 1])
    assert (result.outcome, result.values["damage"]) == ("hit", 0)
    # and with Shock 2 the floor is its 2 + 2 = 4, against an AC above the Shock AC too (the ruling)
    result = run_given(str(copy), "attack", {**params, "shock": 2, "shock_ac": 5}, [20, 1])
    assert result.values["damage"] == 4


@pytest.mark.parametrize("mod, ok", [(-3, False), (-2, True), (2, True), (3, False)])
def test_W4_W10_stabilize_takes_circumstances_of_minus_2_to_plus_2(rules, mod, ok):
    """W10 is a skill check, so W4's -2 to +2 for circumstances and tools applies: 7 + 0 + 0 + mod
    against difficulty 8 + 0."""
    result = rules("run", "wwn", "stabilize", "skill=0", "attribute=10", "rounds=0", f"mod={mod}", "--dice", "3,4")
    assert result.exit_code == (0 if ok else 1), result.output
    if ok:
        assert run_given("wwn", "stabilize", {"skill": 0, "attribute": 10, "rounds": 0, "mod": mod},
                         [3, 4]).values["total"] == 7 + mod


@pytest.mark.parametrize("args, name", [
    (("stabilize", "skill=-2", "attribute=10", "rounds=0"), "skill"),
    (("first_aid", "heal=-2"), "heal"),
])
def test_W3_W10_W13_a_heal_level_is_0_and_up_or_untrained(rules, args, name):
    """W3: a skill is level 0 and up, or untrained (no level-0 skill, given as untrained or -1); the
    Heal of W10 and W13 too, so -2 is no level."""
    result = rules("run", "wwn", *args)
    assert (result.exit_code, result.stderr) == (1, f"parameter '{name}' is -2; the least allowed is -1\n")
