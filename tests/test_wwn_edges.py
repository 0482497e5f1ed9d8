"""Worlds Without Number (seed 004): the edges of rules a one-number change to the ruleset would get past.

Each number here comes from the seed or is worked out by hand in the comment beside it.
"""

from __future__ import annotations

import pytest
from helpers import run_given


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
