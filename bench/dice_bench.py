"""Dice speed: rolls against d20 and a hand-written roll, and exact odds time against icepool.

Run as `python bench/dice_bench.py` after `pip install .[bench]`.

- rolls per second (each roll keeps its full per-die trace) against `d20.roll`;
- a kept expression (`interpreter.dice(EXPR)`, parsed once) rolled with one `random.Random`, beside
  d20's `Roller.parse` once and `roll` of the parsed tree, and beside the same roll written by hand on
  the same generator; and `interpreter.roll(EXPR)` (parsed by text, a generator seeded anew each call)
  beside `d20.roll(EXPR)`, in microseconds a roll (min of several runs) with the ratios;
- exact odds of 30 ten-again d10s counting 8+ against icepool;
- exact odds of kept terms as a term gives them (the `_kept_sum` fast path for dice that do not explode,
  the pool walk for those that do) beside the pool walk alone (the `result` fold over the kept
  multiset): what the fast path buys.

Every time is CPU time (time.process_time), so that other work on the machine disturbs it less.
"""

from __future__ import annotations

import random
import statistics
import time
from fractions import Fraction

import d20
import icepool

import interpreter
from interpreter.dice.expr import RandomSource, clear_caches, parse

ROLL_CASES = [("1d20+5", "1d20+5"), ("4d6kh3", "4d6kh3"), ("10d10x10cs>=8", "10d10e10")]
REPEATS = 7
KEPT_ROUNDS = 100  # rounds of a kept roll beside its hand-written roll


def rolls_per_second(fn, count: int) -> float:
    """The median rate of calling fn over several timed runs of `count` calls."""
    rates = []
    for _ in range(REPEATS):
        start = time.process_time()
        for _ in range(count):
            fn()
        rates.append(count / (time.process_time() - start))
    return statistics.median(rates)


def bench_rolls() -> None:
    """Rolls per second (each roll keeps its full per-die trace) against d20.roll."""
    source = RandomSource(random.Random(1))
    env: dict = {}
    print(f"rolls per second (median of {REPEATS} runs)")
    for ours_text, d20_text in ROLL_CASES:
        expr = parse(ours_text)
        ours = rolls_per_second(lambda expr=expr: expr.roll(env, source), 20000)
        theirs = rolls_per_second(lambda d20_text=d20_text: d20.roll(d20_text), 4000)
        print(f"  {ours_text:15} ours {ours:>10,.0f}/s   d20 ({d20_text}) {theirs:>10,.0f}/s   ratio {ours / theirs:5.1f}x")


def _ten_again(r) -> int:  # type: ignore[no-untyped-def]
    """10d10x10cs>=8 written by hand: successes at 8+, every 10 thrown again."""
    throws, hits = 10, 0
    while throws:
        tens = 0
        for _ in range(throws):
            v = int(r() * 10) + 1
            hits += v >= 8
            tens += v == 10
        throws = tens
    return hits


def _keep_three(r) -> int:  # type: ignore[no-untyped-def]
    """4d6kh3 written by hand."""
    a, b, c, d = int(r() * 6) + 1, int(r() * 6) + 1, int(r() * 6) + 1, int(r() * 6) + 1
    return a + b + c + d - min(a, b, c, d)


HAND = {"1d20+5": lambda r: int(r() * 20) + 1 + 5, "4d6kh3": _keep_three, "10d10x10cs>=8": _ten_again}


def per_call(fn, count: int) -> float:  # type: ignore[no-untyped-def]
    """Microseconds a call, the least of several timed runs (the least disturbed by other work)."""
    return side_by_side([fn], count, REPEATS)[0]


def side_by_side(fns, count: int, rounds: int) -> list[float]:  # type: ignore[no-untyped-def]
    """Microseconds a call of each function, the least over `rounds` rounds in which each runs `count`
    calls in turn: a change in the machine's load reaches every function alike."""
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            start = time.process_time()
            for _ in range(count):
                fn()
            best[i] = min(best[i], (time.process_time() - start) / count)
    return [b * 1e6 for b in best]


