"""A fifth system, written from docs/format.md alone, exercises the language end to end.

It is a ladder system in the style of Fate: four fudge dice (each -1, 0 or +1, written 4d3-8),
shifts against a difficulty, stress boxes, fate points and a skill budget.
"""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from helpers import enumerate_dice, odds, run_given

from interpreter.pipeline import problems

LADDER = """\
ruleset: ladder
title: Ladder
description: Four fudge dice plus a skill against a difficulty; shifts decide the outcome.
constants:
  style_shifts: 3
  base_difficulty: 2
  refresh: 3
dice:
  fudge: 4d3 - 8
traits:
  Fight: {label: Fight, group: skills, min: 0, max: 4, default: 2}
  Notice: {label: Notice, group: skills, min: 0, max: 4, default: 1}
  Will: {label: Will, group: skills, min: 0, max: 4, default: 1}
derived:
  stress_boxes: {formula: 2 + (Will >= 3), label: Stress boxes}
procedures:
  overcome:
    summary: Roll 4dF + skill against a difficulty.
    params:
      skill: {type: int, min: 0, max: 8}
      difficulty: {type: int, default: base_difficulty, min: base_difficulty - 4}
      invoke: {type: flag, help: +2 from a fate point}
    outcomes:
      style: succeed with style
      success: succeed
      tie: tie
      failure: fail
    values:
      shifts: result minus difficulty
    steps:
      - roll: {result: fudge + skill + 2 * invoke}
      - let: {shifts: result - difficulty}
      - decide:
          - {when: shifts >= style_shifts, outcome: style}
          - {when: shifts > 0, outcome: success}
          - {when: shifts == 0, outcome: tie}
          - {outcome: failure}
  take_stress:
    sheet: required
    params:
      amount: {type: int, min: 0}
    outcomes:
      absorbed: the stress boxes took it
      taken_out: no boxes left
    values:
      stress_filled: boxes filled
    steps:
      - damage: stress
        amount: amount
        type: 1
      - decide:
          - {when: stress_full, outcome: taken_out}
          - {outcome: absorbed}
  scuffle:
    sheet: required
    params:
      hits: {type: int, min: 0}
    outcomes:
      absorbed: the stress boxes took it
      taken_out: no boxes left
    values:
      stress_filled: boxes filled
    steps:
      - call: take_stress
        with: {amount: hits}
        inherit_outcome: true
  sheetless_scuffle:
    params:
      hits: {type: int, min: 0}
    outcomes:
      absorbed: the stress boxes took it
      taken_out: no boxes left
    steps:
      - call: take_stress
        with: {amount: hits}
        inherit_outcome: true
  spend_fate:
    sheet: required
    outcomes:
      done: a fate point spent
    values:
      fate_points: left
    steps:
      - require: fate_points > 0
        message: "no fate points left ({fate_points} of {fate_points_max})"
      - update: {fate_points: fate_points - 1}
      - decide: [{outcome: done}]
sheet:
  fields:
    aspects: {kind: list, count: 2, default: [High concept, Trouble]}
  state:
    consequences: {type: int, default: 0, min: 0, max: 3}
  tracks:
    stress: {kind: boxes, size: stress_boxes, types: [hit], marks: [X]}
  resources:
    fate_points: {max: refresh}
  creation:
    - {budget: skills, traits: [Fight, Notice, Will], total: 4}
  standing:
    - rule: pyramid
      check: Fight >= Notice
      message: "Fight ({Fight}) must be at least Notice ({Notice})"
      at: traits.Notice
  status:
    taken_out: stress_full
"""

SHEET = """\
ruleset: ladder
name: Ada
traits: {Fight: 2, Notice: 1, Will: 1}
choices:
  aspects: [Duelist, Owes the guild]
state:
  consequences: 0
  stress: [null, null]
  fate_points: 3
"""


@pytest.fixture
def ladder(tmp_path: Path) -> str:
    path = tmp_path / "ladder.yaml"
    path.write_text(LADDER, encoding="utf-8")
    return str(path)


