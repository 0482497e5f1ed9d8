"""Probability distributions over integers, exact where possible, and their arithmetic."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from math import gcd as _gcd

from interpreter import budget, limits
from interpreter.errors import EvaluationError, LimitExceeded

Poly = tuple[int, list[int]]  # (lowest value, weights of consecutive values from it)

OPERATORS: dict[str, Callable[[int, int], int]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
    ">=": lambda a, b: int(a >= b),
    ">": lambda a, b: int(a > b),
    "==": lambda a, b: int(a == b),
    "!=": lambda a, b: int(a != b),
    "<=": lambda a, b: int(a <= b),
    "<": lambda a, b: int(a < b),
}


def _check_bits(slots: int, slot_bits: int) -> None:
    """Refuse a packed multiplication whose operands would be unreasonably large."""
    if slots * slot_bits > limits.MAX_ODDS_BITS:
        raise LimitExceeded(
            "computing these exact odds would take too much work "
            f"({slots} values with {slot_bits}-bit weights); use fewer dice, or roll it with `rules roll EXPR --seed N`")
    budget.check("these exact odds", "use fewer dice, or roll it with `rules roll EXPR --seed N`")


def _pack(weights: list[int], slot: int) -> int:
    """Pack non-negative weights into one integer, `slot` bytes each."""
    return int.from_bytes(b"".join(w.to_bytes(slot, "little") for w in weights), "little")


def unpack(packed: int, count: int, slot: int) -> list[int]:
    """The inverse of _pack for `count` slots."""
    raw = packed.to_bytes(count * slot, "little")
    frm = int.from_bytes
    return [frm(raw[i:i + slot], "little") for i in range(0, count * slot, slot)]


def poly_mul(a: Poly, b: Poly) -> Poly:
    """The product of two weight polynomials (the convolution of two distributions)."""
    (oa, wa), (ob, wb) = a, b
    if len(wa) == 1 or len(wb) == 1:
        if len(wa) == 1:
            (oa, wa), (ob, wb) = (ob, wb), (oa, wa)
        k = wb[0]
        return oa + ob, [w * k for w in wa]
    if len(wa) * len(wb) <= 64:
        out = [0] * (len(wa) + len(wb) - 1)
        for i, x in enumerate(wa):
            if x:
                for j, y in enumerate(wb):
                    out[i + j] += x * y
        return oa + ob, out
    bound = max(wa) * sum(wb) if len(wa) > len(wb) else max(wb) * sum(wa)
    slot = bound.bit_length() // 8 + 1
    count = len(wa) + len(wb) - 1
    _check_bits(count, slot * 8)
    return oa + ob, unpack(_pack(wa, slot) * _pack(wb, slot), count, slot)


def poly_pow(a: Poly, n: int) -> Poly:
    """The n-th power of a weight polynomial (the sum of n independent copies)."""
    off, w = a
    if n == 0:
        return 0, [1]
    if n == 1:
        return off, list(w)
    nz = [i for i, x in enumerate(w) if x]
    if len(nz) == 1:
        return off * n + nz[0] * n, [w[nz[0]] ** n]
    lo, hi = nz[0], nz[-1]
    w = w[lo:hi + 1]
    off += lo
    count = (len(w) - 1) * n + 1
    slot = (sum(w) ** n).bit_length() // 8 + 1
    _check_bits(count, slot * 8)
    return off * n, unpack(_pack(w, slot) ** n, count, slot)


def poly_add(a: Poly, b: Poly) -> Poly:
    """The sum of two weight polynomials (for mixtures)."""
    (oa, wa), (ob, wb) = a, b
    lo = min(oa, ob)
    hi = max(oa + len(wa), ob + len(wb))
    out = [0] * (hi - lo)
    for i, x in enumerate(wa, oa - lo):
        out[i] += x
    for i, x in enumerate(wb, ob - lo):
        out[i] += x
    return lo, out


def poly_scale(a: Poly, k: int) -> Poly:
    """A weight polynomial times a constant."""
    return a[0], [x * k for x in a[1]]


class Distribution:
    """A finite probability distribution over integers; immutable."""

    __slots__ = ("_counts", "_den", "_fl", "_probs", "_trunc", "_w")

    def __init__(self, weights: Mapping[int, int] | None, den: int = 1,
                 floats: Mapping[int, float] | None = None, truncated: float = 0.0):
        """Build from integer weights over a denominator, or from float probabilities."""
        self._w = None if weights is None else {v: w for v, w in weights.items() if w}
        self._den = den
        self._fl = None if floats is None else dict(floats)
        self._trunc = truncated
        self._probs: tuple[tuple[int, Fraction | float], ...] | None = None
        self._counts: tuple[tuple[tuple[int, int], ...], int] | None = None

    # -- construction ----------------------------------------------------
    @classmethod
    def point(cls, value: int) -> Distribution:
        """The distribution that is always `value`."""
        return cls({value: 1}, 1)

    @classmethod
    def from_poly(cls, poly: Poly, den: int) -> Distribution:
        """From a weight polynomial over a denominator."""
        off, w = poly
        return cls({off + i: x for i, x in enumerate(w) if x}, den)

    @classmethod
    def from_dict(cls, mapping: Mapping[int, Fraction | float | int], truncated: float = 0.0) -> Distribution:
        """From value -> probability; exact when every probability is a Fraction/int and nothing is cut off."""
        if truncated == 0 and all(isinstance(p, (int, Fraction)) for p in mapping.values()):
            fr = {int(v): Fraction(p) for v, p in mapping.items()}
            den = 1
            for p in fr.values():
                den = den * p.denominator // _gcd(den, p.denominator)
            return cls({v: int(p * den) for v, p in fr.items()}, den)
        return cls(None, floats={int(v): float(p) for v, p in mapping.items() if p}, truncated=float(truncated))

    # -- views -------------------------------------------------------------
    @property
    def exact(self) -> bool:
        """Whether every probability is an exact Fraction and nothing was cut off."""
        return self._w is not None and sum(self._w.values()) == self._den

    @property
    def truncated(self) -> float:
        """The probability mass cut off (0.0 when nothing was)."""
        if self._w is None:
            return self._trunc
        cut = self._den - sum(self._w.values())
        return cut / self._den if cut else 0.0

    @property
    def probs(self) -> tuple[tuple[int, Fraction | float], ...]:
        """(value, probability) pairs sorted by value."""
        if self._probs is None:
            items: list[tuple[int, Fraction | float]]
            if self._w is None:
                assert self._fl is not None
                items = sorted(self._fl.items())
            elif self.exact:
                den = self._den
                items = sorted((v, Fraction(w, den)) for v, w in self._w.items())
            else:
                den = self._den
                items = sorted((v, w / den) for v, w in self._w.items())
            self._probs = tuple(items)
        return self._probs

    def counts(self) -> tuple[tuple[tuple[int, int], ...], int] | None:
        """An exact distribution as (value, count) pairs sorted by value over one denominator, the
        smallest that keeps every count whole; None when it is not exact."""
        if self._counts is None and self.exact:
            assert self._w is not None
            common = _gcd(self._den, *self._w.values())
            self._counts = tuple(sorted((v, w // common) for v, w in self._w.items())), self._den // common
        return self._counts

    @property
    def mean(self) -> float:
        """The expected value (over the mass that was not cut off)."""
        if self._w is None:
            assert self._fl is not None
            return sum(v * p for v, p in self._fl.items())
        return sum(v * w for v, w in self._w.items()) / self._den

    @property
    def values(self) -> tuple[int, ...]:
        """The possible values in increasing order."""
        return tuple(v for v, _ in self.probs)

    def as_dict(self) -> dict[int, Fraction | float]:
        """value -> probability."""
        return dict(self.probs)

    def prob(self, value: int) -> Fraction | float:
        """The probability of one value (0 when impossible)."""
        for v, p in self.probs:
            if v == value:
                return p
        return Fraction(0) if self.exact else 0.0

    def tail_start(self, mass: float) -> int:
        """The smallest value from which the values up make at most `mass` of the probability (the largest
        value when even it makes more)."""
        probs = self.probs
        acc = 0.0
        start = probs[-1][0]
        for v, p in reversed(probs):
            acc += float(p)
            if acc > mass:
                break
            start = v
        return start

    def trimmed(self, mass: float) -> Distribution:
        """Integer weights without the largest values whose probability, with what is cut off already,
        stays within `mass`: values too unlikely to tell apart from the cut."""
        if self._w is None or not self._w:
            return self
        room = int(Fraction(mass) * self._den) - (self._den - sum(self._w.values()))
        out = dict(self._w)
        for v in sorted(out, reverse=True):
            if out[v] > room or len(out) == 1:
                break
            room -= out.pop(v)
        return self if len(out) == len(self._w) else Distribution(out, self._den)

    def weights(self) -> tuple[dict[int, int], int] | None:
        """Integer weights and their denominator, or None for a float distribution."""
        return (self._w, self._den) if self._w is not None else None

    def as_poly(self) -> Poly | None:
        """Dense weights when the values are close together, else None."""
        if self._w is None or not self._w:
            return None
        lo, hi = min(self._w), max(self._w)
        if hi - lo + 1 > 4 * len(self._w) + 64:
            return None
        w = [0] * (hi - lo + 1)
        for v, x in self._w.items():
            w[v - lo] = x
        return lo, w

    def __repr__(self) -> str:
        shown = ", ".join(f"{v}: {p}" for v, p in self.probs[:8])
        more = ", ..." if len(self.probs) > 8 else ""
        return f"Distribution({{{shown}{more}}}, truncated={self.truncated:g})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Distribution):
            return NotImplemented
        return self.probs == other.probs and self.truncated == other.truncated

    def __hash__(self) -> int:
        return hash((self.probs, self.truncated))

    # -- arithmetic ----------------------------------------------------------
    def map(self, fn: Callable[[int], int]) -> Distribution:
        """The distribution of fn(X)."""
        if self._w is not None:
            out: dict[int, int] = {}
            for v, w in self._w.items():
                k = fn(v)
                out[k] = out.get(k, 0) + w
            return Distribution(out, self._den)
        assert self._fl is not None
        fo: dict[int, float] = {}
        for v, p in self._fl.items():
            k = fn(v)
            fo[k] = fo.get(k, 0.0) + p
        return Distribution(None, floats=fo, truncated=self._trunc)

    @staticmethod
    def combine(a: Distribution, b: Distribution, op: str | Callable[[int, int], int]) -> Distribution:
        """The distribution of op(X, Y) for independent X ~ a and Y ~ b; op is a symbol or a function."""
        fn = OPERATORS[op] if isinstance(op, str) else op
        if fn is operator.floordiv and b.prob(0):
            raise EvaluationError("division by zero is possible here")
        if a._w is not None and b._w is not None:
            if fn in (operator.add, operator.sub):
                pa = a.as_poly()
                pb = b.as_poly() if fn is operator.add else b.map(operator.neg).as_poly()
                if pa is not None and pb is not None:
                    return Distribution.from_poly(poly_mul(pa, pb), a._den * b._den)
            _check_work(len(a._w) * len(b._w))
            out: dict[int, int] = {}
            bi = list(b._w.items())
            for x, wx in a._w.items():
                for y, wy in bi:
                    k = fn(x, y)
                    out[k] = out.get(k, 0) + wx * wy
            return Distribution(out, a._den * b._den)
        fa, fb = a._float_items(), b._float_items()
        _check_work(len(fa) * len(fb))
        fo: dict[int, float] = {}
        for x, px in fa:
            for y, py in fb:
                k = fn(x, y)
                fo[k] = fo.get(k, 0.0) + px * py
        ta, tb = a.truncated, b.truncated
        return Distribution(None, floats=fo, truncated=ta + tb - ta * tb)

    def _float_items(self) -> list[tuple[int, float]]:
        """(value, float probability) pairs."""
        return [(v, float(p)) for v, p in self.probs]

    @staticmethod
    def mixture(parts: Iterable[tuple[Fraction | float, Distribution]]) -> Distribution:
        """Σ p·D: pick a distribution with probability p, then a value from it."""
        items = list(parts)
        if all(isinstance(p, (int, Fraction)) and d._w is not None for p, d in items):
            den = 1
            for p, d in items:
                step = Fraction(p).denominator * d._den
                den = den * step // _gcd(den, step)
            out: dict[int, int] = {}
            for p, d in items:
                fp = Fraction(p)
                factor = fp.numerator * (den // (fp.denominator * d._den))
                assert d._w is not None
                for v, w in d._w.items():
                    out[v] = out.get(v, 0) + w * factor
            return Distribution(out, den)
        fo: dict[int, float] = {}
        cut = 0.0
        for p, d in items:
            for v, q in d._float_items():
                fo[v] = fo.get(v, 0.0) + float(p) * q
            cut += float(p) * d.truncated
        total = sum(float(p) for p, _ in items)
        return Distribution(None, floats=fo, truncated=cut + max(0.0, 1.0 - total))


def _check_work(steps: int) -> None:
    """Refuse a pairwise combination that would take unreasonably long."""
    if steps > limits.MAX_ODDS_WORK:
        raise LimitExceeded(f"computing these exact odds would take too much work ({steps} combinations); "
                            "use fewer dice, or roll it with `rules roll EXPR --seed N`")
    budget.check("these exact odds", "use fewer dice, or roll it with `rules roll EXPR --seed N`")
