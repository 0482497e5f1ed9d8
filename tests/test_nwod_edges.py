"""nwod (seed 002): the edges of rules a one-number change to the ruleset would get past.

Each number here comes from the seed or is worked out by hand in the comment beside it.
"""

from __future__ import annotations

import pytest
from helpers import run_given, with_constants


@pytest.mark.parametrize("mode, pool, bonus, rounds", [
    ("burst", 4, 1, 3),      # N32: "3-round burst", +1 die
    ("short", 8, 2, 8),      # "a short spray blows 8 rounds", +2
    ("long", 14, 3, 15),     # "a long burst blows 15", +3
])
def test_N32_bullets_capped_by_the_rounds_of_each_mode_when_ruled_so(tmp_path, mode, pool, bonus, rounds):
    """N32 with the ruling switched on (bullets_capped_by_rounds: 1): at most the seed's rounds hit.

    Every die shows 9 (a success at 7, no explosion) and the target rolls no dice, so the net
    successes are pool + bonus, one more than the rounds (or two, for the burst).
    """
    capped = with_constants(tmp_path, "nwod", bullets_capped_by_rounds=1)
    dice = [9] * (pool + bonus)
    params = {"mode": mode, "attack_pool": pool, "defense_pool": 0, "weapon": 2}
    result = run_given(str(capped), "autofire", params, dice)
    assert (result.values["attack_successes"], result.values["bullets"]) == (pool + bonus, rounds)
    assert result.values["damage"] == 2 * rounds
    # the seed's own reading (the default): every net success is a bullet
    assert run_given("nwod", "autofire", params, dice).values["bullets"] == pool + bonus
    # capped or not, a miss fires no bullet home: every die a 2, no success
    missed = run_given(str(capped), "autofire", params, [2] * (pool + bonus))
    assert (missed.outcome, missed.values["bullets"], missed.values["damage"]) == ("miss", 0, 0)


@pytest.mark.parametrize("mod, dice", [(-1, 3), (2, 6)])
def test_N1_N32_autofire_modifiers_add_to_the_pool(mod, dice):
    """N1: modifiers add to the pool; N32: a burst adds 1. Pool 3 + mod + 1 dice, every one an 8 (7+ succeeds)."""
    params = {"mode": "burst", "attack_pool": 3, "defense_pool": 0, "weapon": 1, "mod": mod}
    result = run_given("nwod", "autofire", params, [8] * dice)
    assert (result.values["attack_successes"], result.values["bullets"]) == (dice, dice)


def test_N31_autofire_armor_piercing_0_is_no_piercing():
    """N31: armor piercing 0 ignores no armor: a vest of 2 takes 2 off each 3-damage bullet."""
    params = {"mode": "burst", "attack_pool": 1, "defense_pool": 0, "weapon": 3, "armor": 2, "armor_piercing": 0}
    result = run_given("nwod", "autofire", params, [8, 8])     # 1 + 1 dice, 2 bullets of 3 - 2 = 1
    assert (result.values["bullets"], result.values["damage"]) == (2, 2)


@pytest.mark.parametrize("piercing, per_bullet", [(1, 2), (2, 3), (3, 3)])
def test_N31_autofire_armor_piercing_ignores_that_much_armor(piercing, per_bullet):
    """N31: armor piercing ignores that much armor, per bullet: weapon 3 against armor 2 leaves
    3 - max(0, 2 - piercing), never more than the weapon's 3."""
    params = {"mode": "burst", "attack_pool": 1, "defense_pool": 0, "weapon": 3, "armor": 2,
              "armor_piercing": piercing}
    result = run_given("nwod", "autofire", params, [8, 8])     # 2 bullets
    assert result.values["damage"] == 2 * per_bullet


def test_N37_N38_morality_runs_to_10():
    """N38: only an act rated lower than Morality calls for a roll; the sin table's top rating is 10,
    so Morality 10 checks a sin of 9 (5 dice, N37) but not one of 10."""
    assert run_given("nwod", "degeneration", {"morality": 10, "sin": 10}, []).outcome == "no_check"
    held = run_given("nwod", "degeneration", {"morality": 10, "sin": 9}, [8, 1, 1, 1, 1])
    assert (held.outcome, held.values["morality"]) == ("held", 10)


@pytest.mark.parametrize("piercing, damage_type", [(1, "bashing"), (2, "bashing"), (3, "lethal")])
def test_N31_autofire_bulletproof_holds_unless_piercing_exceeds_the_armor(piercing, damage_type):
    """N31: bulletproof armor turns gunfire into bashing "unless the weapon's armor piercing exceeds
    the armor": at piercing 2 against armor 2 it still holds."""
    params = {"mode": "burst", "attack_pool": 1, "defense_pool": 0, "weapon": 3, "armor": 2,
              "armor_piercing": piercing, "bulletproof": "true"}
    assert run_given("nwod", "autofire", params, [8, 8]).values["damage_type"] == damage_type


