"""YAML mistakes made by hand, told in plain words at the line to change: a tab, a dedented `decide` branch, an
over-indented `with:`, and a constant dedented out of `constants`."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import one_line_error

RULESET = """\
ruleset: demo
title: Demo
constants:
  dc: 10
procedures:
  check:
    summary: a check against the DC
    params:
      stat: {type: int}
    outcomes: {success: made it, failure: did not}
    values: {total: the roll and the stat}
    steps:
      - roll: {natural: 1d20}
      - let: {total: natural + stat}
      - decide:
          - {when: total >= dc, outcome: success}
          - {outcome: failure}
  twice:
    summary: the check, called
    params:
      stat: {type: int}
    outcomes: {success: made it, failure: did not}
    steps:
      - call: check
        with: {stat: stat}
        inherit_outcome: true
"""


def _validate(rules, tmp_path: Path, old: str, new: str) -> str:
    assert RULESET.count(old) == 1, old
    path = tmp_path / "demo.yaml"
    path.write_text(RULESET.replace(old, new), encoding="utf-8")
    return one_line_error(rules("validate", str(path))).removeprefix(f"{path}:")


def test_the_ruleset_itself_is_valid(rules, tmp_path):
    path = tmp_path / "demo.yaml"
    path.write_text(RULESET, encoding="utf-8")
    assert rules("validate", str(path)).exit_code == 0


@pytest.mark.parametrize(("old", "new", "message"), [
    ("      - let: {total: natural + stat}", "\t  - let: {total: natural + stat}",
     ("14:1: $.procedures.check.steps[0]: a tab indents this line; YAML indents with spaces only: put spaces in its "
     "place")),
    ("      - let: {total:", "      -\tlet: {total:",
     ("14:8: $.procedures.check.steps: a tab indents this line; YAML indents with spaces only: put spaces in its "
     "place")),
    ("          - {outcome: failure}", "        - {outcome: failure}",
     ("17:9: $.procedures.check.steps[2]: this list item is indented less than the item above it at line 16; indent "
     "it like that one to add it to the same list")),
    ("        with: {stat: stat}", "          with: {stat: stat}",
     ("25:11: $.procedures.twice.steps[0]: this key is indented more than its siblings at line 24; indent it like "
     "them")),
], ids=["tab at the start", "tab after the dash", "dedented decide branch", "over-indented with"])
def test_a_layout_mistake_is_told_in_plain_words_at_its_line(rules, tmp_path, old, new, message):
    assert _validate(rules, tmp_path, old, new) == message


def test_a_constant_dedented_to_the_top_level_says_it_belongs_under_constants(rules, tmp_path):
    path = tmp_path / "demo.yaml"
    path.write_text(RULESET.replace("  dc: 10", "  other: 3\ndc: 10"), encoding="utf-8")
    got = rules("validate", str(path))
    assert got.exit_code == 1
    assert got.stderr == (f"{path}:5:1: $.dc: unknown key 'dc'; it comes right after the 'constants' section (line 3): "
                          "indent it to make it one of 'constants'\n")  # and the formula reading dc says nothing more


def test_a_near_miss_of_a_top_level_key_keeps_its_did_you_mean(rules, tmp_path):
    path = tmp_path / "demo.yaml"
    path.write_text(RULESET + "procedure:\n  spare: {}\n", encoding="utf-8")
    got = one_line_error(rules("validate", str(path)))
    assert got == f"{path}:27:1: $.procedure: unknown key 'procedure'; did you mean 'procedures'?"
