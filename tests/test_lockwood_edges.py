"""Lockwood (seed 000): the edges of rules a one-number change to the ruleset would get past.

Each number here is worked out by hand from the seed's rule, in the comment beside it.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from helpers import odds, run_given


def test_L7_opposed_modifiers_add_to_each_side():
    """L7 (with L1's modifiers): each side's total is its d20 + stat + its own modifier."""
    result = run_given("lockwood", "opposed", {"actor": 10, "defender": 8, "actor_mod": 2, "defender_mod": 3}, [5, 7])
    # actor 5 + 10 + 2 = 17; defender 7 + 8 + 3 = 18: the defender holds
    assert (result.values["actor_total"], result.values["defender_total"], result.outcome) == (17, 18, "failure")
    result = run_given("lockwood", "opposed", {"actor": 10, "defender": 8, "actor_mod": -2, "defender_mod": -3}, [5, 7])
    # actor 5 + 10 - 2 = 13; defender 7 + 8 - 3 = 12: the actor wins
    assert (result.values["actor_total"], result.values["defender_total"], result.outcome) == (13, 12, "success")


def test_L6_an_attack_may_spend_no_luck():
    """L6: luck is spent by choice; luck=0 on an attack adds no die (11 + 15 against 9 + 6: 11 damage)."""
    result = run_given("lockwood", "attack", {"attack": 11, "defense": 9, "luck": 0}, [15, 6])
    assert (result.outcome, result.values["attack_total"], result.values["damage"]) == ("hit", 26, 11)


def test_L6_the_luck_roll_of_no_points_is_0_and_rolls_nothing():
    """L6: N points add 1dN; with no points (left out, or 0) no die is rolled and the roll is 0."""
    for params in ({}, {"points": 0}):
        result = run_given("lockwood", "luck", params, [])
        assert (result.outcome, result.values["roll"], result.values["penalty"]) == ("done", 0, 0)
    result = run_given("lockwood", "luck", {"points": 1}, [1])   # the least spend: a 1d1
    assert result.values["roll"] == 1


def test_L3_L16_a_natural_20_clears_any_friendly_fire_dc_and_a_natural_1_none():
    """L16 with L3: DC 3 x 10 = 30 is out of reach of 20 + 0, but a natural 20 always succeeds."""
    assert run_given("lockwood", "friendly_fire", {"perception": 0, "in_the_way": 10}, [20]).outcome == "success"
    assert run_given("lockwood", "friendly_fire", {"perception": 0, "in_the_way": 10}, [19]).outcome == "failure"
    # DC 3 x 1 = 3: 1 + 20 = 21 would reach it, but a natural 1 always fails; 2 + 1 = 3 reaches it exactly
    assert run_given("lockwood", "friendly_fire", {"perception": 20, "in_the_way": 1}, [1]).outcome == "failure"
    result = run_given("lockwood", "friendly_fire", {"perception": 1, "in_the_way": 1}, [2])
    assert (result.values["total"], result.outcome) == (3, "success")


@pytest.mark.parametrize("agility, natural, total, outcome", [
    (3, 2, 5, "success"),       # 2 + 3 = 5 meets DC 5 exactly
    (3, 1, 4, "failure"),
    (2, 2, 4, "failure"),       # 2 + 2 = 4 falls short of 5
    (10, 1, 11, "failure"),     # 11 would reach 5, but a natural 1 always fails (L3)
    (-16, 20, 4, "success"),    # 4 falls short, but a natural 20 always succeeds (L3)
])
def test_L14_a_move_is_d20_plus_agility_against_dc_5(agility, natural, total, outcome):
    """L14: the move is rolled against a static DC of 5; failing it gives disadvantage this turn."""
    result = run_given("lockwood", "move", {"agility": agility}, [natural])
    assert (result.values["total"], result.outcome) == (total, outcome)
    assert result.values["disadvantage_this_turn"] is (outcome == "failure")


@pytest.mark.parametrize("agility", [-16, 3, 10])
def test_L14_move_odds_by_enumeration(agility):
    """L14 with L3, every d20 face: success on 20, never on 1, otherwise when face + Agility >= 5."""
    wins = sum(Fraction(1, 20) for n in range(1, 21) if n == 20 or (n != 1 and n + agility >= 5))
    got = odds("lockwood", "move", {"agility": agility})
    assert got.outcomes.get("success", 0) == wins
