"""`rules odds EXPR EXPR ...`: several dice expressions on one table, each with its mean, deviation, min and max.

Every chance and every summary number is checked against icepool, an independent dice library.
"""

from __future__ import annotations

import json
import math
import re
import shutil
from fractions import Fraction

import icepool
import pytest
from helpers import rulesets_dir

ORACLE = {
    "3d6": 3 @ icepool.d6,
    "4d6kh3": icepool.d6.pool(4).highest(3).sum(),
    "2d10": 2 @ icepool.d10,
}


def percent(p: Fraction) -> str:
    return f"{float(p) * 100:.3f}%"


def summary_rows(text: str) -> dict[str, list[str]]:
    """The summary under the table: expression -> [mean, deviation, min, max] as printed."""
    rest = text.partition("\n\n")[2]
    lines = rest.splitlines()
    assert lines[0].split() == ["mean", "deviation", "min", "max"]
    return {line.split()[0]: line.split()[1:] for line in lines[1:] if not line.startswith("(")}


def test_three_expressions_share_one_table_with_every_chance_of_each(rules):
    result = rules("odds", "3d6", "4d6kh3", "2d10")
    assert result.exit_code == 0, result.stderr
    table = result.stdout.partition("\n\n")[0].splitlines()
    assert table[0].split() == ["value", "3d6", "4d6kh3", "2d10"]
    rows = {int(line.split()[0]): line.split()[1:] for line in table[1:]}
    assert sorted(rows) == list(range(2, 21))  # every value any of them takes, in order
    for i, (expr, die) in enumerate(ORACLE.items()):
        for value, cells in rows.items():
            want = die.probability(value)
            assert cells[i] == (percent(want) if want else "-"), (expr, value)


def test_each_expression_has_its_mean_deviation_min_and_max(rules):
    rows = summary_rows(rules("odds", "3d6", "4d6kh3", "2d10").stdout)
    assert list(rows) == list(ORACLE)
    for expr, die in ORACLE.items():
        mean, deviation, low, high = rows[expr]
        assert math.isclose(float(mean), float(die.mean()), abs_tol=1e-4), expr
        assert math.isclose(float(deviation), die.sd(), abs_tol=1e-4), expr
        assert (int(low), int(high)) == (die.min_outcome(), die.max_outcome()), expr


def test_the_json_is_one_object_per_expression_with_its_summary(rules):
    got = json.loads(rules("odds", "3d6", "4d6kh3", "2d10", "--json").stdout)
    assert [e["expr"] for e in got["expressions"]] == list(ORACLE)
    for entry, die in zip(got["expressions"], ORACLE.values(), strict=True):
        assert entry["exact"] == {str(v): str(Fraction(die.probability(v))) for v in die.outcomes()}
        assert math.isclose(entry["mean"], float(die.mean()), rel_tol=1e-9)
        assert math.isclose(entry["deviation"], die.sd(), rel_tol=1e-9)
        assert (entry["min"], entry["max"]) == (die.min_outcome(), die.max_outcome())
    # the object of one expression is the object `rules odds EXPR --json` prints for it
    alone = json.loads(rules("odds", "4d6kh3", "--json").stdout)
    assert alone.pop("format_version") == got["format_version"]  # (the version is the whole answer's)
    assert got["expressions"][1] == alone


def test_one_expression_prints_its_summary_too(rules):
    last = rules("odds", "4d6kh3").stdout.strip().splitlines()[-1]
    die = ORACLE["4d6kh3"]
    shown = re.fullmatch(r"mean ([0-9.]+), deviation ([0-9.]+), min (\d+), max (\d+)", last)
    assert shown is not None, last
    assert math.isclose(float(shown.group(1)), float(die.mean()), abs_tol=1e-4)
    assert math.isclose(float(shown.group(2)), die.sd(), abs_tol=1e-4)
    assert (int(shown.group(3)), int(shown.group(4))) == (die.min_outcome(), die.max_outcome())


