"""An independent, slow reference for dice odds that enumerates every way the dice can fall."""

from __future__ import annotations

import itertools
import math
import operator
from fractions import Fraction

TESTS = {
    ">=": operator.ge, ">": operator.gt, "==": operator.eq, "<=": operator.le, "<": operator.lt,
}


def matches(cond, value, sides):
    """Whether a face meets a modifier condition (op, arg); op 'max' means the top face."""
    op, arg = cond
    if op == "max":
        return value == sides
    return TESTS[op](value, arg)


def one_throw(sides, reroll):
    """(value, probability, earlier values) for one die thrown and rerolled per its rule."""
    faces = range(1, sides + 1)
    if reroll is None:
        return [(v, Fraction(1, sides)) for v in faces]
    cond, again = reroll
    hits = [v for v in faces if matches(cond, v, sides)]
    if again:
        keep = [v for v in faces if v not in hits]
        return [(v, Fraction(1, len(keep))) for v in keep]
    out = {}
    for v in faces:
        if v in hits:
            for w in faces:
                out[w] = out.get(w, 0) + Fraction(1, sides * sides)
        else:
            out[v] = out.get(v, 0) + Fraction(1, sides)
    return sorted(out.items())


def chains(sides, reroll, explode, depth):
    """Every explosion chain of one original die: (values, probability); mass past `depth` is dropped."""
    throw = one_throw(sides, reroll)
    if explode is None:
        return [((v,), p) for v, p in throw]
    cond, once = explode
    out = []

    def grow(prefix, prob, level):
        for v, p in throw:
            values, q = prefix + (v,), prob * p
            if matches(cond, v, sides) and not (once and level >= 1):
                if level + 1 < depth:
                    grow(values, q, level + 1)
            else:
                out.append((values, q))
    grow((), Fraction(1), 0)
    return out


def term_odds(count, sides, reroll=None, explode=None, keep=None, success=None, deduct=None, depth=8):
    """The distribution {value: probability} of one dice term by brute force."""
    per_die = chains(sides, reroll, explode, depth)
    dist: dict[int, Fraction] = {}
    for picks in itertools.combinations_with_replacement(range(len(per_die)), count):
        prob = Fraction(math.factorial(count))
        values = []
        for i in picks:
            chain, p = per_die[i]
            prob *= p
            values.extend(chain)
        for i in set(picks):
            prob /= math.factorial(picks.count(i))
        kept = sorted(values, reverse=True)
        if keep is not None:
            kind, k = keep
            n = len(values)
            if kind == "kh":
                kept = kept[:k]
            elif kind == "kl":
                kept = kept[::-1][:k]
            elif kind == "dh":
                kept = kept[k:]
            else:
                kept = kept[:max(n - k, 0)]
        if success is None:
            result = sum(kept)
        else:
            result = sum(1 for v in kept if matches(success, v, sides))
            if deduct is not None:
                result -= sum(1 for v in kept if matches(deduct, v, sides))
        dist[result] = dist.get(result, 0) + prob
    return dist


def combine(a, b, fn):
    """The distribution of fn(X, Y) for independent X, Y."""
    out: dict[int, Fraction] = {}
    for x, p in a.items():
        for y, q in b.items():
            k = fn(x, y)
            out[k] = out.get(k, 0) + p * q
    return out


def test_oracle_reroll_once_keeps_total_mass():
    """The reference itself: a reroll-once die still sums to probability one."""
    assert sum(p for _, p in one_throw(6, ((("<=", 2)), False))) == 1


def test_oracle_counts_two_d6_like_a_table():
    """The reference itself: 2d6 by enumeration."""
    dist = term_odds(2, 6)
    assert dist[7] == Fraction(1, 6) and dist[2] == Fraction(1, 36)
