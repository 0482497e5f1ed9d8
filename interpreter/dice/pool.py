"""Statistics of one pool of dice: what a `roll` step's `read` binds, rolled and as exact odds.

A pool is the kept dice of one dice term (explosions included).  Its statistics are read from
the same dice: `sum`, `dice`, `highest`, `lowest`, `2nd highest`, `count >= 5`, `largest set`,
`any match`.  Exact odds never enumerate the dice one by one: the pool is a multiset, walked
face by face from the highest, choosing how many dice show each face (weighted by binomial
coefficients), with a small state per statistic.  Faces no statistic tells apart are merged.
"""

from __future__ import annotations

import math
import operator
import re
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import product

from interpreter.dice.term import TermSpec
from interpreter.errors import BadParameter
from interpreter.record import record

_OPS: dict[str, Callable[[int, int], bool]] = {
    "==": operator.eq, "!=": operator.ne, ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt,
}
_ORDINAL = re.compile(r"^(?:(\d+)(?:st|nd|rd|th) )?(highest|lowest)$")
_COUNT = re.compile(r"^count *(==|!=|>=|<=|>|<|=) *(-?\d+)$")
SIMPLE = ("sum", "dice", "largest set", "any match")
FORMS = "sum, dice, highest, lowest, 2nd highest, 3rd lowest, count >= 5, count == 1, largest set, any match"


@record
class Statistic:
    """One statistic of a pool: its kind ('result' is the term's own value), a rank, a condition."""

    text: str
    kind: str
    rank: int = 0
    op: str = ""
    arg: int = 0

    def of(self, values: Sequence[int], result: int) -> int | bool:
        """The statistic of kept dice showing these values."""
        kind = self.kind
        if kind == "result":
            return result
        if kind == "sum":
            return sum(values)
        if kind == "dice":
            return len(values)
        if kind == "count":
            test = _OPS[self.op]
            return sum(1 for v in values if test(v, self.arg))
        if kind in ("highest", "lowest"):
            ordered = sorted(values, reverse=kind == "highest")
            return ordered[self.rank - 1] if len(ordered) >= self.rank else 0
        most = max(Counter(values).values(), default=0)
        return most if kind == "largest set" else most >= 2


RESULT = Statistic("result", "result")


def parse_statistic(text: str) -> Statistic:
    """A statistic from its text; BadParameter (with the forms allowed) when it is none."""
    words = " ".join(str(text).split())
    if words in SIMPLE:
        return Statistic(words, words)
    found = _ORDINAL.match(words)
    if found:
        rank = int(found.group(1) or 1)
        if rank >= 1:
            return Statistic(words, found.group(2), rank=rank)
    found = _COUNT.match(words)
    if found:
        op = "==" if found.group(1) == "=" else found.group(1)
        return Statistic(words, "count", op=op, arg=int(found.group(2)))
    raise BadParameter(f"'{text}' is not a statistic of a pool; use one of: {FORMS}")


def read_pool(kept: Sequence[int], result: int, stats: Sequence[Statistic]) -> tuple[int | bool, ...]:
    """Every statistic of one rolled pool."""
    return tuple(s.of(kept, result) for s in stats)


# -- exact odds ----------------------------------------------------------------------------------

Joint = dict[tuple[int | bool, ...], int]


def _kept_range(keep: tuple[str, int] | None, total: int) -> tuple[int, int]:
    """Which positions (0 = the highest die) a keep/drop keeps, as [lo, hi)."""
    if keep is None:
        return 0, total
    kind, k = keep
    k = max(0, min(k, total))
    return {"kh": (0, k), "kl": (total - k, total), "dh": (k, total), "dl": (0, total - k)}[kind]


