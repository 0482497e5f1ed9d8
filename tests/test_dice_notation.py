"""Fate dice, dice with written faces, dice groups and exact odds through explosions (issue 16).

Every exact probability is checked against enumeration written here: products over the faces
for plain dice, explosion chains enumerated to a depth beyond which every chain is past the
bound compared with (so the enumeration is exact), and keep/drop over the members by hand.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from fractions import Fraction

import pytest
from helpers import chi_square_critical

from interpreter.dice.expr import parse
from interpreter.dice.sources import RandomSource
from interpreter.errors import DiceSyntaxError


def odds(text: str) -> dict[int, Fraction | float]:
    """value -> probability of an expression."""
    return parse(text).distribution({}).as_dict()


def faces_odds(faces: list[int], count: int, reroll: set[int] | None = None) -> dict[int, Fraction]:
    """The sum of `count` dice with these written faces, by enumerating every throw (reroll once)."""
    one: Counter[int] = Counter()
    n = len(faces)
    for f in faces:
        if reroll and f in reroll:
            for g in faces:
                one[g] += 1
        else:
            one[f] += n
    total = n * n
    out: Counter[int] = Counter()
    for throw in itertools.product(one.items(), repeat=count):
        w = 1
        for _, x in throw:
            w *= x
        out[sum(f for f, _ in throw)] += w
    return {v: Fraction(w, total ** count) for v, w in out.items()}


def chain_odds(faces: list[int], explode: set[int], cap: int) -> dict[int, Fraction]:
    """min(total, cap) of one exploding die, enumerating chains until the total reaches the cap.

    Faces are never negative and exploding faces are at least 1, so a chain longer than `cap`
    is at the cap already: the enumeration is exact.
    """
    out: Counter[int] = Counter()
    step = Fraction(1, len(faces))

    def walk(total: int, p: Fraction) -> None:
        for f in faces:
            t = total + f
            if t >= cap:
                out[cap] += p * step
            elif f in explode:
                walk(t, p * step)
            else:
                out[t] += p * step
    walk(0, Fraction(1))
    return dict(out)


def sum_capped(parts: list[dict[int, Fraction]], cap: int) -> dict[int, Fraction]:
    """min(sum, cap) of independent capped values."""
    acc = {0: Fraction(1)}
    for part in parts:
        nxt: Counter[int] = Counter()
        for (a, p), (b, q) in itertools.product(acc.items(), part.items()):
            nxt[min(a + b, cap)] += p * q
        acc = dict(nxt)
    return acc


def at_least(dist: dict[int, Fraction], bound: int) -> Fraction:
    """P(value >= bound)."""
    return sum((p for v, p in dist.items() if v >= bound), Fraction(0))


# -- notation ------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["4dF", "dF", "(2)dF", "3d{0,0,1,1,1,2}", "d{-1, 0, 1}", "{1d8x, 1d6x}kh1",
                                  "{1d8x,1d6x}kl1", "{2d6, 1d8 + 2}", "{1d20, 1d20, 1d20}dl1", "4dFkh2"])
def test_new_forms_parse(text):
    assert parse(text).text == text


@pytest.mark.parametrize("text,col,words", [
    ("3d{}", 4, "expected a whole number as a face"),
    ("3d{1,2", 3, "'{' is never closed"),
    ("3d{1;2}", 5, "expected ',' or '}' between faces"),
    ("{1d6, 1d8", 1, "'{' is never closed"),
    ("{1d6}x", 6, "only a keep or drop"),
])
def test_bad_new_forms_point_at_the_column(text, col, words):
    with pytest.raises(DiceSyntaxError, match=words) as caught:
        parse(text)
    assert caught.value.where.col == col


def test_a_name_starting_with_dF_is_a_name():
    assert parse("dFoo + 1").names == frozenset({"dFoo"})


# -- rolling with given dice ---------------------------------------------------------------

def test_group_given_dice_are_each_member_in_order_with_its_explosions(rules):
    result = rules("roll", "{1d8x,1d6x}kh1", "--dice", "8,8,3,6,2")
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith("= 19")
    low = rules("roll", "{1d8x,1d6x}kl1", "--dice", "8,8,3,6,2", "--json")
    data = json.loads(low.output)
    assert data["result"] == 8
    assert [d["value"] for d in data["dice"]] == [8, 8, 3, 6, 2]
    assert [d.get("dropped", False) for d in data["dice"]] == [True, True, True, False, False]
    assert data["dice"][1]["from"] == 0 and data["dice"][4]["from"] == 3


def test_fate_dice_are_given_as_minus_one_zero_one(rules):
    result = rules("roll", "4dF", "--dice=-1,0,1,1", "--json")
    data = json.loads(result.output)
    assert data["result"] == 1 and [d["value"] for d in data["dice"]] == [-1, 0, 1, 1]
    assert data["terms"][0]["faces"] == [-1, 0, 1]
    assert rules("roll", "4dF", "--dice=-1,0,1,1").output == "4dF: [-1, 0, 1, 1] = 1\n"
    bad = rules("roll", "dF", "--dice", "2")
    assert bad.exit_code == 1 and "given die 2 is not a face of a dF" in bad.output


def test_custom_faces_given_and_counted(rules):
    data = json.loads(rules("roll", "3d{0,0,1,1,1,2}cs>=1", "--dice", "2,0,1", "--json").output)
    assert data["result"] == 2 and [d["success"] for d in data["dice"]] == [True, False, True]
    data = json.loads(rules("roll", "2d{-3,5}x", "--dice=5,5,-3,-3", "--json").output)
    assert data["result"] == 4 and [d.get("from") for d in data["dice"]] == [None, None, 0, 1]


@pytest.mark.parametrize("text", ["4dF", "5d{0,0,1,1,1,2}", "{1d8x,1d6x}kh1", "{2d6,1d10}kl1", "3d{-2,0,7}x"])
def test_seeded_rolls_repeat_and_show_only_faces(rules, text):
    first = json.loads(rules("roll", text, "--seed", "7", "--json").output)
    assert json.loads(rules("roll", text, "--seed", "7", "--json").output) == first
    allowed = set()
    for term in first["terms"]:
        allowed |= set(term.get("faces") or range(1, term["sides"] + 1))
    assert {d["value"] for d in first["dice"]} <= allowed


# -- exact odds against enumeration -----------------------------------------------------------

def test_four_fate_dice_zero_is_19_in_81():
    dist = odds("4dF")
    assert dist[0] == Fraction(19, 81)
    assert dist == faces_odds([-1, 0, 1], 4)


def test_three_averaging_dice_reach_three_53_in_108():
    assert odds("3d{0,0,1,1,1,2}>=3")[1] == Fraction(53, 108)


@pytest.mark.parametrize("text,faces,count,reroll", [
    ("3d{0,0,1,1,1,2}", [0, 0, 1, 1, 1, 2], 3, None),
    ("2d{-1,3,3,10}", [-1, 3, 3, 10], 2, None),
    ("3dF", [-1, 0, 1], 3, None),
    ("2d{0,0,1,1,1,2}r0", [0, 0, 1, 1, 1, 2], 2, {0}),
    ("2dFr<0", [-1, 0, 1], 2, {-1}),
])
def test_written_faces_match_enumeration(text, faces, count, reroll):
    assert odds(text) == faces_odds(faces, count, reroll)


def test_keep_on_written_faces_matches_enumeration():
    want: Counter[int] = Counter()
    for throw in itertools.product([-1, 0, 1], repeat=4):
        want[sum(sorted(throw)[2:])] += Fraction(1, 81)
    assert odds("4dFkh2") == dict(want)


@pytest.mark.parametrize("kind,pick", [("kh", max), ("kl", min)])
def test_group_of_plain_dice_matches_enumeration(kind, pick):
    want: Counter[int] = Counter()
    for a, b, c in itertools.product(range(2, 13), range(1, 9), range(1, 5)):
        p = faces_odds(list(range(1, 7)), 2)[a] * Fraction(1, 32)
        want[pick(a, b, c)] += p
    assert odds(f"{{2d6, 1d8, 1d4}}{kind}1") == dict(want)


def test_group_keeping_two_of_three_matches_enumeration():
    want: Counter[int] = Counter()
    for throw in itertools.product(range(1, 7), range(1, 9), range(1, 11)):
        want[sum(sorted(throw)[1:])] += Fraction(1, 480)
    assert odds("{1d6, 1d8, 1d10}kh2") == dict(want)
    assert odds("{1d6, 1d8, 1d10}dl1") == dict(want)


def test_savage_worlds_trait_and_wild_die_is_exactly_71_in_288(rules):
    d8 = chain_odds(list(range(1, 9)), {8}, 8)
    d6 = chain_odds(list(range(1, 7)), {6}, 8)
    want = 1 - (1 - at_least(d8, 8)) * (1 - at_least(d6, 8))
    assert want == Fraction(71, 288)
    assert odds("{1d8x,1d6x}kh1>=8") == {0: 1 - want, 1: want}
    shown = json.loads(rules("odds", "{1d8x,1d6x}kh1>=8", "--json").output)
    assert shown["exact"] == {"0": "217/288", "1": "71/288"} and "truncated" not in shown


@pytest.mark.parametrize("text,faces,explode,count,bound", [
    ("5d10x>=10cs>=8", [0] * 7 + [1, 1, 1], {9}, 5, 5),  # nwod: faces as successes, the 10 at index 9
    ("3d6x", list(range(1, 7)), {5}, 3, 17),
    ("2d10x>=9", list(range(1, 11)), {8, 9}, 2, 25),
    ("4d10x>=8cs>=8", [0] * 7 + [1, 1, 1], {7, 8, 9}, 4, 6),
])
def test_comparisons_with_exploding_totals_are_exact(text, faces, explode, count, bound):
    """Explosions compared with a bound: exact fractions, equal to enumeration of the chains."""
    positions = list(range(len(faces)))
    per_die: Counter[int] = Counter()
    cap = bound + 1
    def walk(total: int, p: Fraction) -> None:
        for i in positions:
            t = total + faces[i]
            if t >= cap:
                per_die[cap] += p / len(faces)
            elif i in explode:
                walk(t, p / len(faces))
            else:
                per_die[t] += p / len(faces)
    walk(0, Fraction(1))
    want = at_least(sum_capped([dict(per_die)] * count, cap), bound)
    got = odds(f"({text})>={bound}")
    assert got == {0: 1 - want, 1: want}
    got = odds(f"{bound}<=({text})")
    assert got == {0: 1 - want, 1: want}


def test_exploding_values_alone_stay_truncated_and_say_so():
    dist = parse("{1d8x,1d6x}kh1").distribution({})
    assert not dist.exact and 0 < dist.truncated < 1e-12


def test_nwod_exceptional_success_fraction_from_the_issue():
    assert odds("5d10x>=10cs>=8>=5")[1] == Fraction(1013853, 50000000)


# -- sampling agrees with the exact odds ------------------------------------------------------

@pytest.mark.parametrize("text", ["4dF", "3d{0,0,1,1,1,2}", "2d{-1,3,3,10}r-1", "{1d8, 1d6}kh1",
                                  "{2d4, 1d6, 1d8}kl1", "{1d8x,1d6x}kh1>=8", "4dFkh2"])
def test_sampled_frequencies_agree_with_exact_odds(text):
    expr = parse(text)
    exact = expr.distribution({}).as_dict()
    source = RandomSource(random.Random(2026))
    n = 6000
    seen = Counter(expr.roll({}, source).value for _ in range(n))
    assert set(seen) <= set(exact)
    bins = [(seen[v], float(p) * n) for v, p in exact.items() if float(p) * n >= 5]
    stat = sum((o - e) ** 2 / e for o, e in bins)
    assert stat < chi_square_critical(len(bins) - 1), (text, stat)


def test_commands_shown_for_the_new_forms_in_dice_md_run(rules):
    """docs/dice.md shows these commands; each runs and prints what the text next to it says."""
    import shlex
    from pathlib import Path
    text = (Path(__file__).parent.parent / "docs" / "dice.md").read_text(encoding="utf-8")
    section = text.split("## Fate dice, written faces and dice groups")[1].split("\n## ")[0]
    commands = [line for line in section.split("```")[1].splitlines() if line.startswith("rules ")]
    assert len(commands) == 7
    outputs = {}
    for line in commands:
        result = rules(*shlex.split(line)[1:])
        assert result.exit_code == 0, (line, result.output)
        outputs[line] = result.output
    assert "19/81" in outputs["rules odds 4dF"]
    assert "53/108" in outputs['rules odds "3d{0,0,1,1,1,2}>=3"']
    assert "71/288" in outputs['rules odds "{1d8x,1d6x}kh1>=8"']
    assert outputs['rules roll "{1d8x,1d6x}kh1" --dice 8,8,3,6,2'].strip() == (
        "{1d8x,1d6x}kh1: {[8 → 8 → 3] = 19, [~~6~~ → ~~2~~] = 8 (dropped)} = 19")
