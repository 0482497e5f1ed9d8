"""Linked numbers: bounds and defaults written as formulas of constants, and the bundled rulesets'
named constants, each changing every place that depends on it.

Every expected probability is counted here by enumerating the dice, never read back from the YAML.
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest
from helpers import enumerate_dice, odds, one_line_error, ruleset, with_constants


def write(tmp_path: Path, text: str, name: str = "mini.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


MINI = """\
ruleset: mini
title: Mini
constants:
  low: 2
  high: low + 8
traits:
  A: {min: low, max: high, default: "(low + high) // 2"}
procedures:
  check:
    params:
      stat: {type: int, min: low, max: high, default: high}
    outcomes: {done: done}
    steps:
      - decide: [{outcome: done}]
sheet:
  state:
    fate: {type: int, default: low, min: low - 2, max: high * 2}
"""


# ----------------------------------------------------------------------------- formula bounds
def test_trait_state_and_parameter_bounds_are_formulas_of_constants(tmp_path):
    rs = ruleset(write(tmp_path, MINI))
    trait = rs.traits["A"]
    assert (trait.minimum, trait.maximum, trait.default) == (2, 10, 6)
    state = rs.sheet.state["fate"]
    assert (state.minimum, state.maximum) == (0, 20)
    param = rs.procedures["check"].params[0]
    assert (param.minimum, param.maximum, param.default) == (2, 10, 10)


def test_a_trait_bound_with_an_unknown_name_is_located(rules, tmp_path):
    path = write(tmp_path, MINI.replace("A: {min: low, max: high", "A: {min: low, max: hihg"))
    line = one_line_error(rules("validate", str(path)))
    assert line.startswith(f"{path}:7:"), line
    assert "$.traits.A.max" in line and "hihg" in line and "high" in line


def test_a_state_bound_that_is_not_a_whole_number_is_located(rules, tmp_path):
    path = write(tmp_path, MINI.replace("max: high * 2}", "max: high > 2}"))
    line = one_line_error(rules("validate", str(path)))
    assert line.startswith(f"{path}:17:"), line
    assert "$.sheet.state.fate.max" in line and "not a whole number" in line


def test_a_bound_that_fails_to_evaluate_is_located(rules, tmp_path):
    path = write(tmp_path, MINI.replace('default: "(low + high) // 2"', 'default: "high // (low - 2)"'))
    line = one_line_error(rules("validate", str(path)))
    assert line.startswith(f"{path}:7:"), line
    assert "$.traits.A.default" in line


# ----------------------------------------------------------------------------- rollunder stat_cap
def sheet_with(rules, tmp_path: Path, ref: str, **traits: int) -> Path:
    sheet = tmp_path / "hero.yaml"
    result = rules("sheet", "new", ref, "-o", str(sheet))
    assert result.exit_code == 0, result.stderr
    text = sheet.read_text(encoding="utf-8")
    for name, value in traits.items():
        text, n = re.subn(rf"^(  {name}: )\d+", rf"\g<1>{value}", text, flags=re.MULTILINE)
        assert n == 1
    sheet.write_text(text, encoding="utf-8")
    return sheet


def test_R11_bundled_stat_cap_refuses_a_sheet_at_19(rules, tmp_path):
    sheet = sheet_with(rules, tmp_path, "rollunder", STR=19)
    assert "above the most, 18" in one_line_error(rules("sheet", "check", str(sheet)))


def test_R11_stat_cap_20_lets_a_sheet_at_19_pass_and_18_improve(rules, tmp_path):
    house = with_constants(tmp_path, "rollunder", stat_cap=20)
    sheet = sheet_with(rules, tmp_path, str(house), STR=19)
    result = rules("sheet", "check", str(sheet))
    assert result.exit_code == 0, result.stderr
    # improved: both d20 at or under the stat, and the cap leaves room for +1
    both_under = Fraction(sum(1 for a, b in enumerate_dice(20, 20) if a <= 18 and b <= 18), 400)
    assert both_under == Fraction(81, 100)
    assert odds(house, "advance_stat", {"stat": 18}).outcomes["improved"] == both_under
    assert odds("rollunder", "advance_stat", {"stat": 18}).outcomes.get("improved", 0) == 0
    assert ruleset(house).traits["CUN"].maximum == 20


# ----------------------------------------------------------------------------- lockwood
def test_L5_stat_range_and_budget_are_the_constants(tmp_path):
    rs = ruleset(with_constants(tmp_path, "lockwood", stat_min=3, stat_max=18, stat_budget=110))
    assert {(t.minimum, t.maximum) for t in rs.traits.values()} == {(3, 18)}
    budget = next(rule for rule in rs.sheet.creation if rule.kind == "budget")
    assert budget.spec["total"].evaluate(dict(rs.constants), {}) == 110


@pytest.mark.parametrize("procedure,params,outcome", [
    ("check", {"stat": 0, "dc": 100}, "critical_success"),
    ("friendly_fire", {"perception": 0, "in_the_way": 40}, "success"),
    ("move", {"agility": -100}, "success"),
])
def test_L3_critwin_19_makes_19_and_20_succeed_everywhere(tmp_path, procedure, params, outcome):
    house = with_constants(tmp_path, "lockwood", critwin=19)
    wins = Fraction(sum(1 for (d,) in enumerate_dice(20) if d >= 19), 20)
    assert odds(house, procedure, params).outcomes[outcome] == wins
    assert odds("lockwood", procedure, params).outcomes[outcome] == Fraction(1, 20)


# ----------------------------------------------------------------------------- nwod and wwn
def test_N3_default_again_is_the_default_of_every_again(tmp_path):
    house = with_constants(tmp_path, "nwod", default_again=9)
    defaults = {(proc.name, p.name): p.default for proc in ruleset(house).procedures.values()
                for p in proc.params if p.name.endswith("again")}
    assert defaults and set(defaults.values()) == {9}
    bundled = {(proc.name, p.name): p.default for proc in ruleset("nwod").procedures.values()
               for p in proc.params if p.name.endswith("again")}
    assert bundled.keys() == defaults.keys() and set(bundled.values()) == {10}
    assert odds(house, "action", {"pool": 5}).outcomes == odds("nwod", "action", {"pool": 5, "again": 9}).outcomes


def test_W20_critwin_19_hits_on_a_natural_19(tmp_path):
    house = with_constants(tmp_path, "wwn", critwin=19)
    params = {"bonus": 0, "ac": 40, "damage": "1d6"}
    assert odds(house, "attack", params).outcomes["hit"] == Fraction(2, 20)
    assert odds("wwn", "attack", params).outcomes["hit"] == Fraction(1, 20)


def test_W4_circumstance_range_is_one_constant(rules, tmp_path):
    house = with_constants(tmp_path, "wwn", circumstance_max=3)
    for procedure, args in (("skill_check", ["skill=1", "attribute=10", "difficulty=8"]),
                            ("stabilize", ["skill=1", "attribute=10", "rounds=1"])):
        assert "the most allowed is 2" in one_line_error(rules("odds", "wwn", procedure, *args, "mod=3"))
        assert rules("odds", str(house), procedure, *args, "mod=3").exit_code == 0
        assert rules("odds", str(house), procedure, *args, "mod=-3").exit_code == 0
