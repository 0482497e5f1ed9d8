"""The summary of a numeric distribution that AnyDice prints beside its table: mean, deviation, min and max.

The mean and the variance are summed exactly where every chance is a fraction (the deviation is the
square root of the exact variance); min and max are the smallest and largest value with a chance.
A distribution whose largest values were cut off (endless explosions) has no true maximum: its
summary says so (`cut`), and the text writes the largest value computed as `21+`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction
from typing import TypeGuard

from interpreter.record import record
from interpreter.words import Json


@record
class Summary:
    """Mean, standard deviation, smallest and largest value of one distribution."""

    mean: float
    deviation: float
    min: int | float
    max: int | float
    cut: bool = False  # the largest values were cut off: `max` is only the largest computed


def number(x: float) -> str:
    """A mean or other real number: at most four decimals, no trailing zeros."""
    text = f"{x:.4f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def numeric(value: object) -> TypeGuard[int | float]:
    """Whether a value of a distribution is a number (flags and words have no mean)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def summarize(pairs: Iterable[tuple[object, Fraction | float]], cut: bool = False) -> Summary | None:
    """The summary of (value, chance) pairs; None when a value is not a number or no value has a chance."""
    items = [(v, p) for v, p in pairs if p]
    if not items or not all(numeric(v) for v, _ in items):
        return None
    values = [(v, p) for v, p in items if isinstance(v, (int, float))]
    if all(isinstance(p, Fraction) and isinstance(v, int) for v, p in values):
        # whole weights over one denominator: sums of whole numbers, linear in the values (not Fraction sums)
        fractions = [(int(v), p.numerator, p.denominator) for v, p in values if isinstance(p, Fraction)]
        den = math.lcm(*(d for _, _, d in fractions))
        weights = [(v, n * (den // d)) for v, n, d in fractions]
        mass = sum(w for _, w in weights)
        first = sum(v * w for v, w in weights)
        second = sum(v * v * w for v, w in weights)
        mean_f = float(Fraction(first, mass))
        variance_f = float(Fraction(second * mass - first * first, mass * mass))
    else:
        total = sum(float(p) for _, p in values)
        mean_f = sum(float(v) * float(p) for v, p in values) / total
        variance_f = sum(float(p) * (float(v) - mean_f) ** 2 for v, p in values) / total
    return Summary(mean_f, math.sqrt(max(variance_f, 0.0)), min(v for v, _ in values), max(v for v, _ in values), cut)


def summary_text(summary: Summary) -> str:
    """'mean 10.5, deviation 2.958, min 3, max 18' (the max as '21+' where the largest values were cut off)."""
    top = f"{summary.max}+" if summary.cut else f"{summary.max}"
    return f"mean {number(summary.mean)}, deviation {number(summary.deviation)}, min {summary.min}, max {top}"


def summary_json(pairs: Iterable[tuple[object, Fraction | float]]) -> dict[str, Json]:
    """The keys JSON adds beside a distribution's mean: deviation, min, max (none for a distribution of words;
    where endless explosions were cut off, max is the largest value computed)."""
    summary = summarize(pairs)
    return {} if summary is None else {"deviation": summary.deviation, "min": summary.min, "max": summary.max}


__all__ = ["Summary", "number", "numeric", "summarize", "summary_json", "summary_text"]
