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

from collections.abc import Sequence

from interpreter import budget, limits
from interpreter.dice.statistic import Face, Fold, Statistic
from interpreter.errors import LimitExceeded

ADDITIVE = frozenset({"result", "sum", "total", "dice", "count"})
Joint = dict[tuple[int, ...], int]
Unit = tuple[dict[Face, int], int]  # one die's (or member's) faces with integer weights, and how many such dice


def additive(stats: Sequence[Statistic]) -> bool:
    """Whether every statistic is a sum over the dice of what each one adds (so the pool can be convolved)."""
    return all(s.kind in ADDITIVE and s.where is None for s in stats)


def convolved(units: Sequence[Unit], folds: Sequence[Fold]) -> Joint:
    """Integer weights of every combination of the folds' values over independent dice.

    Each unit is a kind of die and how many of it are thrown; the weights are those of ordered throws.
    """
    keys = [f.key for f in folds if f.key is not None]
    assert len(keys) == len(folds)
    kinds: dict[tuple[tuple[tuple[int, ...], int], ...], int] = {}
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
    acc: dict[int, int] = {0: 1}
    most = limits.MAX_ODDS_WORK
    work = 0
    for kind, count in sorted(kinds.items(), key=lambda item: len(item[0])):
        floor = [min(v[i] for v, _ in kind) for i in range(width)]
        die = [(sum((v[i] - floor[i]) * bases[i] for i in range(width)), w) for v, w in kind]
        for _ in range(count):
            work += len(acc) * len(die)
            if work > most:
                raise LimitExceeded("exact odds of this pool would take too much work; "
                                    "use fewer dice, or sample it with `rules run ... --seed N`")
            nxt: dict[int, int] = {}
            get = nxt.get
            for code, x in acc.items():
                for step, y in die:
                    at = code + step
                    nxt[at] = get(at, 0) + x * y
            acc = nxt
            budget.check("these exact odds", "use fewer dice, or sample it with `rules run ... --seed N`")
    out: Joint = {}
    for code, x in acc.items():
        digits = []
        for i in range(width - 1, -1, -1):
            digit, code = divmod(code, bases[i])
            digits.append(digit + low[i])
        out[tuple(reversed(digits))] = x
    return out
