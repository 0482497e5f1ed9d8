"""nwod (seed 002): what a parameter left out means, and the least value each one takes.

A parameter left out must mean the seed's ordinary case (one action, the first attacker, no called
shot, no armor piercing, no limit on rolls), so leaving it out gives exactly the odds of giving that
case by hand. And the least value the seed allows must be accepted while one below it is refused.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from helpers import odds, run_given

from interpreter.errors import RulesError


def _same_odds(procedure: str, given: dict[str, object], spelled: dict[str, object]) -> None:
    left_out, written = odds("nwod", procedure, given), odds("nwod", procedure, {**given, **spelled})
    assert left_out.outcomes == written.outcomes
    assert left_out.values == written.values


@pytest.mark.parametrize("procedure, given, spelled", [
    ("action", {"pool": 5}, {"actions": 1}),                                       # N23: one action, no penalty
    ("extended", {"pool": 3, "required": 5}, {"max_rolls": 0}),                    # N6: no limit on rolls
    ("full_defense", {"defense_pool": 3}, {"attacker": 1}),                        # N27: the first attacker
    ("attack", {"attack_pool": 4, "defense_pool": 2, "weapon": 2}, {"actions": 1}),  # N23
    ("attack", {"attack_pool": 4, "defense_pool": 2, "weapon": 2}, {"called_shot": 0}),  # N33: no called shot
    ("attack", {"attack_pool": 4, "defense_pool": 2, "weapon": 2}, {"attacker": 1}),  # N27
    ("attack", {"attack_pool": 4, "defense_pool": 2, "weapon": 2, "armor": 2}, {"armor_piercing": 0}),  # N31
    ("autofire", {"mode": "short", "attack_pool": 3, "defense_pool": 1, "weapon": 2}, {"armor": 0}),  # N30
    ("autofire", {"mode": "short", "attack_pool": 3, "defense_pool": 1, "weapon": 2}, {"targets": 1}),  # N32
])
def test_N6_N23_N27_N30_N31_N32_N33_a_parameter_left_out_is_the_ordinary_case(procedure, given, spelled):
    """N6, N23, N27, N30, N31, N32, N33: leaving a parameter out gives the same exact odds as the ordinary case spelled out."""
    _same_odds(procedure, given, spelled)


def test_N23_N27_the_ordinary_case_is_not_its_neighbour():
    """The comparison above can fail: a second action (N23: -3 dice) or a second attacker (N27: -1 die) changes the odds."""
    base = {"attack_pool": 4, "defense_pool": 2, "weapon": 2}
    assert odds("nwod", "attack", base).outcomes != odds("nwod", "attack", {**base, "actions": 2}).outcomes
    assert odds("nwod", "attack", base).outcomes != odds("nwod", "attack", {**base, "attacker": 2}).outcomes


@pytest.mark.parametrize("procedure, params", [
    ("extended", {"pool": 3, "required": 0}),             # N6: at least one success is needed
    ("full_defense", {"defense_pool": 3, "attacker": 0}),  # N27: attackers count from 1
    ("attack", {"attack_pool": 4, "defense_pool": 2, "weapon": 2, "attacker": 0}),
    ("attack", {"attack_pool": 4, "defense_pool": 2, "weapon": 2, "actions": 0}),  # N23: at least one action
    ("action", {"pool": 4, "actions": 0}),
    ("autofire", {"mode": "short", "attack_pool": 3, "defense_pool": 1, "weapon": 2, "targets": 0}),  # N32
])
def test_N6_N23_N27_N32_a_value_below_the_least_is_refused(procedure, params):
    """N6, N23, N27, N32: no extended action needs 0 successes, no turn has 0 actions, no attacker is
    the 0th, no spray has 0 targets."""
    with pytest.raises(RulesError):
        odds("nwod", procedure, params)


def test_N6_an_extended_action_needing_one_success_in_one_roll():
    """N6 at its least: required=1, max_rolls=1 is one roll of one die succeeding on 8+ (10-again
    only adds successes): exactly 3/10, and the run counts that one roll."""
    got = odds("nwod", "extended", {"pool": 1, "required": 1, "max_rolls": 1})
    assert got.outcomes["success"] == Fraction(3, 10)
    done = run_given("nwod", "extended", {"pool": 1, "required": 1, "max_rolls": 1}, [8])
    assert (done.outcome, done.values["successes"], done.values["rolls"]) == ("success", 1, 1)


def test_N27_a_full_defense_of_one_die_is_rolled():
    """N27: full defense rolls the pool twice and keeps the better; a pool of one die still rolls
    (8 then 3 at the contested target 7: the better roll has 1 success), and a pool of 0 rolls nothing."""
    assert run_given("nwod", "full_defense", {"defense_pool": 1}, [8, 3]).values["successes"] == 1
    assert run_given("nwod", "full_defense", {"defense_pool": 0}, []).values["successes"] == 0
    # no success in the better of two single dice at target 7: (6/10)^2 = 0.36
    assert odds("nwod", "full_defense", {"defense_pool": 1}).values["successes"][0] == pytest.approx(0.36, abs=1e-12)


def test_N5_N1_contested_modifiers_add_to_each_pool():
    """N5: both sides roll their pools; N1: modifiers add dice. Actor 2 + 2 and defender 1 + 2 roll
    4 and 3 dice (the given dice must all be used, none left over)."""
    got = run_given("nwod", "contested", {"actor": 2, "actor_mod": 2, "defender": 1, "defender_mod": 2},
                    [8, 8, 8, 2, 8, 2, 2])
    assert (got.values["actor_successes"], got.values["defender_successes"], got.outcome) == (3, 1, "success")


def test_N24_initiative_adds_composure_dexterity_the_modifier_and_the_die():
    """N24: initiative is Composure + Dexterity + 1d10 (+ a modifier): 2 + 3 + 1 + 7 = 13."""
    assert run_given("nwod", "initiative", {"composure": 2, "dexterity": 3, "mod": 1}, [7]).values["initiative"] == 13


def test_N16_aggravated_damage_is_reported_as_aggravated():
    """N16: the three damage types are distinct; an attack's aggravated damage stays aggravated, not lethal."""
    params = {"attack_pool": 1, "defense_pool": 0, "weapon": 1}
    for kind in ("bashing", "lethal", "aggravated"):
        assert run_given("nwod", "attack", {**params, "damage_type": kind}, [8]).values["damage_type"] == kind


