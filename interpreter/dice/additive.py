"""Exact odds of statistics that add up what each die shows: one convolution instead of the multiset walk.

A pool read only for sums (`sum`, the term's result, `total S`, the dice, `count == 1`) with nothing kept
or dropped has statistics that are sums over its dice of what each die adds to each of them (the fold's
`key`, dice.statistic: the same definition the walk and a rolled pool fold).  Their joint odds are the
convolution of one die's, taken as many times as there are such dice.  Dice are first projected onto
what the statistics read, so kinds of dice that read alike (a boost die and an ability die read only
for successes and failures may still differ; two kinds read for nothing they show never do) become one
kind, and a kind of no dice is no work at all.  A vector of statistics is kept as one integer (each
statistic a digit of its own base), so adding two outcomes is adding two numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from interpreter import budget, limits
from interpreter.dice.statistic import Face, Fold, Statistic
from interpreter.errors import LimitExceeded

ADDITIVE = frozenset({"result", "sum", "total", "dice", "count"})
Joint = dict[tuple[int, ...], int]
Unit = tuple[dict[Face, int], int]  # one die's (or member's) faces with integer weights, and how many such dice


def additive(stats: Sequence[Statistic]) -> bool:
    """Whether every statistic is a sum over the dice of what each one adds (so the pool can be convolved)."""
    return all(s.kind in ADDITIVE and s.where is None for s in stats)


ADVICE = "use fewer dice, or sample it with `rules run ... --seed N`"


def convolved(units: Sequence[Unit], folds: Sequence[Fold], check_only: bool = False) -> Joint:
    """Integer weights of every combination of the folds' values over independent dice.

    Each unit is a kind of die and how many of it are thrown; the weights are those of ordered throws.
    The work is bounded before it is done (at most as many outcomes as the values each statistic can
    still take, for each die added); `check_only` stops there, refused or not.
    """
    keys = [f.key for f in folds if f.key is not None]
    assert len(keys) == len(folds)
    kinds = _kinds(units, keys)
    width = len(folds)
    low = [0] * width
    high = [0] * width
    for kind, count in kinds.items():
        for i in range(width):
            low[i] += count * min(v[i] for v, _ in kind)
            high[i] += count * max(v[i] for v, _ in kind)
    bases = [1] * width  # each statistic's digit: its value less its least, times the product of the spans before
    for i in range(1, width):
        bases[i] = bases[i - 1] * (high[i - 1] - low[i - 1] + 1)
    order = sorted(kinds.items(), key=lambda item: len(item[0]))
    if _work(order, width) > limits.MAX_ODDS_WORK:
        raise LimitExceeded(f"exact odds of this pool would take too much work; {ADVICE}")
    if check_only:
        return {}
    acc: dict[int, int] = {0: 1}
    for kind, count in order:
        floor = [min(v[i] for v, _ in kind) for i in range(width)]
        die = [(sum((v[i] - floor[i]) * bases[i] for i in range(width)), w) for v, w in kind]
        for _ in range(count):
            nxt: dict[int, int] = {}
            get = nxt.get
            for code, x in acc.items():
                for step, y in die:
                    at = code + step
                    nxt[at] = get(at, 0) + x * y
            acc = nxt
            budget.check("these exact odds", ADVICE)
    out: Joint = {}
    for code, x in acc.items():
        digits = []
        for i in range(width - 1, -1, -1):
            digit, code = divmod(code, bases[i])
            digits.append(digit + low[i])
        out[tuple(reversed(digits))] = x
    return out


Kind = tuple[tuple[tuple[int, ...], int], ...]  # what one die reads, with its weight


def _kinds(units: Sequence[Unit], keys: Sequence[Callable[[Face], int]]) -> dict[Kind, int]:
    """Each kind of die as what it reads, with how many are thrown: kinds that read alike are one."""
    kinds: dict[Kind, int] = {}
    for faces, count in units:
        if count <= 0:
            continue
        projected: dict[tuple[int, ...], int] = {}
        for face, w in faces.items():
            if w:
                read = tuple(int(k(face)) for k in keys)
                projected[read] = projected.get(read, 0) + w
        kind = tuple(sorted(projected.items()))
        kinds[kind] = kinds.get(kind, 0) + count
    return kinds


def _work(order: Sequence[tuple[Kind, int]], width: int) -> int:
    """At most how many products the convolution takes: for each die added, the outcomes so far (no more
    than the dice's faces multiplied, nor than the values the statistics can have taken) times its faces."""
    work, outcomes = 0, 1
    spans = [1] * width
    for kind, count in order:
        for _ in range(count):
            work += outcomes * len(kind)
            for i in range(width):
                spans[i] += max(v[i] for v, _ in kind) - min(v[i] for v, _ in kind)
            outcomes = min(outcomes * len(kind), math.prod(spans))
    return work
