"""The mutation script's changes: what it mutates, what it leaves alone (tools/mutate_rulesets.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parent.parent / "tools"
sys.path.insert(0, str(TOOLS))

from mutate_rulesets import mutants  # a script beside the package, not a module of it

TEXT = """\
ruleset: tiny
title: Tiny
constants:
  dc: 10            # a comment with 3 numbers 4
tables:
  t:
    die: 1d6
    summary: rows 1 to 6
    rows:
      - {on: [1, 2], outcome: low, text: 1 or 2}
      - {on: [3, 6], outcome: high, text: 3 to 6}
procedures:
  p:
    summary: a roll of 1d20 + 5
    outcomes:
      ok: at least 10
      no: less than 10
    steps:
      - roll: {x: 1d20 + 2}
      - decide:
          - {when: x >= dc, outcome: ok}
          - {outcome: no}
"""


def test_each_kind_of_change_once_and_no_prose():
    got = sorted((m.line, m.what) for m in mutants(TEXT))
    assert got == sorted([
        (4, "10 -> 11 in '10'"), (4, "10 -> 9 in '10'"),
        (7, "1 -> 0 in '1d6'"), (7, "1 -> 2 in '1d6'"), (7, "6 -> 5 in '1d6'"), (7, "6 -> 7 in '1d6'"),
        (10, "1 -> 0 in '1'"), (10, "1 -> 2 in '1'"), (10, "2 -> 1 in '2'"), (10, "2 -> 3 in '2'"),
        (11, "3 -> 2 in '3'"), (11, "3 -> 4 in '3'"), (11, "6 -> 5 in '6'"), (11, "6 -> 7 in '6'"),
        (10, "tables.t rows 1 and 2: outcome low <-> high"),
        (19, "1 -> 0 in '1d20 + 2'"), (19, "1 -> 2 in '1d20 + 2'"), (19, "20 -> 19 in '1d20 + 2'"),
        (19, "20 -> 21 in '1d20 + 2'"), (19, "2 -> 1 in '1d20 + 2'"), (19, "2 -> 3 in '1d20 + 2'"),
        (19, "+ -> - in '1d20 + 2'"),
        (21, ">= -> > in 'x >= dc'"),
    ])


def test_a_mutant_changes_only_its_place():
    swap = next(m for m in mutants(TEXT) if "rows 1 and 2" in m.what)
    changed = [(a, b) for a, b in zip(TEXT.splitlines(), swap.apply(TEXT).splitlines(), strict=True) if a != b]
    assert changed == [("      - {on: [1, 2], outcome: low, text: 1 or 2}", "      - {on: [1, 2], outcome: high, text: 1 or 2}"),
                       ("      - {on: [3, 6], outcome: high, text: 3 to 6}", "      - {on: [3, 6], outcome: low, text: 3 to 6}")]


def test_list_runs_nothing_and_numbers_the_mutants():
    done = subprocess.run([sys.executable, str(TOOLS / "mutate_rulesets.py"), "lockwood", "--list"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines and all(line.startswith(f"#{n} line ") for n, line in enumerate(lines, start=1))
