"""`rules validate` as a game master uses it: every ruleset folder checked, and a warning for a house rule that
changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interpreter.load.bundled import bundled_ids


@pytest.fixture
def folders(tmp_path, monkeypatch):
    """A ruleset folder of this test's own (RULESMITH_PATH), no config folder, and a working folder."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    mine = tmp_path / "mine"
    mine.mkdir()
    monkeypatch.setenv("RULESMITH_PATH", str(mine))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return mine


def test_W7_a_misspelt_constant_in_an_overlay_is_a_warning_naming_the_constant_meant(rules, folders):
    """W7 (wwn's critwin, the natural that always hits): `critwn: 18` would change nothing."""
    house = folders.parent / "work" / "house.yaml"
    house.write_text("extends: wwn\nruleset: wwn-house\nconstants:\n  critwn: 18\n", encoding="utf-8")
    got = rules("validate", "house.yaml")
    assert got.exit_code == 0
    assert got.stdout == "house.yaml: valid\n"
    assert got.stderr == ("warning: house.yaml:4:3: $.constants.critwn: constant 'critwn' is not one of wwn's and "
                          "nothing reads it, so it changes nothing; did you mean 'critwin'?\n")
    shown = json.loads(rules("validate", "house.yaml", "--json").stdout)
    assert shown["valid"] and len(shown["rulesets"][0]["warnings"]) == 1


def test_a_new_constant_that_the_overlay_reads_is_no_warning(rules, folders):
    house = folders.parent / "work" / "house.yaml"
    house.write_text("extends: wwn\nruleset: wwn-house\nconstants:\n  critwin: 19\n  harsh: 2\nprocedures:\n"
                     "  save:\n    params:\n      mod: {default: harsh}\n", encoding="utf-8")
    got = rules("validate", "house.yaml")
    assert (got.exit_code, got.stderr) == (0, "")


def test_validate_without_names_checks_the_ruleset_folders_too(rules, folders):
    (folders / "nine.yaml").write_text("extends: nwod\nruleset: nwod-9again\nconstants:\n  default_again: 9\n",
                                       encoding="utf-8")
    got = rules("validate")
    assert got.exit_code == 0
    assert got.stdout.splitlines() == [*(f"{i} (bundled): valid" for i in bundled_ids()),
                                       f"{folders / 'nine.yaml'}: valid"]
    (folders / "typo.yaml").write_text("extends: nwod\nruleset: nwod-typo\nprocedures:\n  action:\n    stpes: []\n",
                                       encoding="utf-8")
    got = rules("validate")
    assert got.exit_code == 1
    assert got.stderr.startswith(f"{folders / 'typo.yaml'}:5:5: $.procedures.action.stpes: unknown key 'stpes'")
    assert f"{folders / 'nine.yaml'}: valid" in got.stdout.splitlines()


def test_a_schema_problem_does_not_hide_a_formula_problem(rules, tmp_path: Path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("ruleset: demo\ntitle: Demo\nprocedures:\n  check:\n    params:\n      mod: {type: int}\n"
                      "    outcomes: {done: d}\n    steps:\n      - let: {x: modd}\n      - decide: [{outcome: done}]\n"
                      "    stpes: []\n", encoding="utf-8")
    lines = rules("validate", str(broken)).stderr.splitlines()
    assert lines == [f"{broken}:9:18: $.procedures.check.steps[0].let.x: unknown name 'modd'; did you mean 'mod'?",
                     f"{broken}:11:5: $.procedures.check.stpes: unknown key 'stpes'; did you mean 'steps'?"]


def test_past_the_reported_problems_one_line_counts_the_rest(rules, tmp_path, monkeypatch):
    from interpreter import limits

    monkeypatch.setattr(limits, "MAX_REPORTED_PROBLEMS", 2)
    path = tmp_path / "keys.yaml"
    path.write_text("ruleset: keys\ntitle: K\nprocedures: {}\n" + "".join(f"k{i}: 1\n" for i in range(5)))
    done = rules("validate", str(path))
    lines = done.stderr.splitlines()
    assert done.exit_code == 1 and len(lines) == 3
    assert lines[0].startswith(f"{path}:4:1: $.k0: unknown key 'k0'")
    assert lines[2].startswith(f"{path}:6:1: $.k2: ... and 3 more problems, not shown")
    listed = json.loads(rules("validate", str(path), "--json").stdout)["rulesets"][0]["problems"]
    assert len(listed) == 3 and listed[2]["message"].startswith("... and 3 more problems")