def bench_kept() -> None:
    """A kept expression's roll beside d20's parsed roll and a hand-written roll; interpreter.roll beside d20.roll."""
    print(f"microseconds a roll (least of {KEPT_ROUNDS} rounds, taken in turn); ratio = ours / peer")
    rng = random.Random(1)
    r = rng.random
    for ours_text, d20_text in ROLL_CASES:
        kept = interpreter.dice(ours_text)
        hand = HAND[ours_text]
        roller = d20.Roller()
        tree = roller.parse(d20_text)
        ours, by_hand = side_by_side([lambda kept=kept: kept.roll(rng), lambda hand=hand: hand(r)], 2000, KEPT_ROUNDS)
        theirs = per_call(lambda tree=tree, roller=roller: roller.roll(tree), 4000)
        print(f"  kept {ours_text:14} ours {ours:6.2f}   by hand {by_hand:6.2f} ({ours / by_hand:4.1f}x)   "
              f"d20 parsed {theirs:6.2f} ({ours / theirs:4.2f}x)")
    for ours_text, d20_text in ROLL_CASES:
        ours, theirs = side_by_side([lambda t=ours_text: interpreter.roll(t), lambda t=d20_text: d20.roll(t)],
                                    400, REPEATS * 3)
        print(f"  interpreter.roll {ours_text:14} {ours:6.2f}   d20.roll {theirs:6.2f} ({ours / theirs:4.2f}x)")


def icepool_ten_again(count: int, depth: int = 20) -> icepool.Die:
    """Successes at 8+ of `count` ten-again d10s: each die scores 1 on 8-10 and rolls again on 10."""
    per_die = icepool.Die([0] * 7 + [1] * 2 + [1 + icepool.Again], again_depth=depth)
    return count @ per_die


def bench_odds() -> None:
    """Exact distribution of 30 ten-again d10s counting 8+, cold caches, against icepool."""
    text = "30d10x10cs>=8"
    expr = parse(text)
    ours_times, theirs_times = [], []
    for _ in range(REPEATS):
        clear_caches()
        start = time.process_time()
        ours = expr.distribution({})
        ours_times.append(time.process_time() - start)
        start = time.process_time()
        theirs = icepool_ten_again(30)
        theirs_times.append(time.process_time() - start)
    worst = max(abs(float(p) - float(theirs.probability(v))) for v, p in ours.probs)
    ours_ms, theirs_ms = statistics.median(ours_times) * 1000, statistics.median(theirs_times) * 1000
    print(f"exact odds of {text} (median of {REPEATS}, cold)")
    print(f"  ours {ours_ms:8.2f} ms   icepool {theirs_ms:8.2f} ms   ours/icepool {ours_ms / theirs_ms:5.3f}")
    print(f"  largest probability difference {worst:.2e}; cut-off mass ours {ours.truncated:.1e}")
    assert worst < 1e-9
    assert Fraction(theirs.probability(0)) == Fraction(7, 10) ** 30


KEPT_ODDS = ["4d6kh3", "2d20kh1", "20d10kh5", "100d10kh3", "40d6kh20", "10d10x10kh3", "30d10x10kh10"]


def bench_kept_odds() -> None:
    """Exact odds of kept terms: the term's engine beside the general pool walk, cold caches."""
    from interpreter.dice.distribution import Distribution
    from interpreter.dice.odds import term_distribution
    from interpreter.dice.pool import RESULT, pool_odds
    from interpreter.dice.term import parameter_nodes, spec_for
    from interpreter.dice.tree import Dice, Num

    print(f"exact odds of kept terms, ms (least of {REPEATS}, cold): the term's engine beside the pool walk")
    for text in KEPT_ODDS:
        tree = parse(text).tree
        assert isinstance(tree, Dice)
        spec = spec_for(tree, [p.value if isinstance(p, Num) else None for p in parameter_nodes(tree)])
        ours, walked = [], []
        for _ in range(REPEATS):
            term_distribution.cache_clear()
            start = time.process_time()
            dist = term_distribution(spec)
            ours.append(time.process_time() - start)
            start = time.process_time()
            joint, den = pool_odds(spec, [RESULT])
            walked.append(time.process_time() - start)
        assert dist == Distribution({key[0]: x for key, x in joint.items()}, den)
        fast, slow = min(ours) * 1000, min(walked) * 1000
        print(f"  {text:14} term {fast:8.2f}   walk {slow:8.2f}   walk/term {slow / fast:5.1f}")


if __name__ == "__main__":
    bench_rolls()
    bench_kept()
    bench_odds()
    bench_kept_odds()
