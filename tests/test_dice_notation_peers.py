"""The notation players bring from Foundry VTT and Roll20: ro, mi/ma, [labels], and Roll20's `NdM>T`.

Each form is rolled with given dice and asked for exact odds, against enumeration; the forms that
collide with ours (Roll20's success count) keep our reading and say so in a located warning.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import pytest

from interpreter.dice.expr import GivenSource, parse


def enumerate_dist(faces: list[int], count: int, fn) -> dict[int, Fraction]:  # type: ignore[no-untyped-def]
    out: dict[int, Fraction] = {}
    for throw in itertools.product(faces, repeat=count):
        v = fn(throw)
        out[v] = out.get(v, Fraction(0)) + Fraction(1, len(faces) ** count)
    return out


def test_roll20_success_count_stays_a_comparison_with_a_warning_naming_cs(rules):
    result = rules("roll", "10d10>7", "--dice", "1,1,1,1,1,1,1,1,1,1")
    assert result.exit_code == 0
    assert result.stdout == "10d10>7: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1] > 7 = 1 (true)\n"  # the total, 10, is > 7
    assert result.stderr == (
        "warning: <expr>:1:6: '10d10>7' compares the total of the dice with 7; to count the dice above 7, "
        "write '10d10cs>7' (Roll20's '10d10>7' counts 7 or more: '10d10cs>=7')\n")
    data = json.loads(rules("roll", "10d10>7", "--seed", "1", "--json").stdout)
    assert data["warnings"] == [("<expr>:1:6: '10d10>7' compares the total of the dice with 7; to count the dice "
                                 "above 7, write '10d10cs>7' (Roll20's '10d10>7' counts 7 or more: '10d10cs>=7')")]


def test_the_written_comparison_keeps_its_meaning_and_no_warning(rules):
    result = rules("odds", "2d20kh1+5>=15", "--json")
    data = json.loads(result.stdout)
    assert Fraction(data["exact"]["1"]) == Fraction(319, 400) and "warnings" not in data and result.stderr == ""
    assert parse("1d20>15").warnings == () and parse("10d10cs>7").warnings == ()


def test_the_suggested_count_is_the_count(rules):
    data = json.loads(rules("odds", "10d10cs>7", "--json").stdout)
    want = enumerate_dist(list(range(1, 11)), 3, lambda t: sum(v > 7 for v in t))
    three = json.loads(rules("odds", "3d10cs>7", "--json").stdout)
    assert {int(k): Fraction(v) for k, v in three["exact"].items()} == want
    assert Fraction(data["exact"]["0"]) == Fraction(7, 10) ** 10


@pytest.mark.parametrize("written", ["4d6ro1", "4d6r1", "4d6ro=1"])
def test_ro_rerolls_once_as_r_does(written):
    assert parse(written).roll({}, GivenSource([1, 1, 3, 4, 5])).value == 13  # the 1 is thrown again once: 1
    dist = parse(written).distribution({})
    assert dist.probs == parse("4d6r1").distribution({}).probs


def test_mi_and_ma_change_what_a_die_shows(rules):
    result = rules("roll", "1d20mi10", "--dice", "3")
    assert result.stdout == "1d20mi10: [10 (rolled 3)] = 10\n"
    data = json.loads(rules("roll", "1d20mi10", "--dice", "3", "--json").stdout)
    assert data["dice"] == [{"value": 10, "rolled": 3}]
    dist = {int(k): Fraction(v) for k, v in json.loads(rules("odds", "2d6ma4", "--json").stdout)["exact"].items()}
    assert dist == enumerate_dist(list(range(1, 7)), 2, lambda t: sum(min(v, 4) for v in t))
    assert parse("1d20min10").distribution({}).probs == parse("1d20mi10").distribution({}).probs
    assert parse("3d6max5kh2").distribution({}).probs == \
        tuple(sorted(enumerate_dist(list(range(1, 7)), 3, lambda t: sum(sorted(min(v, 5) for v in t)[1:])).items()))


def test_labels_are_kept_in_the_trace(rules):
    result = rules("roll", "2d6[fire] + 1d4[cold] + 3[strength]", "--dice", "2,4,2")
    assert result.stdout == "2d6[fire] + 1d4[cold] + 3[strength]: [2, 4][fire] + [2][cold] + 3[strength] = 11\n"
    data = json.loads(rules("roll", "2d6[fire]+1d4[cold]", "--dice", "2,4,2", "--json").stdout)
    assert [t.get("label") for t in data["terms"]] == ["fire", "cold"]
    assert parse("2d6[fire]").distribution({}).probs == parse("2d6").distribution({}).probs


@pytest.mark.parametrize("text,col,words", [
    ("2d6[", 4, "'[' is never closed"),
    ("2d6[]", 4, "a label is 1 to 64 characters"),
    ("(2d6)[x]", 1, "a label follows a number"),
])
def test_bad_labels_point_at_the_column(text, col, words):
    from interpreter.errors import DiceSyntaxError

    with pytest.raises(DiceSyntaxError, match=words.replace("(", r"\(").replace("[", r"\[")) as caught:
        parse(text)
    assert caught.value.where is not None and caught.value.where.col == col


def test_a_modifier_that_can_never_apply_is_warned_about_at_its_number(rules):
    result = rules("odds", "1d10x>=20")
    assert result.stderr == ("warning: <expr>:1:8: '1d10x>=20' never explodes: it does so on a die showing 20 or "
                             "more, and no face of a d10 does\n")
    assert [w.col for w in parse("5d10cs>=11").warnings] == [9]
    assert parse("1d6r>=7").warnings[0].message.startswith("'1d6r>=7' never rerolls")
    assert parse("1d10x>=10").warnings == ()


def test_rules_validate_places_dice_warnings_in_the_file(rules, tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text("""ruleset: w
title: W
procedures:
  p:
    outcomes: {a: a, b: b}
    steps:
      - roll: {n: "10d10>7"}
      - decide:
          - {when: n, outcome: a}
          - {outcome: b}
""", encoding="utf-8")
    result = rules("validate", str(path))
    assert result.exit_code == 0
    assert result.stderr == (f"warning: {path}:7:25: $.procedures.p.steps[0].roll.n: '10d10>7' compares the total "
                             "of the dice with 7; to count the dice above 7, write '10d10cs>7' (Roll20's '10d10>7' "
                             "counts 7 or more: '10d10cs>=7')\n")


def test_a_dice_parameter_written_with_commas_is_one_group():
    from interpreter.dice.expr import parse_parameter

    assert parse_parameter("d8,d6,d6,d4").text == "{d8,d6,d6,d4}"
    assert parse_parameter("{1d8x,1d6x}kh1").text == "{1d8x,1d6x}kh1"
    assert parse_parameter("1d8").text == "1d8"
