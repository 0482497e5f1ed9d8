"""Compounding explosions (`!!`): a die and its explosions are one die, rolled and as exact odds.

Oracles: enumeration of each die's chain of throws (followed until the bound compared with is
reached, so what is left is exactly "the bound or more"), and icepool's compounding `explode`.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from fractions import Fraction

import icepool
import pytest
from helpers import chi_square_critical

from interpreter.dice.expr import GivenSource, RandomSource, parse


def chains(sides: int, bound: int, again: set[int] | None = None) -> dict[int, Fraction]:
    """min(a compounding die's sum, bound), by following its throws."""
    again = {sides} if again is None else again
    out: Counter[int] = Counter()

    def walk(total: int, p: Fraction) -> None:
        for face in range(1, sides + 1):
            got, q = total + face, p / sides
            if got >= bound:
                out[bound] += q
            elif face in again:
                walk(got, q)
            else:
                out[got] += q
    walk(0, Fraction(1))
    return dict(out)


def pool_at_least(sides: int, count: int, keep: int, bound: int) -> Fraction:
    """P(the `keep` highest of `count` compounding dice add up to `bound` or more), by enumeration."""
    die = chains(sides, bound)
    total = Fraction(0)
    for throw in itertools.product(die.items(), repeat=count):
        p = Fraction(1)
        for _, q in throw:
            p *= q
        if sum(sorted((v for v, _ in throw), reverse=True)[:keep]) >= bound:
            total += p
    return total


def odds_json(rules, expr: str) -> dict:
    result = rules("odds", expr, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_a_compounding_d6_reaching_ten_is_one_in_twelve(rules):
    data = odds_json(rules, "1d6!!>=10")
    assert Fraction(data["exact"]["1"]) == chains(6, 10)[10] == Fraction(1, 12)


def test_each_compounded_die_is_shown_with_its_throws(rules):
    result = rules("roll", "3d10!!", "--dice", "10,4,2,10,10,1")
    assert result.exit_code == 0, result.output
    assert result.output == "3d10!!: [14 (10+4), 2, 21 (10+10+1)] = 37\n"
    data = json.loads(rules("roll", "3d10!!", "--dice", "10,4,2,10,10,1", "--json").output)
    assert [d["value"] for d in data["dice"]] == [14, 2, 21]
    assert data["dice"][0]["throws"] == [10, 4] and data["dice"][2]["throws"] == [10, 10, 1]
    assert "throws" not in data["dice"][1]


def test_compounding_dice_are_thrown_die_by_die():
    expr = parse("2d6!!")
    assert expr.roll({}, GivenSource([6, 6, 1, 3])).value == 16  # 6+6+1, then 3


@pytest.mark.parametrize("expr,sides,count,keep,bound", [
    ("2d6!!kh1>=9", 6, 2, 1, 9), ("3d6!!kh2>=14", 6, 3, 2, 14), ("3d4!!kl2>=5", 4, 3, 2, 5),
    ("4d6!!kh3>=18", 6, 4, 3, 18),
])
def test_kept_compounding_dice_against_a_bound_match_enumeration(rules, expr, sides, count, keep, bound):
    want = pool_at_least(sides, count, keep, bound) if "kl" not in expr else None
    got = Fraction(odds_json(rules, expr)["exact"]["1"])
    if want is None:  # the lowest: enumerate the same way, kept from the bottom
        die = chains(sides, bound)
        want = Fraction(0)
        for throw in itertools.product(die.items(), repeat=count):
            p = Fraction(1)
            for _, q in throw:
                p *= q
            if sum(sorted(v for v, _ in throw)[:keep]) >= bound:
                want += p
    assert got == want


def test_compounding_without_keep_adds_up_as_exploding_dice_do():
    assert parse("3d6!!").distribution({}).probs == parse("3d6x").distribution({}).probs


def test_counting_compounded_dice_is_exact_and_matches_enumeration():
    dist = parse("3d6!!cs>=8").distribution({})
    assert dist.exact
    die = chains(6, 8)  # a die counts when its sum reaches 8
    hit = die[8]
    for k in range(4):
        assert dist.prob(k) == Fraction(3 if k in (1, 2) else 1, 1) * hit ** k * (1 - hit) ** (3 - k)


def test_the_whole_kept_total_matches_icepool_within_float_precision():
    dist = parse("6d10!!kh3").distribution({})
    assert 0 < dist.truncated < 1e-15
    ice = icepool.d10.explode(depth=20).pool(6).highest(3).sum()
    assert max(abs(float(p) - float(ice.probability(v))) for v, p in dist.probs) < 1e-15
    assert abs(dist.mean - float(ice.mean())) < 1e-12


def test_a_comparison_after_the_explosion_is_the_expressions():
    tree = parse("1d6!!>=10").tree
    assert type(tree).__name__ == "Compare"
    assert parse("1d10!!9").tree.mods.explode.op == "=="  # a face right after !! is its condition


def test_sampled_compounding_rolls_agree_with_exact_odds():
    expr = parse("2d6!!kh1>=7")
    p = Fraction(expr.distribution({}).prob(1))
    source = RandomSource(random.Random(22))
    n = 6000
    hits = sum(expr.roll({}, source).value for _ in range(n))
    stat = (hits - n * p) ** 2 / (n * p) + ((n - hits) - n * (1 - p)) ** 2 / (n * (1 - p))
    assert float(stat) < chi_square_critical(1)


def test_compounding_forever_is_refused(rules):
    result = rules("roll", "1d1!!")
    assert result.exit_code == 1 and "explodes forever" in result.output


def test_roll_and_keep_written_as_a_group_of_exploding_dice_is_exact(rules):
    """`{1d10x, ...}kh2>=20`: each member a d10 with its explosions, the two highest kept (as `5d10!!kh2`)."""
    data = odds_json(rules, "{1d10x,1d10x,1d10x,1d10x,1d10x}kh2>=20")
    ice = icepool.d10.explode(depth=3).map(lambda v: min(v, 20)).pool(5).highest(2).sum()
    want = sum((Fraction(ice.probability(v)) for v in ice.outcomes() if v >= 20), Fraction(0))
    assert Fraction(data["exact"]["1"]) == want == Fraction(odds_json(rules, "5d10!!kh2>=20")["exact"]["1"])