def test_it_validates(ladder):
    assert [str(p) for p in problems(ladder)] == []


@pytest.mark.parametrize("skill,difficulty,invoke", [(2, 2, False), (0, 3, True), (4, 0, False)])
def test_odds_match_brute_force_over_four_fudge_dice(ladder, skill, difficulty, invoke):
    expected: Counter[str] = Counter()
    for dice in enumerate_dice(3, 3, 3, 3):
        shifts = sum(d - 2 for d in dice) + skill + 2 * invoke - difficulty
        expected["style" if shifts >= 3 else "success" if shifts > 0 else "tie" if shifts == 0 else "failure"] += 1
    got = odds(ladder, "overcome", {"skill": skill, "difficulty": difficulty, "invoke": invoke})
    assert got.exact
    assert {k: v for k, v in got.outcomes.items() if v} == {k: Fraction(n, 81) for k, n in expected.items()}


def test_a_parameter_default_and_bound_may_be_formulas_of_constants(ladder, rules):
    result = run_given(ladder, "overcome", {"skill": 1}, [3, 3, 2, 2])
    assert (result.values["shifts"], result.outcome) == (1, "success")   # 2 + 1 - difficulty 2
    bad = rules("run", ladder, "overcome", "skill=1", "difficulty=-3")
    assert bad.exit_code == 1
    assert bad.stderr.strip() == "parameter 'difficulty' is -3; the least allowed is -2"


def write_sheet(tmp_path: Path, text: str = SHEET) -> Path:
    path = tmp_path / "ada.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_sheet_new_check_and_show(ladder, rules, tmp_path):
    new = tmp_path / "new.yaml"
    assert rules("sheet", "new", ladder, "-o", str(new)).exit_code == 0
    assert 'ruleset: "ladder.yaml"' in new.read_text()   # a ruleset that is not bundled is named by its path
    assert rules("sheet", "check", str(new)).exit_code == 0, rules("sheet", "check", str(new)).stderr
    shown = json.loads(rules("sheet", "show", str(new), "--json").stdout)
    assert shown["tracks"]["stress"] == {"kind": "boxes", "size": 2, "marks": [None, None], "penalty": 0, "drawn": "__"}
    assert shown["resources"]["fate_points"] == {"value": 3, "max": 3}


def test_a_rule_message_shows_values_where_it_says(ladder, rules, tmp_path):
    sheet = write_sheet(tmp_path, SHEET.replace("ruleset: ladder", f"ruleset: {Path(ladder).name}")
                        .replace("{Fight: 2, Notice: 1, Will: 1}", "{Fight: 1, Notice: 2, Will: 1}"))
    result = rules("sheet", "check", str(sheet))
    assert result.exit_code == 1
    assert result.stderr.strip() == f"{sheet}:3:28: $.traits.Notice: pyramid: Fight (1) must be at least Notice (2)"


def test_a_standing_rule_holds_in_play_and_a_budget_only_at_creation(ladder, rules, tmp_path):
    sheet = write_sheet(tmp_path, SHEET.replace("ruleset: ladder", f"ruleset: {Path(ladder).name}")
                        .replace("{Fight: 2, Notice: 1, Will: 1}", "{Fight: 3, Notice: 1, Will: 1}"))
    assert rules("sheet", "check", str(sheet)).exit_code == 0
    result = rules("sheet", "check", "--creation", str(sheet))
    assert result.stderr.strip() == f"{sheet}:3:10: $.traits.Fight: skills: 5 points spent; the budget is 4"
    sheet.write_text(sheet.read_text().replace("Notice: 1", "Notice: 4"))
    for flags in ([], ["--creation"]):
        assert "pyramid: Fight (3) must be at least Notice (4)" in rules("sheet", "check", *flags, str(sheet)).stderr


