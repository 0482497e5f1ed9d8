"""What a file holds never redraws the user's terminal or breaks a line: output escapes control characters,
and a shell-completion request no shell makes is one line, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAUNCH = "import sys; sys.argv[0] = 'rules'; from interpreter.cli import console; console()"


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The checkout's own command line in a process of its own (completion reads the process's environment)."""
    full = dict(os.environ, PYTHONPATH=str(ROOT), **env)
    return subprocess.run([sys.executable, "-c", LAUNCH, *args], capture_output=True, text=True, env=full,
                          cwd=cwd, timeout=60, check=False)


@pytest.mark.parametrize("env, missing", [
    ({"_RULES_COMPLETE": "bash_complete", "COMP_CWORD": "abc"}, "'COMP_WORDS' is not set"),
    ({"_RULES_COMPLETE": "bash_complete", "COMP_WORDS": "rules ru", "COMP_CWORD": "abc"}, "invalid literal"),
    ({"_RULES_COMPLETE": "zsh_complete", "COMP_WORDS": "rules ru"}, "'COMP_CWORD' is not set"),
])
def test_a_completion_request_no_shell_makes_is_one_line(tmp_path, env, missing):
    done = run([], env, tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert lines[0].startswith("rules: shell completion: the request is not one a shell makes (") and missing in lines[0]


def test_a_completion_request_a_shell_makes_still_completes(tmp_path):
    done = run([], {"_RULES_COMPLETE": "bash_complete", "COMP_WORDS": "rules run nw", "COMP_CWORD": "2"}, tmp_path)
    assert done.returncode == 0 and done.stdout.splitlines() == ["plain,nwod"]


def test_sheet_show_escapes_what_a_name_holds(rules, tmp_path):
    """`sheet show` once printed a carriage return, a newline and U+2028 from a sheet's name as they were."""
    sheet = tmp_path / "ada.yaml"
    assert rules("sheet", "new", "lockwood", "-o", str(sheet), "--name", "Ada\r\nEvil\u2028Line\x1b[2J").exit_code == 0
    shown = rules("sheet", "show", str(sheet))
    assert shown.exit_code == 0, shown.stderr
    first = shown.stdout.splitlines()[0]
    assert first == "Ada\\r\\nEvil\\u2028Line\\x1b[2J (Lockwood)"
    assert "\x1b" not in shown.stdout and "\r" not in shown.stdout and "\u2028" not in shown.stdout
    assert rules("sheet", "show", str(sheet), "--json").stdout.count("\n") == 1  # JSON escapes them its own way


def test_a_ruleset_title_cannot_redraw_the_terminal(rules, tmp_path, monkeypatch):
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    monkeypatch.setenv("RULESMITH_PATH", str(shelf))
    from interpreter.load import find

    find._DECLARED.clear()
    (shelf / "evil.yaml").write_text('ruleset: evil\ntitle: "Evil\\x1b[2J\\rTitle"\ndescription: "one\\ntwo"\n'
                                     "procedures:\n  p:\n    outcomes: {done: done}\n"
                                     "    steps:\n      - decide: [{outcome: done}]\n", encoding="utf-8")
    listed = rules("list").stdout
    assert "evil         Evil\\x1b[2J\\rTitle — one (" in listed and "\x1b" not in listed
    described = rules("describe", "evil").stdout
    assert "\x1b" not in described and "\\x1b" in described
