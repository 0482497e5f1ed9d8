"""Exact probabilities of worlds as unreduced integer ratios, made fractions once at the end.

Exact odds multiply a world's weight by the probability of every roll result and add up the
weights of worlds that merge. With `fractions.Fraction` each of those reduces its result with
gcds of large numbers. The probabilities of one roll share a denominator (its distribution's
integer counts over a power of the die size), so a world's weight is kept as a numerator over
the product of the denominators on its way: multiplying is two integer products, and worlds
that merge after the same rolls have the same denominator, so adding is one integer sum.
Nothing is reduced until `exact` makes the result a Fraction.

A weight may also be a float (odds cut off at an endless explosion) or a plain int (1);
mixing one with a float gives a float.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from math import gcd
from typing import Any


class Ratio:
    """num / den, den > 0, not reduced; immutable."""

    __slots__ = ("den", "num")

    def __init__(self, num: int, den: int) -> None:
        self.num = num
        self.den = den

    def __mul__(self, other: Any) -> Any:
        kind = type(other)
        if kind is Ratio:
            return Ratio(self.num * other.num, self.den * other.den)
        if kind is int:
            return Ratio(self.num * other, self.den)
        if kind is Fraction:
            return Ratio(self.num * other.numerator, self.den * other.denominator)
        if kind is float:
            return self.num / self.den * other
        return NotImplemented

    __rmul__ = __mul__

    def __add__(self, other: Any) -> Any:
        kind = type(other)
        if kind is Ratio:
            return _sum(self.num, self.den, other.num, other.den)
        if kind is int:
            return Ratio(self.num + other * self.den, self.den)
        if kind is Fraction:
            return _sum(self.num, self.den, other.numerator, other.denominator)
        if kind is float:
            return self.num / self.den + other
        return NotImplemented

    __radd__ = __add__

    def __float__(self) -> float:
        return self.num / self.den

    def __bool__(self) -> bool:
        return self.num != 0

    def __lt__(self, other: object) -> bool:
        if type(other) is float:  # exactly, as Fraction compares, without reducing a long fraction
            n, d = other.as_integer_ratio()
            return self.num * d < n * self.den
        return bool(exact(self) < other)

    def __eq__(self, other: object) -> bool:
        return bool(exact(self) == other)

    def __hash__(self) -> int:
        return hash(exact(self))

    def __repr__(self) -> str:
        return f"Ratio({self.num}, {self.den})"


def _sum(a: int, da: int, b: int, db: int) -> Ratio:
    """a/da + b/db over the smaller of the two denominators that allow it."""
    if da == db:
        return Ratio(a + b, da)
    if da > db:
        a, da, b, db = b, db, a, da
    if not db % da:
        return Ratio(a * (db // da) + b, db)
    g = gcd(da, db)
    return Ratio(a * (db // g) + b * (da // g), da // g * db)


def add_all(weights: Iterable[object]) -> object:
    """The sum of weights: the numerators of each denominator first, so most of it is integer addition."""
    by_den: dict[int, int] = {}
    rest: list[object] = []
    for w in weights:
        if type(w) is Ratio:
            by_den[w.den] = by_den.get(w.den, 0) + w.num
        else:
            rest.append(w)
    dens = sorted(by_den)  # the smaller divide the larger ones mostly: no gcd needed then
    total: Any = Ratio(by_den[dens[-1]], dens[-1]) if dens else 0
    for d in dens[:-1]:
        total = _sum(by_den[d], d, total.num, total.den)
    for w in rest:
        total = total + w
    return total


def exact(weight: Any) -> Any:
    """A weight as a Fraction (a float stays a float)."""
    if type(weight) is Ratio:
        return Fraction(weight.num, weight.den)
    if type(weight) is int:
        return Fraction(weight)
    return weight
