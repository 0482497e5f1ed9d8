"""Keep and drop (`kh`, `kl`, `dh`, `dl`): which dice of a term, or members of a group, count.

This is the one definition.  The roller asks `dropped` which dice of a throw (or members of a group)
are set aside; exact odds place dice the highest first and count those at the places `kept_span`
gives (dice.pool's walk), or the first so many from one end that `keep_plan` gives (the order
statistics of dice.odds, dice.compound and dice.saturate).

Ties: a keep from the top (`kh`, `dl`) keeps the earlier of equal dice, one from the bottom (`kl`,
`dh`) likewise keeps the earlier of equal dice; the totals never depend on it, the trace does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

Keep = tuple[str, int]  # ('kh', 3): the kind and its number
KINDS = ("kh", "kl", "dh", "dl")


def keep_plan(keep: Keep | None, total: int) -> tuple[bool, int]:
    """(from the highest?, how many) a keep/drop keeps of `total` dice: the first so many from that end."""
    if keep is None:
        return True, total
    kind, k = keep
    count = k if kind[0] == "k" else total - k
    return kind in ("kh", "dl"), max(0, min(count, total))


def kept_span(keep: Keep | None, total: int) -> tuple[int, int]:
    """The places [lo, hi) a keep/drop keeps among `total` dice standing the highest first."""
    high, count = keep_plan(keep, total)
    return (0, count) if high else (total - count, total)


Dropper = Callable[[Sequence[int]], "frozenset[int] | None"]


def dropped(keep: Keep | None, values: Sequence[int]) -> frozenset[int] | None:
    """The indices of the values a keep/drop sets aside (None when it keeps them all)."""
    return dropper(keep, len(values))(values)


@lru_cache(maxsize=1024)
def dropper(keep: Keep | None, n: int) -> Dropper:
    """`dropped` for `n` values, made once: one kept or one set aside is found without sorting."""
    high, count = keep_plan(keep, n)
    if count >= n:
        return _keeps_all
    only = tuple(frozenset((i,)) for i in range(n))
    if n == 2 and count == 1:  # the other die when the second is better; else the second
        first, second = only
        if high:
            return lambda values: first if values[1] > values[0] else second
        return lambda values: first if values[1] < values[0] else second
    if count == n - 1:  # one set aside: the last of the equal worst values
        worst = min if high else max
        return lambda values: only[n - 1 - values[::-1].index(worst(values))]
    if count == 1:  # one kept: the first of the equal best values
        all_but = tuple(frozenset(range(n)).difference((i,)) for i in range(n))
        best = max if high else min
        return lambda values: all_but[values.index(best(values))]

    def by_sorting(values: Sequence[int]) -> frozenset[int]:
        return frozenset(sorted(range(n), key=values.__getitem__, reverse=high)[count:])
    return by_sorting


def _keeps_all(values: Sequence[int]) -> None:
    return None


# Written in a roll's trace where the kept total was found without finding which dice were set aside:
# the trace's reader (trace.RawTerm.dropped) asks `dropped` for them when the trace is read.  Only its
# identity counts.
LATER: frozenset[int] = frozenset((-1,))


@lru_cache(maxsize=1024)
def kept_total(keep: Keep | None, n: int) -> Callable[[list[int]], int] | None:
    """The sum of the `n` values a keep/drop keeps, found without finding which are kept, where that is
    cheaper: all kept, one kept, one set aside (None otherwise)."""
    high, count = keep_plan(keep, n)
    if count >= n:
        return sum
    if count == 1:
        return max if high else min
    if count == n - 1:
        worst = min if high else max
        return lambda values: sum(values) - worst(values)
    return None
