"""Traps a newcomer met writing a first ruleset, each refused with one located line naming the remedy:
a ruleset id starting with a digit, a formula YAML split at a comma in a {...} mapping, and a best_of
whose runs cannot be told apart."""

from __future__ import annotations

import re

import pytest

HEAD = """\
ruleset: {id}
title: Traps
procedures:
  check:
    params: {{f: {{type: int, default: 1}}, t: {{type: int, default: 2}}}}
    samples: [{{f: 1}}]
    outcomes: {{ok: fine, bad: not fine}}
    values: {{focus: the smaller}}
    steps:
"""


def write(tmp_path, steps: str, ruleset_id: str = "traps"):
    path = tmp_path / "traps.yaml"
    path.write_text(HEAD.format(id=ruleset_id) + steps)
    return path


def located(path, text: str, needle: str, at: str | None = None) -> str:
    """`FILE:LINE:COL` of the first line of the file holding `needle`, at `at` in it (else at the needle)."""
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return f"{path}:{number}:{line.index(at or needle, line.index(needle)) + 1}"
    raise AssertionError(needle)


def test_a_ruleset_id_starting_with_a_digit_is_refused_with_the_reason(rules, tmp_path):
    path = write(tmp_path, "      - let: {focus: f}\n      - decide: [{outcome: ok}]\n", ruleset_id="2d20")
    result = rules("validate", str(path))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        (f"{located(path, path.read_text(), '2d20')}: $.ruleset: '2d20' is not a valid ruleset id: use lowercase letters, "
        "digits, _ and -, starting with a letter (on the command line a word starting with a digit may be dice, "
        "such as 2d20)")]


def test_the_id_rule_in_the_docs_is_the_rule_of_the_schema():
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "docs" / "format.md").read_text()
    assert "lowercase letters, digits, _ and -, starting with a letter" in doc


@pytest.mark.parametrize(("written", "quoted"), [
    ("- let: {focus: min(f, t)}", 'focus: "min(f, t)"'),
    ("- let: {focus: clamp(f, 1, t), other: 2}", 'focus: "clamp(f, 1, t)"'),
    ("- let: {focus: max(min(f, t), 1)}", 'focus: "max(min(f, t), 1)"'),
])
def test_a_formula_split_at_a_comma_is_said_so_with_the_formula_quoted(rules, tmp_path, written, quoted):
    path = write(tmp_path, f"      {written}\n      - decide: [{{outcome: ok}}]\n")
    result = rules("validate", str(path))
    name = quoted.split(":")[0]
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        (f"{located(path, path.read_text(), 'let: {', name)}: $.procedures.check.steps[0].let.{name}: the formula of "
        f"'{name}' was split at a comma: in a mapping written {{...}} YAML ends a value at each comma; "
        f"quote the formula: {quoted}")]


def test_a_split_condition_of_decide_is_found_too(rules, tmp_path):
    path = write(tmp_path, "      - let: {focus: f}\n      - decide:\n          - {when: max(f, t) >= 3, outcome: ok}\n"
                           "          - {outcome: bad}\n")
    result = rules("validate", str(path))
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0].endswith('quote the formula: when: "max(f, t) >= 3"')


def test_the_quoted_formula_the_message_gives_is_valid(rules, tmp_path):
    path = write(tmp_path, '      - let: {focus: "min(f, t)"}\n      - decide: [{outcome: ok}]\n')
    assert rules("validate", str(path)).exit_code == 0
    assert re.search(r"focus\s+= 1|focus = 1", rules("odds", str(path), "check", "t=5").output)


def test_a_best_of_whose_steps_set_no_outcome_is_warned_about(rules, tmp_path):
    """Valid (the first run is kept, the others' dice rolled), and warned about where it is written."""
    steps = ("      - best_of: 2\n        steps:\n          - roll: {focus: 1d6}\n"
             "      - decide: [{when: focus >= 4, outcome: ok}, {outcome: bad}]\n")
    path = write(tmp_path, steps)
    result = rules("validate", str(path))
    assert result.exit_code == 0
    assert f"warning: {located(path, path.read_text(), 'best_of')}: $.procedures.check.steps[0]: best_of keeps the run with the best " \
        "outcome, and its steps set none: every run ties and the first is kept; give a tiebreak (tiebreak: total " \
        "keeps the run with the largest total), or decide an outcome in its steps" in result.stderr
    got = rules("run", str(path), "check", "--dice", "2,6")
    assert got.exit_code == 0 and "focus = 2" in got.output


def test_a_best_of_with_a_tiebreak_keeps_the_larger_total(rules, tmp_path):
    import json
    from fractions import Fraction

    steps = ("      - best_of: 2\n        tiebreak: focus\n        steps:\n          - roll: {focus: 1d6}\n"
             "      - decide: [{when: focus >= 4, outcome: ok}, {outcome: bad}]\n")
    path = write(tmp_path, steps)
    got = json.loads(rules("odds", str(path), "check", "--json").output)
    higher = sum(Fraction(1, 36) for a in range(1, 7) for b in range(1, 7) if max(a, b) >= 4)
    assert Fraction(got["exact"]["ok"]) == higher
