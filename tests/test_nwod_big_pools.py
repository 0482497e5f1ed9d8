"""N1-N5: nwod pools of hundreds of dice have exact (or finely cut) odds instead of a refusal.

The oracle adds up one die's successes (a success at the target or more, a 10 thrown again) die by
die in floating point; the exact fractions are checked where they have a closed form.  Speed is
the pool bench's (bench/pool_bench.py), not this test's.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest


def die_successes(target: int, depth: int = 60) -> list[float]:
    """P(one ten-again d10 scores k successes), k = 0.. (followed far past any mass that matters)."""
    out = [0.0] * (depth + 2)
    for tens in range(depth):  # `tens` 10s, then a face below 10
        p = 0.1 ** tens
        for face in range(1, 10):
            out[tens + (face >= target)] += p * 0.1
    return out


def pool_successes(dice: int, target: int) -> list[float]:
    one = die_successes(target)
    acc = [1.0]
    for _ in range(dice):
        nxt = [0.0] * (len(acc) + len(one) - 1)
        for i, a in enumerate(acc):
            if a > 1e-300:
                for j, b in enumerate(one):
                    nxt[i + j] += a * b
        acc = [x for x in nxt]
        while acc and acc[-1] < 1e-300:
            acc.pop()
    return acc


def odds_json(rules, *args: str) -> dict:
    result = rules("odds", "nwod", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_N1_N2_a_pool_of_two_hundred_dice_has_exact_outcomes(rules):
    data = odds_json(rules, "pool", "dice=200", "target=8")
    exact = {k: Fraction(v) for k, v in data["exact"].items()}
    assert exact["failure"] == Fraction(7, 10) ** 200  # no die reaches 8, so none explodes either
    assert exact["success"] == 1 - exact["failure"] and exact["dramatic_failure"] == 0
    successes = data["values"]["successes"]
    assert 0 < successes["truncated"] < 1e-12
    want = pool_successes(200, 8)
    for k in ("40", "60", "67", "90"):
        assert successes["distribution"][k] == pytest.approx(want[int(k)], rel=1e-9)


def test_N5_contested_two_hundred_against_two_hundred_is_answered(rules):
    data = odds_json(rules, "contested", "actor=200", "defender=200")
    side = pool_successes(200, 7)
    win = sum(p * sum(side[:a]) for a, p in enumerate(side))  # the actor needs more successes
    assert data["outcomes"]["success"] == pytest.approx(win, abs=1e-9)
    assert data["outcomes"]["success"] + data["outcomes"]["failure"] == pytest.approx(1, abs=1e-9)
    assert data["values"]["actor_successes"]["mean"] == pytest.approx(200 * 0.4 / 0.9, rel=1e-9)
