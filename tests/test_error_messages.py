"""Error messages a user reads: a broken definition is reported once, not again at each use."""

from __future__ import annotations

from pathlib import Path

import pytest

from interpreter.load.bundled import rulesets_dir


def line_of(path: Path, start: str) -> int:
    """The number of the first line of a file that starts with this text (the rulesets grow above it)."""
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if line.startswith(start))


def bundled_with(tmp_path: Path, ruleset_id: str, before: str, after: str) -> Path:
    text = (rulesets_dir() / f"{ruleset_id}.yaml").read_text(encoding="utf-8")
    assert text.count(before) == 1
    path = tmp_path / f"{ruleset_id}.yaml"
    path.write_text(text.replace(before, after), encoding="utf-8")
    return path


def test_a_typo_in_a_named_die_is_reported_once_not_at_each_use(rules, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = bundled_with(tmp_path, "lockwood", "  check_die: 1d20 ", "  check_die: 1d2O ")
    result = rules("validate", "lockwood.yaml")
    assert result.exit_code == 1
    # not followed by "unknown name 'check_die' ...; did you mean 'luck_die'?" for every roll of it
    line = line_of(path, "  check_die: ")
    assert result.stderr == f"lockwood.yaml:{line}:17: $.dice.check_die: unknown dice modifier 'O'\n"


def test_a_typo_in_a_constant_is_reported_once_not_at_each_use(rules, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bundled_with(tmp_path, "lockwood", "  critwin: 20 ", "  critwin: 2O ")
    result = rules("validate", "lockwood.yaml")
    assert result.exit_code == 1
    assert result.stderr == ("lockwood.yaml:10:12: $.constants.critwin: a number runs into letters "
                             "(dice such as 1d6 belong in roll steps, not formulas)\n")


CASCADE = """\
ruleset: cascade
title: Cascade
constants:
  bonus: 2 +
  base: bonus + 1
dice:
  check_die: 1d20+
derived:
  edge: base * 2
procedures:
  check:
    params:
      stat: {type: int}
    outcomes: {success: made it, failure: did not}
    steps:
      - roll: {natural: check_die}
      - let: {total: natural + stat + base + bonus + missing}
      - decide:
          - {when: total >= 15, outcome: success}
          - {outcome: failure}
"""


def test_a_name_that_failed_only_because_another_failed_is_not_reported(rules, tmp_path, monkeypatch):
    """`base` fails only because `bonus` did, and derived `edge` uses `base`: one problem for all
    three, and the name that is really missing is still found."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cascade.yaml").write_text(CASCADE, encoding="utf-8")
    result = rules("validate", "cascade.yaml")
    assert result.exit_code == 1
    missing = CASCADE.splitlines()[16].index("missing") + 1
    assert result.stderr.splitlines() == [
        "cascade.yaml:4:13: $.constants.bonus: the formula ends where a number or name was expected",
        "cascade.yaml:7:19: $.dice.check_die: the expression ends where a number, name or dice were expected",
        f"cascade.yaml:17:{missing}: $.procedures.check.steps[1].let.total: unknown name 'missing'",
    ]


# YAML layout mistakes, each in a copy of lockwood's constants:
#   9 constants:
#  10   critwin: 20
#  11   critfail: 1
LAYOUT = [
    ("  critfail: 1 ", "   critfail: 1 ",
     "lockwood.yaml:11:4: $.constants: this key is indented more than its siblings at line 10; indent it like them"),
    ("  critfail: 1 ", " critfail: 1 ",
     ("lockwood.yaml:11:2: $: this key is indented less than its siblings at line 10 and more than its parent at "
      "line 9; line it up with one of them")),
    ("  critwin: 20 ", "  critwin:20 ",
     "lockwood.yaml:10:11: $: put a space after ':' ('critwin: 20'), or YAML reads 'critwin:20' as one word"),
]


@pytest.mark.parametrize("before,after,message", LAYOUT, ids=["indented more", "indented less", "no space"])
def test_a_yaml_layout_mistake_is_told_in_plain_words_at_its_own_line(rules, tmp_path, monkeypatch, before, after,
                                                                      message):
    monkeypatch.chdir(tmp_path)
    bundled_with(tmp_path, "lockwood", before, after)
    result = rules("validate", "lockwood.yaml")
    assert (result.exit_code, result.stderr) == (1, message + "\n")


def test_a_call_of_a_misspelled_procedure_is_reported_once_not_at_each_name_it_would_bind(rules, tmp_path,
                                                                                           monkeypatch):
    """`call: pol ... as: rolled` is the mistake; `rolled_successes` and `rolled_chance` are not more of them."""
    monkeypatch.chdir(tmp_path)
    path = bundled_with(tmp_path, "nwod", "      - call: pool\n        with: {dice: dice, target: uncontested_target",
                        "      - call: pol\n        with: {dice: dice, target: uncontested_target")
    result = rules("validate", "nwod.yaml")
    assert result.exit_code == 1
    line = line_of(path, "      - call: pol")
    assert result.stderr == f"nwod.yaml:{line}:15: $.procedures.action.steps[3].call: unknown procedure 'pol'; " \
                            "did you mean 'pool'?\n"
