"""Habits of the command line: LANG=C honoured, --times folds what never varies, `rules list` in columns,
suggestions for a mistyped command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent


@pytest.mark.parametrize(("env", "blocks"), [
    ({"LC_ALL": "C"}, False), ({"LANG": "C"}, False), ({"LANG": "POSIX"}, False), ({}, False),
    ({"LANG": "C.UTF-8"}, True), ({"LC_ALL": "en_US.UTF-8"}, True), ({"LANG": "C", "LC_ALL": "C.UTF-8"}, True),
])
def test_bars_are_hashes_in_the_c_locale(rules, monkeypatch, env, blocks):
    for var in ("LC_ALL", "LC_CTYPE", "LANG"):
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    shown = rules("odds", "1d4").stdout
    assert ("█" in shown, "#" * 30 in shown) == (blocks, not blocks)


def test_lang_c_through_a_pipe_as_the_readme_says(tmp_path):
    """`LANG=C rules odds 1d4 | cat`: Python reads the C locale as UTF-8, and the bars are still '#'."""
    rules = BIN / "rules"
    if not rules.exists():
        pytest.skip("the rules command is not installed")
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_CTYPE", "LANG")}
    env["LANG"] = "C"
    shown = subprocess.run([str(rules), "odds", "1d4"], capture_output=True, text=True, env=env, check=True).stdout
    assert shown.splitlines()[1] == "  1..4   25.000% each  ##############################  1/4"
    counted = subprocess.run([str(rules), "run", "nwod", "action", "pool=5", "--times", "100", "--seed", "1"],
                             capture_output=True, text=True, env=env, check=True).stdout
    assert "#" in counted and counted.isascii()


def test_N1_times_folds_the_values_that_never_vary(rules):
    """N1/N2: an nwod action of 5 dice; without a sheet no Willpower is spent and no wound penalty applies."""
    shown = rules("run", "nwod", "action", "pool=5", "--times", "200", "--seed", "3").stdout.splitlines()
    assert shown[-1] == "always: chance = false, willpower_dice = 0, wound_penalty = 0"
    assert [line for line in shown if line.startswith(("willpower_dice", "wound_penalty", "chance"))] == []
    assert any(line.startswith("successes: mean ") for line in shown)


def test_rules_list_keeps_one_column_past_twelve_characters(rules, tmp_path, monkeypatch):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "long.yaml").write_text("extends: nwod\nruleset: nwod-nine-again-table\n", encoding="utf-8")
    monkeypatch.setenv("RULESMITH_PATH", str(mine))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    lines = rules("list").stdout.splitlines()
    assert lines[-1].startswith("nwod-nine-again-table ")
    titles = {len(line) - len(line[line.index(" "):].lstrip()) for line in lines}  # where each title begins
    assert titles == {len("nwod-nine-again-table ")}, lines


@pytest.mark.parametrize(("args", "line"), [
    (["rol"], "rules: No such command 'rol'. Did you mean 'roll'?; see 'rules -h'"),
    (["sheet", "shwo"], "rules sheet: No such command 'shwo'. Did you mean 'show'?; see 'rules sheet -h'"),
    (["run", "lockwood", "check", "--jsno"], "rules run: No such option '--jsno'. Did you mean '--json'?; see 'rules run -h'"),
])
def test_a_mistyped_command_or_option_suggests_the_one_meant(args, line):
    """In a process of its own: a command not loaded yet (they load when first used) is suggested too."""
    rules = BIN / "rules"
    if not rules.exists():
        pytest.skip("the rules command is not installed")
    got = subprocess.run([str(rules), *args], capture_output=True, text=True, check=False)
    assert (got.returncode, got.stderr) == (2, line + "\n")


@pytest.mark.parametrize(("args", "line"), [
    (["rol"], "rules: No such command 'rol'. Did you mean 'roll'?; see 'rules -h'"),
    (["dif", "a", "b"], "rules: No such command 'dif'. Did you mean 'diff'?; see 'rules -h'"),
])
def test_a_mistyped_command_suggests_the_one_meant_in_process_too(rules, args, line):
    got = rules(*args)
    assert (got.exit_code, got.stderr) == (2, line + "\n")
