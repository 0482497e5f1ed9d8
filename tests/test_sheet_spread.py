"""`rules sheet new` meets the creation rules for any constants, or refuses naming the rule it cannot meet;
`rules validate` warns when a ruleset's own defaults break its creation rules.

Expected traits follow the spreading rule documented in docs/format.md ("A new sheet"), worked by hand.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import one_line_error, with_constants

from interpreter.load.yaml import load_file

LOCKWOOD_STATS = ["STR", "AGI", "END", "KNO", "WIS", "PER", "CHA", "WILL", "LUCK"]


def new_sheet(rules, tmp_path: Path, ref: str | Path) -> Path:
    sheet = tmp_path / "new.yaml"
    result = rules("sheet", "new", str(ref), "-o", str(sheet))
    assert result.exit_code == 0, result.stderr
    for args in (("sheet", "check", str(sheet)), ("sheet", "check", "--creation", str(sheet))):
        checked = rules(*args)
        assert checked.exit_code == 0, checked.stderr
    return sheet


def traits_of(sheet: Path) -> dict[str, int]:
    return dict(load_file(str(sheet)).data["traits"])


@pytest.mark.parametrize("budget,expected", [
    # L5 defaults: eight stats at 11 and LUCK at 12 spend 100. Ten more points go one to each stat
    # in the listed order, then one more to STR; ten fewer come off the same way.
    (110, dict.fromkeys(LOCKWOOD_STATS, 12) | {"STR": 13, "LUCK": 13}),
    (90, dict.fromkeys(LOCKWOOD_STATS, 10) | {"STR": 9, "LUCK": 11}),
])
def test_L5_sheet_new_spreads_a_changed_stat_budget(rules, tmp_path, budget, expected):
    house = with_constants(tmp_path, "lockwood", stat_budget=budget)
    traits = traits_of(new_sheet(rules, tmp_path, house))
    assert sum(traits.values()) == budget
    assert traits == expected


def test_L5_sheet_new_keeps_every_stat_in_a_changed_range(rules, tmp_path):
    house = with_constants(tmp_path, "lockwood", stat_budget=170, stat_max=19)
    traits = traits_of(new_sheet(rules, tmp_path, house))
    assert sum(traits.values()) == 170 and max(traits.values()) == 19


@pytest.mark.parametrize("budget,reach", [(200, 180), (40, 45)])
def test_L5_an_impossible_budget_is_refused_naming_the_rule(rules, tmp_path, budget, reach):
    house = with_constants(tmp_path, "lockwood", stat_budget=budget)
    sheet = tmp_path / "new.yaml"
    line = one_line_error(rules("sheet", "new", str(house), "-o", str(sheet)))
    assert "creation rule 'stats'" in line and f"{budget} points" in line and f"reach {reach}" in line
    assert not sheet.exists()


def test_N8_sheet_new_spreads_attribute_dots_with_the_costly_fifth_dot(rules, tmp_path):
    # mental attributes (primary) start at 3, 3, 2 (5 dots above the free one); 9 dots: +1, +1, +1,
    # then the fifth dots cost 2 and would overshoot, so Resolve takes the last one.
    house = with_constants(tmp_path, "nwod", attribute_dots_primary=9)
    traits = traits_of(new_sheet(rules, tmp_path, house))
    assert (traits["Intelligence"], traits["Wits"], traits["Resolve"]) == (4, 4, 4)


def test_N11_sheet_new_spreads_changed_merit_points(rules, tmp_path):
    house = with_constants(tmp_path, "nwod", merit_points=9)
    merits = load_file(str(new_sheet(rules, tmp_path, house))).data["choices"]["merits"]
    assert sum(merits.values()) == 9


@pytest.mark.parametrize("ref", ["lockwood", "nwod", "rollunder", "wwn"])
def test_bundled_rulesets_validate_without_warnings(rules, ref):
    result = rules("validate", ref)
    assert result.exit_code == 0 and "warning" not in result.stderr + result.stdout


def test_validate_warns_when_the_defaults_break_a_creation_rule(rules, tmp_path):
    house = with_constants(tmp_path, "lockwood", stat_budget=110)
    result = rules("validate", str(house))
    assert result.exit_code == 0
    assert result.stdout.strip() == f"{house}: valid"
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"warning: {house}: ") and re.search(r"stats: 100 points spent; the budget is 110", line)