def _walk(spec: TermSpec, stats: Sequence[Statistic], pools: list[tuple[int, list[int]]]) -> Joint:
    """Weights of every combination of statistics over a union of independent sub-pools.

    Faces are taken from the highest down; for each, how many dice of each sub-pool show it.
    The weight of a state is the number of ordered throws (times face weights) leading to it.
    """
    faces = [v for v in range(spec.sides, 0, -1) if any(w[v] for _, w in pools)]
    value, gain = spec.value, spec.gain
    total = sum(c for c, _ in pools)
    lo, hi = _kept_range(spec.keep, total)
    groups = _merged(spec, stats, faces, pools)
    last = {i: max((g for g, (_, ws) in enumerate(groups) if ws[i]), default=-1) for i in range(len(pools))}
    states: dict[tuple[tuple[int, ...], tuple[int | bool, ...]], int] = {
        (tuple(c for c, _ in pools), tuple(0 if s.kind not in ("any match",) else False for s in stats)): 1}
    comb = math.comb
    for g, (v, ws) in enumerate(groups):
        active = [i for i in range(len(pools)) if ws[i]]
        nxt: dict[tuple[tuple[int, ...], tuple[int | bool, ...]], int] = {}
        for (rems, accs), wt in states.items():
            placed = total - sum(rems)
            choices = [[rems[i]] if last[i] == g else range(rems[i] + 1) for i in active]
            for ks in product(*choices):
                w2 = wt
                new_rems = list(rems)
                for i, k in zip(active, ks, strict=True):
                    w2 *= comb(rems[i], k) * ws[i] ** k
                    new_rems[i] -= k
                k_all = sum(ks)
                kept_before = max(0, min(placed, hi) - lo)
                kk = max(0, min(placed + k_all, hi) - max(placed, lo))
                key = (tuple(new_rems), _update(stats, accs, value(v), gain[v], kk, kept_before, hi - lo))
                nxt[key] = nxt.get(key, 0) + w2
        states = nxt
    out: Joint = {}
    for (rems, accs), wt in states.items():
        if not any(rems):
            out[accs] = out.get(accs, 0) + wt
    return out


def _merged(spec: TermSpec, stats: Sequence[Statistic], faces: list[int],
            pools: list[tuple[int, list[int]]]) -> list[tuple[int, list[int]]]:
    """(a representative face, weights per sub-pool) for each group of faces no statistic tells apart.

    Only order-free statistics (the result, dice, counts) allow merging, and only without keep/drop.
    """
    if spec.keep is not None or any(s.kind not in ("result", "dice", "count") for s in stats):
        return [(v, [w[v] for _, w in pools]) for v in faces]
    groups: dict[tuple[object, ...], tuple[int, list[int]]] = {}
    for v in faces:
        shown = spec.value(v)
        sig = (spec.gain[v], tuple(_OPS[s.op](shown, s.arg) for s in stats if s.kind == "count"),
               tuple(bool(w[v]) for _, w in pools))
        _, ws = groups.setdefault(sig, (v, [0] * len(pools)))
        for i, (_, w) in enumerate(pools):
            ws[i] += w[v]
    return list(groups.values())


def _update(stats: Sequence[Statistic], accs: tuple[int | bool, ...], shown: int, gain: int, kk: int,
            kept_before: int, kept_total: int) -> tuple[int | bool, ...]:
    """The statistics after `kk` more kept dice showing `shown`, `kept_before` kept dice above them."""
    if kk == 0:
        return accs
    out: list[int | bool] = []
    for s, acc in zip(stats, accs, strict=True):
        kind = s.kind
        if kind == "result":
            out.append(acc + kk * gain)
        elif kind == "sum":
            out.append(acc + kk * shown)
        elif kind == "dice":
            out.append(acc + kk)
        elif kind == "count":
            out.append(acc + kk if _OPS[s.op](shown, s.arg) else acc)
        elif kind in ("highest", "lowest"):
            rank = s.rank if kind == "highest" else kept_total - s.rank + 1
            out.append(shown if kept_before < rank <= kept_before + kk else acc)
        elif kind == "largest set":
            out.append(max(int(acc), kk))
        else:
            out.append(bool(acc) or kk >= 2)
    return tuple(out)


def pool_odds(spec: TermSpec, stats: Sequence[Statistic]) -> tuple[Joint, int]:
    """Integer weights of every combination of the statistics, and their denominator.

    The weights add up to less than the denominator only when endless explosions were cut off.
    """
    n = spec.count
    w = spec.draw_weights()
    total = sum(w)
    if spec.explode is None or not any(w[v] for v in range(1, spec.sides + 1) if spec.explode[v]):
        return _walk(spec, stats, [(n, w)]), total ** n
    wE = [x if spec.explode[v] else 0 for v, x in enumerate(w)]
    wN = [x - e for x, e in zip(w, wE, strict=True)]
    merged: Joint = {}
    if spec.explode_once:
        for a in range(n + 1):
            factor = math.comb(n, a) * total ** (n - a)
            for key, x in _walk(spec, stats, [(a, wE), (n - a, wN), (a, w)]).items():
                merged[key] = merged.get(key, 0) + x * factor
        return merged, total ** (2 * n)
    from interpreter.dice.odds import explosion_cutoff  # (exact odds only: a roll never loads them)

    tmax = explosion_cutoff(n, sum(wE), total)
    for t in range(tmax + 1):
        factor = math.comb(n + t - 1, t) * total ** (tmax - t)
        part = _walk(spec, stats, [(t, wE), (n, wN)])
        for key, x in part.items():
            merged[key] = merged.get(key, 0) + x * factor
    return merged, total ** (n + tmax)
