"""A parameter that restates a sheet value (`sheet_value`): with a sheet the sheet's value is used, the
same value given again is accepted and any other is refused in one line (W10's rounds, issue's item 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import odds, one_line_error

from interpreter import api
from interpreter.errors import RulesError


def dying(rules, tmp_path: Path, rounds_down: int = 3) -> Path:
    path = tmp_path / "wren.yaml"
    assert rules("sheet", "new", "wwn", "-o", str(path), "--name", "Wren").exit_code == 0
    text = path.read_text()
    for old, new in (("  mortally_wounded: false", "  mortally_wounded: true"),
                     ("  rounds_down: 0", f"  rounds_down: {rounds_down}"),
                     ("  hp: {current: 4, max: 4}", "  hp: {current: 0, max: 4}")):
        assert old in text
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    return path


def stabilize(rules, path: Path, *args: str, dice: str = "3,4") -> dict:
    result = rules("run", "wwn", "stabilize", "skill=1", "attribute=12", *args, "--sheet", str(path),
                   "--dice", dice, "--json", "--dry-run")
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.stdout))


def test_W10_stabilize_on_a_sheet_rolls_at_the_sheets_rounds_down(rules, tmp_path):
    path = dying(rules, tmp_path)
    assert stabilize(rules, path)["values"]["difficulty"] == 11   # 8 + the sheet's 3 rounds
    assert stabilize(rules, path, "rounds=3")["values"]["difficulty"] == 11   # the same value: accepted
    assert stabilize(rules, path, "rounds=rounds_down")["values"]["difficulty"] == 11


def test_W10_a_rounds_that_contradicts_the_sheet_is_refused_in_one_line(rules, tmp_path):
    path = dying(rules, tmp_path)
    before = path.read_bytes()
    result = rules("run", "wwn", "stabilize", "skill=1", "attribute=12", "rounds=0", "--sheet", str(path),
                   "--dice", "3,4")
    assert one_line_error(result) == (
        "parameter 'rounds' is 0, but the sheet's rounds_down is 3: with --sheet the sheet's value counts; "
        "leave rounds out, or change rounds_down on the sheet")
    assert path.read_bytes() == before
    assert "rounds_down is 3" in one_line_error(
        rules("odds", "wwn", "stabilize", "skill=1", "attribute=12", "rounds=0", "--sheet", str(path)))


def test_W10_without_a_sheet_rounds_is_the_parameter_as_before(rules):
    result = rules("run", "wwn", "stabilize", "skill=1", "attribute=12", "rounds=0", "--dice", "3,4", "--json")
    assert json.loads(result.stdout)["values"]["difficulty"] == 8
    assert "rounds" in one_line_error(rules("run", "wwn", "stabilize", "skill=1", "attribute=12"))


def test_W10_odds_and_the_library_read_the_sheet_too(rules, tmp_path):
    path = dying(rules, tmp_path)
    sheetless = odds("wwn", "stabilize", {"skill": 1, "attribute": 12, "rounds": 3})
    assert api.odds("wwn", "stabilize", {"skill": 1, "attribute": 12}, sheet=path).outcomes == sheetless.outcomes
    shown = json.loads(rules("odds", "wwn", "stabilize", "skill=1", "attribute=12", "--sheet", str(path),
                             "--json").stdout)
    assert shown["outcomes"]["success"] == pytest.approx(float(sheetless.outcomes["success"]))
    with pytest.raises(RulesError, match="rounds_down is 3"):
        api.run("wwn", "stabilize", {"skill": 1, "attribute": 12, "rounds": 5}, sheet=path, dice=[3, 4])


def test_sheet_value_must_name_a_sheet_value_the_procedure_reads(rules, tmp_path):
    house = tmp_path / "bad.yaml"
    house.write_text("extends: wwn\nruleset: bad\nprocedures:\n  stabilize:\n    params:\n      rounds:\n"
                     "        sheet_value: rounds_dwn\n", encoding="utf-8")
    result = rules("validate", str(house))
    assert result.exit_code == 1
    assert "parameter 'rounds' restates 'rounds_dwn', which is no sheet value" in result.stderr
    assert "rounds_down" in result.stderr