def test_a_value_of_a_procedure_has_its_summary(rules):
    text = rules("odds", "lockwood", "talent").stdout
    d4 = icepool.d4
    shown = re.search(r"^roll \(mean 2.5, deviation ([0-9.]+), min 1, max 4\)$", text, re.MULTILINE)
    assert shown is not None and math.isclose(float(shown.group(1)), d4.sd(), abs_tol=1e-4)
    got = json.loads(rules("odds", "lockwood", "talent", "--json").stdout)["values"]["roll"]
    assert math.isclose(got["deviation"], d4.sd()) and (got["min"], got["max"]) == (1, 4)


def test_an_endless_explosion_has_no_true_maximum(rules):
    rows = summary_rows(rules("odds", "1d6x", "1d6").stdout)
    assert rows["1d6x"][3].endswith("+") and rows["1d6"][3] == "6"
    # 1d6 exploding on 6: mean 3.5 * 6/5 (a geometric number of sixes, each adding 6)
    assert math.isclose(float(rows["1d6x"][0]), 4.2, abs_tol=1e-4)


def test_a_mistake_in_one_expression_names_which(rules):
    result = rules("odds", "3d6", "1d20>=")
    assert result.exit_code == 1 and result.stdout == ""
    assert re.fullmatch(r"<expr>:1:7: expression 2 '1d20>=': .+\n", result.stderr), result.stderr
    result = rules("odds", "3d6", "2d6+bonus")
    assert result.exit_code == 1 and "expression 2 '2d6+bonus': unknown name 'bonus'" in result.stderr


def test_a_misspelt_ruleset_is_still_a_ruleset_mistake(rules):
    result = rules("odds", "nwdo", "action", "pool=5")
    assert result.exit_code == 1
    assert "no ruleset id or file named 'nwdo'" in result.stderr and "nwod" in result.stderr


def test_a_ruleset_file_named_like_an_expression_is_a_ruleset(rules, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(rulesets_dir() / "lockwood.yaml", tmp_path / "2d6")
    result = rules("odds", "2d6", "talent")
    assert result.exit_code == 0 and result.stdout.startswith("lockwood talent")


def test_expressions_take_no_sheet_or_percentiles(rules):
    assert rules("odds", "3d6", "2d6", "--percentiles", "50").exit_code == 2
    assert rules("odds", "3d6", "2d6", "--sheet", "x.yaml").exit_code == 2


def test_the_csv_has_a_part_per_expression(rules):
    lines = rules("odds", "1d4", "2d4kh1", "--csv").stdout.splitlines()
    assert lines[0] == "part,value,chance,at_least,at_most,exact"
    two = icepool.d4.pool(2).highest(1).sum()
    assert lines[1:5] == [f"1d4,{v},0.25,{(5 - v) / 4},{v / 4},1/4" for v in range(1, 5)]
    assert [line.split(",")[-1] for line in lines[5:]] == [str(Fraction(two.probability(v))) for v in range(1, 5)]


def test_cumulative_columns_follow_each_expression(rules):
    text = rules("odds", "1d4", "1d6", "--at-least").stdout
    head = text.splitlines()[0]
    assert head.split() == ["value", "1d4", "1d4", "at", "least", "1d6", "1d6", "at", "least"]
    rows = {int(line.split()[0]): line.split()[1:] for line in text.partition("\n\n")[0].splitlines()[1:]}
    assert sorted(rows) == list(range(1, 7))
    for value, cells in rows.items():
        want = []
        for die in (icepool.d4, icepool.d6):
            p = die.probability(value)
            want += [percent(p) if p else "-", percent(die.probability(">=", value))]
        assert cells == want, value  # at least 5 on a d4: none, though a d4 cannot roll 5


@pytest.mark.parametrize("exprs", [("3d6", "4d6kh3"), ("1d20", "2d20kh1", "2d20kl1")])
def test_the_order_given_is_the_order_shown(rules, exprs):
    got = json.loads(rules("odds", *exprs, "--json").stdout)
    assert tuple(e["expr"] for e in got["expressions"]) == exprs
