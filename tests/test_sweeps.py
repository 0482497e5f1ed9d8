"""Cumulative columns (outcomes best first), sweeps (A..B, A..B/STEP, a,b,c) with --csv and --json, and their edges."""

from __future__ import annotations

import csv
import io
import json
import re
from fractions import Fraction

import pytest
from helpers import odds


def frac(text: str) -> Fraction:
    return Fraction(text)


def test_N2_success_or_better_at_pool_5_is_success_plus_exceptional_success(rules):
    """N2/N4: the issue's own numbers: 83.193% for success or better, 2.028% for exceptional success."""
    out = rules("odds", "nwod", "action", "pool=5", "--at-least", "--outcomes").stdout
    rows = {line.split()[0]: line.split()[1:3] for line in out.splitlines()[2:] if not line.startswith("  never")}
    assert rows["exceptional_success"] == ["2.028%", "2.028%"]
    assert rows["success"] == ["81.165%", "83.193%"]
    assert rows["failure"] == ["16.807%", "100.000%"]


@pytest.mark.parametrize("ruleset,procedure,params", [
    ("nwod", "action", ["pool=5"]), ("lockwood", "check", ["stat=12", "dc=15"]),
    ("rollunder", "check", ["stat=12"]), ("wwn", "skill_check", ["skill=1", "attribute=14", "difficulty=8"]),
    ("nwod", "degeneration", ["morality=7", "sin=4"]),
])
def test_every_cumulative_column_is_a_sum_of_the_exact_column(rules, ruleset, procedure, params):
    """--json at-least/at-most are sums over the exact chances: outcomes in declared order best first, values ascending."""
    got = json.loads(rules("odds", ruleset, procedure, *params, "--at-least", "--at-most", "--json").stdout)
    names = list(got["exact"])
    exact = [frac(got["exact"][o]) for o in names]
    for i, name in enumerate(names):
        assert frac(got["exact_at_least"][name]) == sum(exact[: i + 1])  # this outcome or better
        assert frac(got["exact_at_most"][name]) == sum(exact[i:])  # this outcome or worse
        assert got["at_least"][name] == pytest.approx(float(sum(exact[: i + 1])), abs=1e-12)
    for value in got["values"].values():
        if "exact" not in value:
            continue
        keys = list(value["exact"])
        column = [frac(value["exact"][k]) for k in keys]
        for i, key in enumerate(keys):
            assert frac(value["exact_at_least"][key]) == sum(column[i:])
            assert frac(value["exact_at_most"][key]) == sum(column[: i + 1])
    # the text shows the same numbers, rounded as the one percentage format
    text = rules("odds", ruleset, procedure, *params, "--at-least", "--at-most", "--outcomes", "--all").stdout
    for name in names:
        line = next(line for line in text.splitlines() if line.split()[:1] == [name])
        chance, up, down = line.split()[1:4]
        assert up == f"{float(frac(got['exact_at_least'][name])) * 100:.3f}%"
        assert down == f"{float(frac(got['exact_at_most'][name])) * 100:.3f}%"
        assert chance == f"{float(frac(got['exact'][name])) * 100:.3f}%"


def test_a_dice_expression_gets_its_cumulative_columns_in_json(rules):
    got = json.loads(rules("odds", "2d6", "--at-least", "--json").stdout)
    assert got["exact_at_least"]["7"] == "7/12" and "at_most" not in got


