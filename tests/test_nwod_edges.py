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
