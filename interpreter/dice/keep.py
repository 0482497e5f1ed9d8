"""Keep and drop (`kh`, `kl`, `dh`, `dl`): which dice of a term, or members of a group, count.

This is the one definition.  The roller asks `dropped` which dice of a throw (or members of a group)
are set aside; exact odds place dice the highest first and count those at the places `kept_span`
gives (dice.pool's walk, and the order statistics of dice.odds, dice.compound and dice.saturate read
`keep_plan`, which is `kept_span` said as "the first N, taken from the top or from the bottom").

Ties: a keep from the top (`kh`, `dl`) keeps the earlier of equal dice, one from the bottom (`kl`,
`dh`) likewise keeps the earlier of equal dice; the totals never depend on it, the trace does.
"""

from __future__ import annotations

from collections.abc import Sequence

Keep = tuple[str, int]  # ('kh', 3): the kind and its number
KINDS = ("kh", "kl", "dh", "dl")


def kept_span(keep: Keep | None, total: int) -> tuple[int, int]:
    """The places [lo, hi) a keep/drop keeps among `total` dice standing the highest first."""
    if keep is None:
        return 0, total
    kind, k = keep
    k = max(0, min(k, total))
    if kind == "kh":
        return 0, k
    if kind == "kl":
        return total - k, total
    if kind == "dh":
        return k, total
    return 0, total - k


def keep_plan(keep: Keep | None, total: int) -> tuple[bool, int]:
    """(from the highest?, how many) the keep/drop keeps: the first `how many` taken from that end."""
    lo, hi = kept_span(keep, total)
    return (True, hi) if lo == 0 else (False, total - lo)


def dropped(keep: Keep | None, values: Sequence[int]) -> frozenset[int] | None:
    """The indices of the values a keep/drop sets aside (None when it keeps them all)."""
    n = len(values)
    high, count = keep_plan(keep, n)
    if count >= n:
        return None
    if count == n - 1:  # one set aside: the last of the equal worst values
        worst = min(values) if high else max(values)
        for i in range(n - 1, -1, -1):
            if values[i] == worst:
                return frozenset((i,))
    if count == 1:  # one kept: the first of the equal best values
        best = values.index(max(values) if high else min(values))
        return frozenset(j for j in range(n) if j != best)
    order = sorted(range(n), key=values.__getitem__, reverse=high)
    return frozenset(order[count:])
