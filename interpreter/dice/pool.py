"""A pool of dice as a value: the dice a `roll` step's `read` takes its statistics from.

A pool is one dice term (its kept dice; with `x` each extra die is a die of the pool, with `!!` a die
and its explosions are one die), or a dice group of dice terms (`{d8, d6, d6, d4}`, or a parameter
given `d8,d6,d6,d4`): each member one die of the pool, worth its total, showing the symbols of its
dice; a group's keep picks members.  Either may come through a name bound to such an expression.

Its statistics (dice.statistic) are read from a rolled pool by folding its dice, and as exact odds by
one walk over the multiset: faces from the highest down, choosing how many dice of each kind show each
face (weighted by binomial coefficients) while every statistic folds in what it sees.  Faces no
statistic tells apart are merged.  A die whose values are endless (a compounding die, an exploding
member) is saturated: its values below a common cap are exact, the rest one "at least the cap" face
with its exact probability; without saturation that rest is cut off.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import product
from typing import Any

from interpreter import budget, limits
from interpreter.dice.additive import additive, convolved
from interpreter.dice.atleast import AtLeast
from interpreter.dice.keep import kept_span
from interpreter.dice.statistic import RESULT, Face, Fold, Statistic, fold_for, fold_rolled, order_key, parse_statistic
from interpreter.dice.term import TermSpec
from interpreter.dice.throws import Pools, pools
from interpreter.errors import LimitExceeded

__all__ = ["RESULT", "Joint", "Statistic", "bind", "parse_statistic", "pool_odds", "read_pool", "walk"]

Key = tuple[Any, ...]  # one value per statistic (a fold's state while walking)
Joint = dict[Key, int]
ADVICE = "use fewer dice, or sample it with `rules run ... --seed N`"
GUESS_LIMIT = 1000  # the estimate runs far above the real count, so only what is far beyond is refused at once


def term_faces(spec: TermSpec) -> list[Face]:
    """The faces of one die of a term, by face index (index 0 unused)."""
    marks = spec.marks
    none: tuple[int, ...] = ()
    return [(spec.value(i), spec.gain[i], marks[i] if marks is not None else none) for i in range(spec.sides + 1)]


# Above the complexity gate (C901): one exact walk over faces, keep and folds.
def walk(faces: Sequence[Face], pools: Pools, keep: tuple[str, int] | None, folds: Sequence[Fold],  # noqa: C901
         check_only: bool = False) -> Joint:
    """Weights of every combination of the folds' values over a union of independent kinds of dice.

    Faces are taken from the highest down; for each, how many dice of each kind show it.  The weight of a
    state is the number of ordered throws (times face weights) leading to it; kept dice are those a
    keep/drop of the whole pool keeps, the highest first.  `check_only` stops after the work estimate
    (GUESS_LIMIT times MAX_ODDS_WORK), refused or not.
    """
    order = sorted((i for i in range(len(faces)) if any(w[i] for _, w in pools)),
                   key=lambda i: order_key(faces[i]), reverse=True)
    total = sum(c for c, _ in pools)
    lo, hi = kept_span(keep, total)
    groups = _merged(faces, order, pools, folds, keep)
    last = [max((g for g, (_, ws) in enumerate(groups) if ws[p]), default=-1) for p in range(len(pools))]
    # below[g][p]: the weight of one die of kind p over the faces after face g (where dice past the last
    # kept place fall, in any way: they are summed out at once)
    below: list[list[int]] = [[0] * len(pools)]
    for _, ws in reversed(groups[1:]):
        below.append([b + w for b, w in zip(below[-1], ws, strict=True)])
    below.reverse()
    values = [int.__int__(face[0]) for face, _ in groups]
    span = max(values) - min(values) + 1 if values else 1
    # At most: for each face, each choice of how many dice of each kind show it, from each state: each count
    # of dice still to place of each kind with each state the statistics can be in (no more than the
    # multisets of faces placed so far), and never more than the multisets of each kind's faces placed so far.
    kinds = math.prod(c + 1 for c, _ in pools)
    per_face = sum(math.prod(c + 1 for (c, _), w in zip(pools, ws, strict=True) if w) for _, ws in groups)
    bound = min(math.prod(f.states(hi - lo, len(groups), span) for f in folds), math.comb(total + len(groups), total))
    placed = math.prod(math.comb(sum(1 for _, ws in groups if ws[p]) + c, c) for p, (c, _) in enumerate(pools))
    if per_face * min(kinds * bound, placed) > GUESS_LIMIT * limits.MAX_ODDS_WORK:  # refused before any work
        raise LimitExceeded(f"exact odds of this pool would take too much work; {ADVICE}")
    if check_only:
        return {}
    most = limits.MAX_ODDS_WORK // 8  # what one walk may do: about a third of a second
    start = tuple(f.start(hi - lo) for f in folds)
    steps = [f.step for f in folds]
    # states by the dice of each kind still to place, then by the folds' states; a state whose dice are
    # all placed is done (nothing it reads comes later)
    states: dict[tuple[int, ...], Joint] = {tuple(c for c, _ in pools): {start: 1}}
    done: Joint = {}
    comb = math.comb
    work = 0
    for g, (face, ws) in enumerate(groups):
        active = [p for p in range(len(pools)) if ws[p]]
        nxt: dict[tuple[int, ...], Joint] = {}
        stepped: dict[tuple[Key, int], Key] = {}
        for rems, inner in states.items():
            placed = total - sum(rems)
            choices = [[rems[p]] if last[p] == g else range(rems[p] + 1) for p in active]
            for ks in product(*choices):
                factor = 1
                new_rems = list(rems)
                for p, k in zip(active, ks, strict=True):
                    if k:
                        factor *= comb(rems[p], k) * ws[p] ** k
                        new_rems[p] -= k
                kept = max(0, min(placed + sum(ks), hi) - max(placed, lo))
                key = tuple(new_rems)
                work += len(inner)
                if work > most:
                    raise LimitExceeded(f"exact odds of this pool would take too much work; {ADVICE}")
                if any(key) and placed + sum(ks) >= hi:  # every kept die placed: the rest summed out
                    for p, r in enumerate(key):
                        if r:
                            factor *= below[g][p] ** r
                    if not factor:
                        continue
                    key = (0,) * len(key)
                if not any(key):
                    target = done
                elif kept or key in nxt:
                    target = nxt.setdefault(key, {})
                else:  # the usual case: dice carried past this face unchanged
                    nxt[key] = {accs: wt * factor for accs, wt in inner.items()} if factor != 1 else dict(inner)
                    continue
                get = target.get
                if not kept:
                    for accs, wt in inner.items():
                        target[accs] = get(accs, 0) + wt * factor
                    continue
                for accs, wt in inner.items():
                    after = stepped.get((accs, kept))
                    if after is None:
                        after = stepped[accs, kept] = tuple([step(a, face, kept) for step, a in zip(steps, accs, strict=True)])
                    target[after] = get(after, 0) + wt * factor
        budget.check("these exact odds", ADVICE)
        states = nxt
    if not any(c for c, _ in pools):
        done = {start: 1}
    out: Joint = {}
    for accs, wt in done.items():
        final = tuple(f.final(a) for f, a in zip(folds, accs, strict=True))
        out[final] = out.get(final, 0) + wt
    return out


def _merged(faces: Sequence[Face], order: list[int], pools: Pools, folds: Sequence[Fold],
            keep: tuple[str, int] | None) -> list[tuple[Face, list[int]]]:
    """(a face, weights per kind of die) for each run of faces no fold tells apart.

    Only folds that do not care about order (they say what one die adds) allow merging, and only
    without keep/drop.
    """
    if keep is not None or any(f.key is None for f in folds):
        return [(faces[i], [w[i] for _, w in pools]) for i in order]
    groups: dict[tuple[Any, ...], tuple[Face, list[int]]] = {}
    for i in order:
        face = faces[i]
        sig = (tuple(f.key(face) for f in folds if f.key is not None), tuple(bool(w[i]) for _, w in pools))
        _, ws = groups.setdefault(sig, (face, [0] * len(pools)))
        for p, (_, w) in enumerate(pools):
            ws[p] += w[i]
    return list(groups.values())


def pool_odds(spec: TermSpec, stats: Sequence[Statistic], saturate: bool = False,
              check_only: bool = False) -> tuple[Joint, int]:
    """Integer weights of every combination of a term's statistics, and their denominator.

    The weights add up to less than the denominator only when endless explosions were cut off.  With
    `check_only`, only whether the work estimate refuses it (LimitExceeded; no weights otherwise).
    """
    folds = [fold_for(s, spec.symbols) for s in stats]
    if spec.compound:
        return _compound_pool(spec, folds, saturate, check_only)
    faces = term_faces(spec)
    if spec.keep is None and spec.explode is None and additive(stats):
        weights = spec.draw_weights()
        die: dict[Face, int] = {}
        for face, w in zip(faces[1:], weights[1:], strict=True):
            die[face] = die.get(face, 0) + w
        return convolved([(die, spec.count)], folds, check_only), sum(weights) ** spec.count
    merged: Joint = {}
    ways, den = pools(spec, spec.draw_weights())
    for kinds, factor in ways:
        for key, x in walk(faces, kinds, spec.keep, folds, check_only).items():
            merged[key] = merged.get(key, 0) + x * factor
    return merged, den


def _compound_pool(spec: TermSpec, folds: Sequence[Fold], saturate: bool, check_only: bool) -> tuple[Joint, int]:
    """A term of compounding dice: each die's values from its series, saturated or cut off at a cap."""
    from interpreter.dice.compound import compound_die, die_cap

    n = max(spec.count, 1)
    cap = die_cap(spec, limits.TRUNCATION_MASS / (2 * n))
    pairs, den, tail = compound_die(spec, cap)
    faces: list[Face] = [(v, spec.gain_of(v), ()) for v, _ in pairs]
    weights = [w for _, w in pairs]
    if saturate and tail:
        faces.append((AtLeast(cap), spec.gain_of(cap), ()))
        weights.append(tail)
    return walk(faces, [(spec.count, weights)], spec.keep, folds, check_only), den ** spec.count


def read_pool(kept: Sequence[int], result: int, stats: Sequence[Statistic]) -> Key:
    """Every statistic of one rolled pool of numbered dice, given the values of its kept dice."""
    faces: list[Face] = [(v, v, ()) for v in kept]
    rest = [s for s in stats if s.kind != "result"]
    got = iter(fold_rolled(rest, faces, ()))
    return tuple(result if s.kind == "result" else next(got) for s in stats)


def bind(reads: Sequence[Statistic], values: Sequence[Sequence[int]]) -> list[Statistic]:
    """The statistics with their formula thresholds given values (one sequence per statistic)."""
    return [s.bound(v) for s, v in zip(reads, values, strict=True)]


def symbols_of(specs: Sequence[TermSpec]) -> tuple[str, ...]:
    """Every symbol the dice show, in the order they are first written."""
    return tuple(dict.fromkeys(sym for spec in specs for sym in spec.symbols))


def marks_in(spec: TermSpec, index: int, symbols: Sequence[str]) -> tuple[int, ...]:
    """A face's count of each of the pool's symbols."""
    if spec.marks is None:
        return (0,) * len(symbols)
    own = dict(zip(spec.symbols, spec.marks[index], strict=True))
    return tuple(own.get(sym, 0) for sym in symbols)