def test_check_reports_values_reading_would_cut(ladder, rules, tmp_path):
    sheet = write_sheet(tmp_path, SHEET.replace("ruleset: ladder", f"ruleset: {Path(ladder).name}")
                        .replace("fate_points: 3", "fate_points: 5").replace("[null, null]", "[hit, hit, hit]"))
    result = rules("sheet", "check", str(sheet))
    assert result.stderr.splitlines() == [
        f"{sheet}:8:11: $.state.stress: state.stress: 3 boxes marked; the track has 2",
        f"{sheet}:9:16: $.state.fate_points: state.fate_points: 5 is outside 0 to its maximum, 3",
    ]


def test_stress_fills_and_a_huge_amount_stops_at_once(ladder, rules, tmp_path):
    sheet = write_sheet(tmp_path, SHEET.replace("ruleset: ladder", f"ruleset: {Path(ladder).name}"))
    result = rules("run", ladder, "take_stress", "amount=1", "--sheet", str(sheet), "--json")
    assert json.loads(result.stdout)["outcome"] == "absorbed"
    result = rules("run", ladder, "take_stress", "amount=9000000000", "--sheet", str(sheet), "--json")
    assert json.loads(result.stdout)["outcome"] == "taken_out"
    assert "stress: [hit, hit]" in sheet.read_text()


def test_require_message_shows_values_and_writes_nothing(ladder, rules, tmp_path):
    sheet = write_sheet(tmp_path, SHEET.replace("ruleset: ladder", f"ruleset: {Path(ladder).name}").replace("fate_points: 3", "fate_points: 0"))
    before = sheet.read_bytes()
    result = rules("run", ladder, "spend_fate", "--sheet", str(sheet))
    assert result.exit_code == 1
    assert result.stderr.strip() == "no fate points left (0 of 3)"
    assert sheet.read_bytes() == before


@pytest.mark.parametrize("edit,message", [
    ("      - update: {fate_points: fate_points - 1}", "      - let: {fate_points: fate_points - 1}"),
    ("    outcomes:\n      done: a fate point spent", "    outcomes:\n      fate_points: a fate point spent"),
])
def test_a_sheet_value_cannot_be_rebound_or_shadowed(tmp_path, edit, message):
    path = tmp_path / "bad.yaml"
    path.write_text(LADDER.replace(edit, message), encoding="utf-8")
    found = [p.message for p in problems(str(path))]
    assert any("sheet value" in m for m in found), found


def test_a_called_sheet_procedure_works_on_the_callers_sheet(ladder, rules, tmp_path):
    sheet = write_sheet(tmp_path, SHEET.replace("ruleset: ladder", f"ruleset: {Path(ladder).name}"))
    result = rules("run", ladder, "scuffle", "hits=1", "--sheet", str(sheet), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["outcome"], data["values"]["stress_filled"]) == ("absorbed", 1)
    assert "stress: [hit, null]" in sheet.read_text()
    odds_result = json.loads(rules("odds", ladder, "scuffle", "hits=2", "--sheet", str(sheet), "--json").stdout)
    assert odds_result["exact"]["taken_out"] == "1/1"


def test_a_sheet_procedure_called_without_a_sheet_is_refused(ladder, rules):
    result = rules("run", ladder, "sheetless_scuffle", "hits=1")
    assert result.exit_code == 1
    assert result.stderr.strip().endswith(
        "procedure 'take_stress' works on a character sheet, and this call has none to give")


def test_sheet_new_writes_nothing_when_a_creation_rule_cannot_be_met(rules, tmp_path):
    house = tmp_path / "ladder.yaml"
    house.write_text(LADDER.replace("traits: [Fight, Notice, Will], total: 4}", "traits: [Fight, Notice, Will], total: 13}"),
                     encoding="utf-8")
    new = tmp_path / "new.yaml"
    result = rules("sheet", "new", str(house), "-o", str(new))
    assert result.exit_code == 1
    assert result.stderr.strip() == ("a new ladder sheet cannot meet creation rule 'skills': 3 traits within their "
                                     "ranges cannot spend 13 points on Fight, Notice, Will (they reach 12); "
                                     "change the constants it uses")
    assert not new.exists()
