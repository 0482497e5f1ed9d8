"""Files and exit codes that tell the truth: a command that changed a file and then could not write its output
exits 4 (not 1, "bad input, nothing changed") and says what it changed; `--plot` replaces no file without
`--force`; an exported overlay's comments stay comments whatever the base's texts hold."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from helpers import RULES, checkout_env
from ruamel.yaml import YAML

CHANGED_BUT_FAILED = 4


def _closed_pipe_run(args: list[str], cwd: os.PathLike[str]) -> tuple[int, str]:
    """Run `rules ARGS` with stdout a pipe whose reading end is closed before it starts (as `| true` may be)."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([*RULES, *args], stdout=write, stderr=subprocess.PIPE, cwd=cwd, env=checkout_env(),
                              timeout=120, check=False)
    finally:
        os.close(write)
    return done.returncode, done.stderr.decode("utf-8")


def test_a_sheet_changed_before_the_output_failed_exits_4_and_says_so(tmp_path, rules, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert rules("sheet", "new", "rollunder", "-o", "s.yaml").exit_code == 0
    before = (tmp_path / "s.yaml").read_text(encoding="utf-8")
    code, err = _closed_pipe_run(["run", "rollunder", "take_damage", "amount=1", "--sheet", "s.yaml"], tmp_path)
    after = (tmp_path / "s.yaml").read_text(encoding="utf-8")
    assert after != before and "hp: {current: 5, max: 6}" in after and "hp: {current: 6, max: 6}" in before
    assert code == CHANGED_BUT_FAILED, err
    assert "cannot write the output" in err and "the change was made all the same" in err and "s.yaml" in err
    assert "Traceback" not in err


def test_a_command_that_changed_nothing_still_exits_1_on_a_closed_pipe(tmp_path, rules, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert rules("sheet", "new", "rollunder", "-o", "s.yaml").exit_code == 0
    before = (tmp_path / "s.yaml").read_bytes()
    for args in (["run", "rollunder", "take_damage", "amount=1", "--sheet", "s.yaml", "--dry-run"],
                 ["run", "rollunder", "check", "--seed", "1"],
                 ["run", "rollunder", "no_such_procedure"]):
        code, err = _closed_pipe_run(args, tmp_path)
        assert code == 1, (args, err)
        assert "the change was made" not in err
    assert (tmp_path / "s.yaml").read_bytes() == before


def test_a_new_sheet_whose_report_is_lost_exits_4(tmp_path):
    code, err = _closed_pipe_run(["sheet", "new", "rollunder", "-o", "new.yaml"], tmp_path)
    assert (tmp_path / "new.yaml").exists()
    assert code == CHANGED_BUT_FAILED and "new.yaml written" in err


def test_the_exit_codes_are_documented():
    from helpers import CHECKOUT

    for doc in ("README.md", "docs/json.md"):
        text = (CHECKOUT / doc).read_text(encoding="utf-8")
        assert "4 a file was changed" in text, doc


# ----------------------------------------------------------------- exported overlays


@pytest.mark.parametrize("breaker", ["\n", "\r", "\u2028", "\x85", "\r\n"])
def test_a_newline_in_a_base_title_stays_inside_the_comment(rules, tmp_path, monkeypatch, breaker):
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    monkeypatch.setenv("RULESMITH_PATH", str(shelf))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    from interpreter import pipeline
    from interpreter.load import find

    find._DECLARED.clear()
    pipeline.forget_compiled()
    title = f"Shared{breaker}constants: {{x: 1}}{breaker}x"
    base = {"ruleset": "shared", "title": title, "constants": {"y": 2},
            "procedures": {"check": {"outcomes": {"done": "rolled"}, "steps": [{"decide": [{"outcome": "done"}]}]}}}
    (shelf / "shared.yaml").write_text(json.dumps(base), encoding="utf-8")  # (JSON is YAML)
    out = tmp_path / "mine.yaml"
    result = rules("export", "shared", "--overlay", "mine", "-o", str(out))
    assert result.exit_code == 0, result.stderr
    text = out.read_text(encoding="utf-8")
    assert dict(YAML(typ="safe").load(text)) == {"extends": "shared", "ruleset": "mine"}
    live = [line for line in text.splitlines() if line and not line.startswith("#")]  # (splits at every breaker)
    assert live == ["extends: shared", "ruleset: mine"]
    pipeline.forget_compiled()
    assert rules("validate", str(out)).exit_code == 0


# ----------------------------------------------------------------- charts


PAGE = "<!DOCTYPE html><title>My own page</title><p>the table's notes</p>\n"


@pytest.mark.parametrize("command", [["odds", "nwod", "action", "pool=3"], ["odds", "3d6"],
                                     ["diff", "nwod", "nwod", "action", "pool=3"]])
def test_plot_refuses_a_file_that_exists_unless_forced(rules, tmp_path, monkeypatch, command):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    page = tmp_path / "page.html"
    page.write_text(PAGE, encoding="utf-8")
    result = rules(*command, "--plot", "page.html")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == ("--plot: 'page.html' already exists; nothing was written; give --force to replace it, "
                             "or choose another name\n")
    assert page.read_text(encoding="utf-8") == PAGE and sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]
    result = rules(*command, "--plot", "page.html", "--force")
    assert result.exit_code == 0, result.stderr
    assert "chart written to page.html" in result.stdout
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>") and "My own page" not in page.read_text(
        encoding="utf-8")


def test_plot_refuses_a_link_even_a_broken_one_and_writes_a_new_file(rules, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chart.svg").symlink_to(tmp_path / "nowhere.svg")
    result = rules("odds", "nwod", "action", "pool=3", "--plot", "chart.svg")
    assert result.exit_code == 1 and "already exists" in result.stderr
    assert (tmp_path / "chart.svg").is_symlink() and not (tmp_path / "nowhere.svg").exists()
    result = rules("odds", "nwod", "action", "pool=3", "--plot", "new.svg")
    assert result.exit_code == 0 and (tmp_path / "new.svg").read_bytes().startswith(b"<?xml")
