"""A located error on a terminal: its one line, then the source line with a caret under the column.
Piped output and --json keep the single line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from interpreter.cli.caret import caret_lines
from interpreter.errors import Location

pty = pytest.importorskip("pty")

ROOT = Path(__file__).resolve().parent.parent
BROKEN = ("ruleset: demo\ntitle: Demo\nprocedures:\n  check:\n    outcomes: {done: rolled}\n"
          "    steps:\n      - let: {x: dex + 2}\n      - decide: [{outcome: done}]\n")
ERROR = "$.procedures.check.steps[0].let.x: unknown name 'dex'"


def rules_with_stderr_on(terminal: bool, *args: str, cwd: Path) -> tuple[int, str, str]:
    """Run `python cli.py ARGS` with stderr on a pseudo-terminal or a pipe; (exit code, stdout, stderr)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, str(ROOT / "cli.py"), *args]
    if not terminal:
        done = subprocess.run(command, check=False, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
        return done.returncode, done.stdout, done.stderr
    main, secondary = pty.openpty()
    with subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=secondary) as process:
        os.close(secondary)
        chunks = []
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            chunks.append(chunk)
        out = process.stdout.read().decode() if process.stdout else ""
        code = process.wait(timeout=120)
    os.close(main)
    return code, out, b"".join(chunks).decode().replace("\r\n", "\n")


@pytest.fixture
def broken(tmp_path):
    (tmp_path / "broken.yaml").write_text(BROKEN, encoding="utf-8")
    return tmp_path


def test_a_terminal_gets_the_source_line_and_a_caret_under_the_column(broken):
    code, out, err = rules_with_stderr_on(True, "validate", "broken.yaml", cwd=broken)
    assert code == 1 and out == ""
    first, source, caret = err.splitlines()
    assert first == f"broken.yaml:7:18: {ERROR}"
    assert source == "  7 |       - let: {x: dex + 2}"
    assert caret.startswith("    | ") and caret.strip(" |") == "^"
    assert caret.index("^") == source.index("dex")


def test_a_failing_command_shows_the_caret_too_but_not_with_json(broken):
    code, _, err = rules_with_stderr_on(True, "run", "broken.yaml", "check", cwd=broken)
    assert code == 1
    source, caret = err.splitlines()[1:]
    assert source == "  7 |       - let: {x: dex + 2}"
    assert caret.index("^") == source.index("dex")
    code, out, err = rules_with_stderr_on(True, "run", "broken.yaml", "check", "--json", cwd=broken)
    assert code == 1 and err == ""  # with --json the error is one JSON object on stdout, no caret
    assert json.loads(out)["error"] == {"message": ERROR.split(": ", 1)[1], "file": "broken.yaml", "line": 7,
                                        "column": 18, "path": ERROR.split(": ", 1)[0]}


def test_piped_output_keeps_the_single_line(broken):
    code, out, err = rules_with_stderr_on(False, "validate", "broken.yaml", cwd=broken)
    assert code == 1 and out == ""
    assert err.splitlines() == [f"broken.yaml:7:18: {ERROR}"]


def test_a_long_line_is_cut_around_the_column_and_an_unknown_file_gets_no_caret(tmp_path):
    path = tmp_path / "long.yaml"
    path.write_text("x: " + "a" * 500 + "BAD" + "b" * 500 + "\n", encoding="utf-8")
    source, caret = caret_lines(Location(str(path), 1, 504, "$.x"))
    assert source[caret.index("^"):].startswith("BAD")
    assert len(source) < 300
    assert caret_lines(Location("nowhere.yaml", 1, 1, "$")) == []
    assert caret_lines(Location(str(path), 0, 0, "$")) == []
