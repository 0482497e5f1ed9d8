"""Cumulative chances of a distribution: "at least" and "at most", for outcomes and for values.

Outcomes come in their declared order, best first, so "at least" an outcome is the chance of it or
a better one (it and every outcome above it) and "at most" is it or a worse one. Values come in
ascending order, so "at least" a value is it or a larger one. Both are sums of the exact column,
kept exact where it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

Row = tuple[Any, Any, Any, Any]  # (value or outcome, chance, at least, at most)


def _zero(items: Sequence[tuple[Any, Any]]) -> Any:
    return Fraction(0) if all(isinstance(p, (Fraction, int)) for _, p in items) else 0.0


def cumulative(items: Iterable[tuple[Any, Any]], best_first: bool) -> list[Row]:
    """Each (key, chance) with its chance of at least and at most that key.

    `best_first` is for outcomes (listed best first: at least = this and the ones before it);
    otherwise the keys are values in ascending order (at least = this and the ones after it).
    """
    rows = list(items)
    total = sum((p for _, p in rows), _zero(rows))
    out: list[Row] = []
    before = _zero(rows)
    for key, p in rows:
        through = before + p  # this row and every row listed before it
        after = total - before  # this row and every row listed after it
        out.append((key, p, through, after) if best_first else (key, p, after, through))
        before = through
    return out


def columns(dist: Mapping[Any, Any], best_first: bool) -> tuple[dict[Any, Any], dict[Any, Any]]:
    """The "at least" and "at most" columns of a distribution, keyed as it is."""
    rows = cumulative(dist.items(), best_first)
    return {k: up for k, _, up, _ in rows}, {k: down for k, _, _, down in rows}


__all__ = ["Row", "columns", "cumulative"]
