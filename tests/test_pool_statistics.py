"""Statistics of pools beyond counting: sets, the highest few, filters, symbols, mixed and exploding pools.

Every exact answer is checked against enumeration of every throw written here (exploding dice
followed until their total reaches the cap, past which each is "the cap or more"); rolled pools
are read from the same dice the roll shows, and their frequencies agree with the exact odds.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from fractions import Fraction

import pytest
from helpers import chi_square_critical

from interpreter.dice.atleast import AtLeast
from interpreter.dice.expr import GivenSource, RandomSource, parse
from interpreter.dice.pool import RESULT
from interpreter.dice.reading import read_odds, read_rolled
from interpreter.dice.statistic import parse_statistic
from interpreter.errors import BadParameter


def oracle(text: str, kept: list[int]) -> int | bool:
    """A statistic of kept dice, computed plainly."""
    ordered = sorted(kept, reverse=True)
    counts = Counter(kept)
    if " where " in text:
        text, cond = text.split(" where ")
        op, arg = cond.split()
        kept = [v for v in kept if eval(f"{v} {op} {arg}")]
        return oracle(text, kept)
    if text == "largest set face":
        if not kept:
            return 0
        width = max(counts.values())
        return max(v for v, c in counts.items() if c == width)
    if text.startswith("sets"):
        least = int(text.split()[-1]) if "of" in text else 2
        return sum(1 for c in counts.values() if c >= least)
    if text.startswith("sum of"):
        _, _, side, k = text.split()
        seq = ordered if side == "highest" else ordered[::-1]
        return sum(seq[:int(k)])
    if text == "highest":
        return ordered[0] if ordered else 0
    if text == "largest set":
        return max(counts.values(), default=0)
    if text == "sum":
        return sum(kept)
    if text.startswith("count"):
        _, op, arg = text.split()
        return sum(1 for v in kept if eval(f"{v} {op} {arg}"))
    raise AssertionError(text)


def joint(expr: str, texts: list[str], saturate: bool = True) -> dict[tuple, Fraction]:
    found, den = read_odds(parse(expr), {}, [parse_statistic(t) for t in texts], saturate)
    assert sum(found.values()) == den
    out: Counter[tuple] = Counter()
    for key, x in found.items():
        out[key] += Fraction(x, den)
    return dict(out)


def brute(dice: list[list[int]], texts: list[str], keep: tuple[str, int] | None = None) -> dict[tuple, Fraction]:
    """Every throw of dice with these faces (one list per die), read plainly."""
    out: Counter[tuple] = Counter()
    weight = Fraction(1)
    for faces in dice:
        weight /= len(faces)
    for throw in itertools.product(*dice):
        kept = sorted(throw, reverse=True)
        if keep is not None:
            kept = kept[:keep[1]] if keep[0] == "kh" else kept[-keep[1]:]
        out[tuple(oracle(t, kept) for t in texts)] += weight
    return dict(out)


NEW = ["largest set face", "sets", "sets of 3", "sum of highest 2", "sum of lowest 2", "highest where < 5",
       "sum of highest 2 where > 1", "count >= 4 where != 6", "largest set where > 2"]


@pytest.mark.parametrize("text", NEW)
@pytest.mark.parametrize("expr,dice,keep", [
    ("5d6", [list(range(1, 7))] * 5, None),
    ("4d6kh3", [list(range(1, 7))] * 4, ("kh", 3)),
    ("{d8, d6, d6, d4}", [list(range(1, 9)), list(range(1, 7)), list(range(1, 7)), list(range(1, 5))], None),
    ("{d10, d8, d4}kh2", [list(range(1, 11)), list(range(1, 9)), list(range(1, 5))], ("kh", 2)),
])
def test_each_new_statistic_matches_enumeration(text, expr, dice, keep):
    assert joint(expr, [text]) == brute(dice, [text], keep)


def test_statistics_of_a_mixed_pool_are_read_together():
    texts = ["largest set", "largest set face", "sum of highest 2 where > 1", "count == 1"]
    dice = [list(range(1, 11)), list(range(1, 9)), list(range(1, 9)), list(range(1, 7))]
    assert joint("{d10, d8, d8, d6}", texts) == brute(dice, texts)


def test_the_group_value_is_the_members_total_or_the_kept_ones():
    found, den = read_odds(parse("{d8, d6}kh1"), {}, [RESULT], True)
    assert {k[0]: Fraction(x, den) for k, x in found.items()} == \
        {v: p for v, p in parse("{d8, d6}kh1").distribution({}).probs}


def test_symbol_totals_match_enumeration():
    ability = ["", "S", "S", "SS", "A", "A", "SA", "AA"]
    want: Counter[tuple] = Counter()
    for faces in itertools.product(ability, ability):
        shown = "".join(faces)
        want[(shown.count("S"), shown.count("A"), len(shown))] += Fraction(1, 64)
    assert joint("2d{blank,S,S,SS,A,A,SA,AA}", ["total S", "total A", "sum"]) == dict(want)


def test_a_symbol_the_pool_does_not_show_is_named_in_the_error():
    with pytest.raises(BadParameter, match="the pool shows no symbol 'T' \\(its symbols: S, A\\)"):
        joint("2d{blank,S,A}", ["total T"])


def exploding(sides: int, cap: int) -> dict[int, Fraction]:
    """min(an exploding die's total, cap)."""
    out: Counter[int] = Counter()

    def walk(total: int, p: Fraction) -> None:
        for face in range(1, sides + 1):
            got, q = total + face, p / sides
            if got >= cap:
                out[cap] += q
            elif face == sides:
                walk(got, q)
            else:
                out[got] += q
    walk(0, Fraction(1))
    return dict(out)


def test_exploding_members_are_exact_up_to_the_cap():
    found, den = read_odds(parse("{1d8x, 1d6x}"), {}, [parse_statistic("highest"), parse_statistic("count == 1")],
                           True)
    assert sum(found.values()) == den
    caps = {int.__int__(k[0]) for k in found if isinstance(k[0], AtLeast)}
    assert len(caps) == 1
    cap = caps.pop()
    want: Counter[tuple] = Counter()
    for (a, p), (b, q) in itertools.product(exploding(8, cap).items(), exploding(6, cap).items()):
        want[(max(a, b), (a == 1) + (b == 1))] += p * q
    got = {(int.__int__(k[0]), k[1]): Fraction(x, den) for k, x in found.items()}
    assert got == dict(want)


def test_without_saturation_the_endless_tail_is_cut_off():
    found, den = read_odds(parse("{1d8x, 1d6x}"), {}, [parse_statistic("highest")], False)
    cut = den - sum(found.values())
    assert 0 < cut / den < 1e-12
    assert not any(isinstance(k[0], AtLeast) for k in found)


def test_compounding_dice_in_a_pool_are_one_die_each():
    texts = ["highest", "count >= 7"]
    found, den = read_odds(parse("2d6!!"), {}, [parse_statistic(t) for t in texts], True)
    assert sum(found.values()) == den
    small = {k: Fraction(x, den) for k, x in found.items() if not isinstance(k[0], AtLeast)}
    die = exploding(6, 1000)  # far past any value told apart
    for (a, p), (b, q) in itertools.product(die.items(), die.items()):
        key = (max(a, b), (a >= 7) + (b >= 7))
        if key in small:
            small[key] -= p * q
    assert all(v == 0 for v in small.values())


@pytest.mark.parametrize("expr,texts", [
    ("{d10, d8, d8, d6, d4}", ["count == 1", "sum of highest 2 where > 1"]),
    ("{1d8x, 1d6x}", ["highest", "count == 1"]),
    ("3d{blank,S,S,SS,A,A,SA,AA}", ["total S", "total A"]),
    ("6d10", ["largest set", "largest set face"]),
])
def test_rolled_pools_agree_with_exact_odds(expr, texts):
    stats = [RESULT, *(parse_statistic(t) for t in texts)]
    parsed = parse(expr)
    found, den = read_odds(parsed, {}, stats, False)
    source = RandomSource(random.Random(26))
    n = 6000
    seen: Counter[tuple] = Counter()
    for _ in range(n):
        seen[read_rolled(parsed, {}, parsed.roll({}, source), stats)] += 1
    bins = [(seen[k], x / den * n) for k, x in found.items() if x / den * n >= 5]
    rare, rare_expected = n - sum(o for o, _ in bins), n - sum(e for _, e in bins)
    if rare_expected >= 5:
        bins.append((rare, rare_expected))
    stat = sum((o - e) ** 2 / e for o, e in bins)
    assert stat < chi_square_critical(len(bins) - 1), (expr, stat)


def test_a_rolled_pool_is_read_from_the_dice_the_trace_shows():
    parsed = parse("{1d8x, 1d6x}")
    roll = parsed.roll({}, GivenSource([8, 8, 3, 1]))
    got = read_rolled(parsed, {}, roll, [RESULT, parse_statistic("highest"), parse_statistic("count == 1")])
    assert got == (20, 19, 1)


POOL = """ruleset: hits
title: Hits
constants:
  hit_face: 5
procedures:
  test:
    summary: count the hits
    params:
      dice: {type: int, default: 4}
      face: {type: int, default: 6}
    outcomes: {hit: a hit, miss: none}
    values: {hits: dice at the hit face or more, sixes: dice showing the face}
    steps:
      - roll: {pool: (dice)d6}
        read: {hits: count >= hit_face, sixes: count == face, best: highest where < face}
      - decide:
          - {when: hits > 0, outcome: hit}
          - {outcome: miss}
"""


def test_thresholds_written_as_formulas_read_constants_and_parameters(rules, tmp_path):
    path = tmp_path / "hits.yaml"
    path.write_text(POOL, encoding="utf-8")
    data = json.loads(rules("odds", str(path), "test", "dice=3", "face=4", "--json").stdout)
    assert Fraction(data["exact"]["miss"]) == Fraction(4, 6) ** 3
    sixes = {int(k): Fraction(v) for k, v in data["values"]["sixes"]["exact"].items()}
    assert sixes == {k: Fraction(3 if k in (1, 2) else 1) * Fraction(1, 6) ** k * Fraction(5, 6) ** (3 - k)
                     for k in range(4)}
    run = rules("run", str(path), "test", "dice=3", "--dice", "5,6,2")
    assert "(pool: hits = 2 (count >= hit_face), sixes = 1 (count == face), best = 5 (highest where < face))" \
        in run.stdout
    house = tmp_path / "house.yaml"
    house.write_text(f"extends: {path.name}\nruleset: hits-house\nconstants:\n  hit_face: 6\n", encoding="utf-8")
    data = json.loads(rules("odds", str(house), "test", "dice=3", "--json").stdout)
    assert Fraction(data["exact"]["miss"]) == Fraction(5, 6) ** 3  # one constant changed, every rule follows


def test_a_threshold_naming_an_unknown_name_is_refused_where_it_is_written(rules, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(POOL.replace("count >= hit_face", "count >= hit_fase"), encoding="utf-8")
    result = rules("validate", str(path))
    assert result.exit_code == 1
    assert "$.procedures.test.steps[0].read.hits: unknown name 'hit_fase'" in result.stderr
    assert "did you mean 'hit_face'?" in result.stderr


@pytest.mark.parametrize("written,words", [
    ("median", "is not a statistic of a pool"),
    ("lowest where > 1", "is not a statistic of a pool"),
    ("highest where 3", "'where' takes a condition"),
])
def test_unknown_or_malformed_statistics_are_refused(written, words):
    with pytest.raises(BadParameter, match=words):
        parse_statistic(written)


def test_a_pool_too_big_to_walk_is_refused_before_the_work(monkeypatch):
    from interpreter import limits
    from interpreter.errors import LimitExceeded

    monkeypatch.setattr(limits, "MAX_ODDS_WORK", 1000)
    with pytest.raises(LimitExceeded, match="too much work"):
        read_odds(parse("{d20, d19, d18, d17, d16, d15, d14, d13}"), {}, [parse_statistic("largest set")], True)
