"""Pool statistics: exact odds of one pool read several ways, against icepool, same process.

Shadowrun: 30d6, hits (5 or 6) and ones read from the same roll; glitch = more than 15 ones.
Blades: 6d6, the highest die and the number of sixes of the same roll.
Both sides compute the joint distribution cold (caches cleared) and must agree exactly.

Run as `python bench/pool_bench.py` after `pip install .[bench]`.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from fractions import Fraction

import icepool

from interpreter.dice.expr import clear_caches, parse
from interpreter.dice.pool import RESULT, parse_statistic, pool_odds

REPEATS = 9
Joint = dict[tuple[int, int], Fraction]


def ours_shadowrun() -> Joint:
    joint, den = pool_odds(parse("30d6cs>=5").pool_spec({}), [RESULT, parse_statistic("count == 1")])
    return {k: Fraction(x, den) for k, x in joint.items()}  # type: ignore[misc]


def ours_blades() -> Joint:
    joint, den = pool_odds(parse("6d6").pool_spec({}), [parse_statistic("highest"), parse_statistic("count == 6")])
    return {k: Fraction(x, den) for k, x in joint.items()}  # type: ignore[misc]


class _HitsAndOnes(icepool.MultisetEvaluator):
    """(hits, ones) of one pool, evaluated by icepool's multiset machinery."""

    def next_state(self, state, order, outcome, count):  # type: ignore[no-untyped-def]
        hits, ones = state or (0, 0)
        return (hits + count if outcome >= 5 else hits, ones + count if outcome == 1 else ones)


class _HighestAndSixes(icepool.MultisetEvaluator):
    """(highest, sixes) of one pool."""

    def next_state(self, state, order, outcome, count):  # type: ignore[no-untyped-def]
        best, sixes = state or (0, 0)
        if count:
            best = max(best, outcome)
        return (best, sixes + count if outcome == 6 else sixes)


def theirs(evaluator: icepool.MultisetEvaluator, dice: int) -> Joint:
    die = evaluator.evaluate(icepool.d6.pool(dice))
    return {k: Fraction(die.probability(k)) for k in die.outcomes()}


def timed(fn: Callable[[], object], cold: Callable[[], None]) -> tuple[float, float]:
    """Min and median seconds of fn, each run after `cold` cleared caches."""
    times = []
    for _ in range(REPEATS):
        cold()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def icepool_cold() -> None:
    """icepool keeps evaluation caches on its objects; fresh evaluators and pools each time are cold enough."""


def main() -> None:
    cases = [
        ("Shadowrun 30d6 hits+ones", ours_shadowrun, lambda: theirs(_HitsAndOnes(), 30)),
        ("Blades 6d6 highest+sixes", ours_blades, lambda: theirs(_HighestAndSixes(), 6)),
    ]
    print(f"{'case':28} {'ours min/median':>18} {'icepool min/median':>20} {'ratio':>7}  same numbers")
    for label, ours, peer in cases:
        a, b = ours(), peer()
        same = a == b
        o_min, o_med = timed(ours, clear_caches)
        t_min, t_med = timed(peer, icepool_cold)
        print(f"{label:28} {o_min * 1e3:7.2f}/{o_med * 1e3:7.2f} ms {t_min * 1e3:8.2f}/{t_med * 1e3:7.2f} ms "
              f"{t_med / o_med:6.1f}x  {same}")
        glitch = sum((p for (h, o), p in a.items() if o > 15), Fraction(0)) if "Shadowrun" in label else None
        if glitch is not None:
            print(f"{'':28} P(glitch) = {float(glitch):.3e}")


if __name__ == "__main__":
    main()