def test_N6_with_the_ruling_off_an_empty_roll_adds_nothing_and_the_attempt_goes_on(tmp_path):
    """N6 ruling `extended_zero_fails`: 1 (the seed's safe) ends the attempt on a roll with no success;
    0 lets it go on. Pool 2, 3 needed: 8,9 (2), then 1,2 (none), then 8,3 (1) makes 3 on the third roll."""
    off = with_constants(tmp_path, "nwod", extended_zero_fails=0)
    result = run_given(str(off), "extended", {"pool": 2, "required": 3}, [8, 9, 1, 2, 8, 3])
    assert (result.outcome, result.values["rolls"], result.values["successes"]) == ("success", 3, 3)
    result = run_given("nwod", "extended", {"pool": 2, "required": 3}, [8, 9, 1, 2])
    assert (result.outcome, result.values["rolls"]) == ("failure", 2)


def test_N38_at_morality_0_no_act_calls_for_a_roll():
    """N38: only a sin rated lower than Morality calls for a roll; the lowest rating is 1 (N37), so a
    character at Morality 0 (the least) never rolls."""
    result = run_given("nwod", "degeneration", {"morality": 0, "sin": 1}, [])
    assert (result.outcome, result.values["morality"]) == ("no_check", 0)


@pytest.mark.parametrize("sin, message", [(0, "parameter 'sin' is 0; the least allowed is 1"),
                                          (11, "parameter 'sin' is 11; the most allowed is 10")])
def test_N37_sins_are_rated_1_to_10(rules, sin, message):
    """N37: the sin table runs from 10 (selfish thoughts) down to 1 (mass murder); no other rating exists."""
    result = rules("run", "nwod", "degeneration", "morality=7", f"sin={sin}")
    assert (result.exit_code, result.stderr.strip()) == (1, message)
    assert run_given("nwod", "degeneration", {"morality": 2, "sin": 1}, [8, 1]).outcome == "held"   # 2 dice


@pytest.mark.parametrize("param, value, message", [
    ("target", 0, "parameter 'target' is 0; the least allowed is 1"),
    ("target", 11, "parameter 'target' is 11; the most allowed is 10"),
    ("again", 7, "parameter 'again' is 7; the least allowed is 8"),
    ("again", 11, "parameter 'again' is 11; the most allowed is 10"),
])
def test_N2_N3_a_target_is_a_face_of_the_d10_and_again_is_10_9_or_8(rules, param, value, message):
    """N2: a die succeeds at a target face of the d10 (1 to 10); N3: 10-again, 9-again or 8-again."""
    params = {"dice": 2, "target": 8, param: value}
    result = rules("run", "nwod", "pool", *[f"{k}={v}" for k, v in params.items()])
    assert (result.exit_code, result.stderr.strip()) == (1, message)


@pytest.mark.parametrize("target, again, dice, successes", [
    (1, 10, [1, 2], 2),         # target 1: every face succeeds
    (10, 10, [9, 10, 3], 1),    # target 10: only the 10, which rolls again (a 3)
    (8, 8, [8, 2, 5], 1),       # 8-again: the 8 succeeds and rolls again
])
def test_N2_N3_the_edges_of_target_and_again(target, again, dice, successes):
    """N2/N3 at the ends of their ranges, counted by hand beside each case."""
    result = run_given("nwod", "pool", {"dice": 2, "target": target, "again": again}, dice)
    assert result.values["successes"] == successes


@pytest.mark.parametrize("dice, successes, outcome", [([9, 3], 1, "success"), ([7, 3], 0, "failure")])
def test_N2_one_success_is_a_success(dice, successes, outcome):
    """N2: each die at 8 or more is a success; one is enough for the roll to succeed (9 and 3: one)."""
    result = run_given("nwod", "pool", {"dice": 2, "target": 8}, dice)
    assert (result.values["successes"], result.outcome) == (successes, outcome)


def test_N23_a_turn_has_at_least_one_action(rules):
    """N23: the penalty is for each action beyond the first; 0 actions is no turn (and would add dice)."""
    result = rules("run", "nwod", "action", "pool=5", "actions=0")
    assert (result.exit_code, result.stderr.strip()) == (1, "parameter 'actions' is 0; the least allowed is 1")
    assert run_given("nwod", "action", {"pool": 2, "actions": 1}, [8, 3]).values["successes"] == 1