def test_N27_full_defense_of_one_die_in_an_attack_rolls_twice():
    """N27 inside an attack: a defender of one die on full defense rolls it twice and keeps the
    better. Attack 2 dice (8, 8: 2 successes), defense 3 then 9 (1 success): 1 net hit."""
    params = {"attack_pool": 2, "defense_pool": 1, "weapon": 1, "full_defense": "true"}
    got = run_given("nwod", "attack", params, [8, 8, 3, 9])
    assert (got.values["defense_successes"], got.values["hits"]) == (1, 1)


def test_N29_a_strength_of_one_is_rolled():
    """N29: melee damage adds the successes of a Strength roll at 7; Strength 1 rolls one die.
    Attack 1 die (8), no defense, Strength die 9: damage = weapon 2 + 1 net + 1 = 4."""
    params = {"attack_pool": 1, "defense_pool": 0, "weapon": 2, "strength": 1}
    got = run_given("nwod", "attack", params, [8, 9])
    assert (got.values["strength_successes"], got.values["damage"]) == (1, 4)


def test_N13_study_with_a_source_or_a_teacher():
    """N13: a day of study (8 hours) per experience point, halved with a source, a third with a
    teacher, rounded up: 10 points are 10 days (80 hours), 5 with a book, 4 with a teacher (10/3 up)."""
    got = run_given("nwod", "study", {"cost": 10}, [])
    assert (got.values["days"], got.values["hours"], got.values["days_with_source"],
            got.values["days_with_teacher"]) == (10, 80, 5, 4)


def test_N28_N32_a_weapon_of_damage_0_fires_harmless_bullets():
    """N28: damage is the weapon's level plus net successes; N32: autofire does the weapon's damage a
    bullet. A weapon of level 0 is allowed: 2 net successes (9, 9; no defense) are 2 bullets of 0."""
    params = {"mode": "burst", "attack_pool": 1, "defense_pool": 0, "weapon": 0}
    got = run_given("nwod", "autofire", params, [9, 9])
    assert (got.values["bullets"], got.values["damage"]) == (2, 0)


def test_N32_a_long_spray_takes_two_dice_a_target_beyond_the_first():
    """N32: a long burst is +3 dice, and a spray at several targets -2 dice per target beyond the
    first: pool 5 at 2 targets rolls 5 + 3 - 2 = 6 dice (all 9s, no defense: 6 bullets)."""
    params = {"mode": "long", "attack_pool": 5, "defense_pool": 0, "weapon": 1, "targets": 2}
    assert run_given("nwod", "autofire", params, [9] * 6).values["bullets"] == 6


def test_N27_full_defense_with_no_dice_rolls_nothing():
    """N27 with a defense pool of 0: nothing to roll twice (no chance die for a defense): only the
    attack's 2 dice are used (8, 8), and both are net hits."""
    params = {"attack_pool": 2, "defense_pool": 0, "weapon": 1, "full_defense": "true"}
    got = run_given("nwod", "attack", params, [8, 8])
    assert (got.values["defense_successes"], got.values["hits"]) == (0, 2)