def test_a_sweep_of_ten_pools_is_ten_rows_of_the_same_numbers_as_ten_runs(rules):
    table = list(csv.DictReader(io.StringIO(rules("odds", "nwod", "action", "pool=1..10", "--csv").stdout)))
    assert [row["pool"] for row in table] == [str(n) for n in range(1, 11)]
    swept = json.loads(rules("odds", "nwod", "action", "pool=1..10", "--json").stdout)
    assert swept["swept"] == ["pool"] and len(swept["points"]) == 10
    for n, (point, row) in enumerate(zip(swept["points"], table, strict=True), start=1):
        alone = json.loads(rules("odds", "nwod", "action", f"pool={n}", "--json").stdout)
        assert alone.pop("format_version") == 1  # (the whole object's, said once at the end of the sweep's)
        assert point.pop("params") == {"pool": n}
        assert point == alone
        assert float(row["success"]) == alone["outcomes"]["success"]
        assert float(row["successes_mean"]) == alone["values"]["successes"]["mean"]


def test_steps_lists_and_two_swept_parameters_make_every_combination(rules):
    got = json.loads(rules("odds", "nwod", "action", "pool=1..7/3", "again=8,10", "--json").stdout)
    assert [p["params"] for p in got["points"]] == [
        {"pool": 1, "again": 8}, {"pool": 1, "again": 10}, {"pool": 4, "again": 8}, {"pool": 4, "again": 10},
        {"pool": 7, "again": 8}, {"pool": 7, "again": 10}]
    for point in got["points"]:
        want = odds("nwod", "action", point["params"])
        assert {k: frac(v) for k, v in point["exact"].items()} == dict(want.outcomes)


def test_a_sweep_with_at_least_shows_the_chance_of_each_outcome_or_better(rules):
    text = rules("odds", "nwod", "action", "pool=4..6", "--at-least", "--outcomes").stdout
    assert text.splitlines()[0] == "nwod action, pool from 4 to 6"
    assert re.search(r"^\s+5\s+2\.028%\s+83\.193%\s+100\.000%$", text, re.MULTILINE)
    table = list(csv.DictReader(io.StringIO(rules("odds", "nwod", "action", "pool=5", "pool=5,6", "--at-least",
                                                  "--csv").stdout)))
    assert float(table[0]["success_or_better"]) == 0.83193


def test_percentiles_of_a_value_across_a_sweep(rules):
    table = list(csv.DictReader(io.StringIO(
        rules("odds", "lockwood", "check", "stat=12", "dc=10,15", "--percentiles", "50,90", "--csv").stdout)))
    # L1: the natural d20 is uniform: its median is 10 and its 90th percentile 18
    assert [(r["natural_p50"], r["natural_p90"]) for r in table] == [("10", "18"), ("10", "18")]


@pytest.mark.parametrize("args,message", [
    (["pool=5..1"], "parameter 'pool': the range '5..1' is empty (it ends below its start); write pool=1..5"),
    (["pool=1..5/0"], "parameter 'pool': the step of '1..5/0' must be 1 or more"),
    (["pool=1..3", "again=8,9", "mod=0,1"], "a sweep varies at most 2 parameters, not 3 (pool, again, mod)"),
    (["pool=1..1000"], "parameter 'pool': '1..1000' has 1000 values; a sweep takes at most 400 points"),
    (["pool=1,,3"], "parameter 'pool': '1,,3' has an empty value between its commas"),
    (["pool=1..3", "again=7,8"], "again"),
])
def test_a_bad_sweep_is_one_line_with_exit_1(rules, args, message):
    result = rules("odds", "nwod", "action", *args)
    assert result.exit_code == 1 and message in result.stderr and len(result.stderr.splitlines()) == 1


def test_json_and_csv_together_are_a_usage_mistake(rules):
    assert rules("odds", "nwod", "action", "pool=1..3", "--json", "--csv").exit_code == 2


def test_a_single_odds_as_csv_has_a_row_per_outcome_and_value(rules):
    table = list(csv.DictReader(io.StringIO(rules("odds", "lockwood", "talent", "--csv").stdout)))
    assert table[0] == {"part": "outcome", "value": "success", "chance": "0.5", "at_least": "0.5", "at_most": "1.0",
                        "exact": "1/2"}
    assert [r["value"] for r in table if r["part"] == "roll"] == ["1", "2", "3", "4"]
