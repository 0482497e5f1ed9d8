"""Exact odds keep world weights as unreduced ratios (procedure.weights); checked against Fraction."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from interpreter.dice.expr import parse
from interpreter.procedure.weights import Ratio, add_all, exact

dens = st.sampled_from([1, 2, 6, 10, 20, 100, 10**6, 3 * 10**5, 7])
ratios = st.builds(lambda n, d, k: (n, d * k), st.integers(0, 10**9), dens, st.integers(1, 50))


@given(st.lists(ratios, min_size=1, max_size=12), st.lists(st.sampled_from(["*", "+"]), min_size=11, max_size=11))
def test_ratio_arithmetic_is_fraction_arithmetic(terms, ops):
    mine = Ratio(*terms[0])
    theirs = Fraction(*terms[0])
    for (n, d), op in zip(terms[1:], ops, strict=False):
        if op == "*":
            mine, theirs = mine * Ratio(n, d), theirs * Fraction(n, d)
        else:
            mine, theirs = mine + Ratio(n, d), theirs + Fraction(n, d)
    assert exact(mine) == theirs


@given(st.lists(ratios, max_size=20), st.integers(0, 5), st.sampled_from([Fraction(1, 3), Fraction(0)]))
def test_add_all_is_the_sum_of_fractions(terms, whole, third):
    weights = [Ratio(n, d) for n, d in terms] + [whole, third]
    assert exact(add_all(weights)) == sum((Fraction(n, d) for n, d in terms), Fraction(whole) + third)


def test_a_float_makes_the_result_a_float():
    assert add_all([Ratio(1, 4), 0.5]) == 0.75
    assert Ratio(1, 4) * 0.5 == 0.125 and 0.5 * Ratio(1, 4) == 0.125
    assert Ratio(1, 10**400) < 1e-300 and not Ratio(1, 2) < 0.5


def test_mixing_ints_and_fractions_stays_exact():
    assert exact(Ratio(1, 6) * 2 + Fraction(1, 3) + 1) == Fraction(5, 3)
    assert exact(1 * Ratio(3, 9)) == Fraction(1, 3)
    assert exact(add_all([])) == 0


def test_counts_are_the_probabilities_over_one_denominator():
    saturated = parse("20d10x>=10cs>=8").saturated({})
    assert saturated is not None and parse("20d10x>=10cs>=8").distribution({}).counts() is None
    for dist in [*(parse(text).distribution({}) for text in ["3d6", "2d20kh1", "4d6kh3", "1d6+1d8"]), saturated[0]]:
        counts = dist.counts()
        if counts is None:
            assert not dist.exact
            continue
        pairs, den = counts
        assert [(v, Fraction(c, den)) for v, c in pairs] == list(dist.probs)
        assert sum(c for _, c in pairs) == den


@given(ratios, st.floats(min_value=0, max_value=2, allow_nan=False))
def test_a_ratio_compares_with_a_float_as_its_fraction_does(term, x):
    assert (Ratio(*term) < x) == (Fraction(*term) < x)
    assert (Ratio(*term) < Fraction(*term)) is False
