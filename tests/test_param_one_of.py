"""Issue 16: a parameter may be limited to a list of numbers (`one_of`), such as die sizes."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

RULESET = """ruleset: oneof
title: One of
procedures:
  trait:
    summary: roll a trait die against 4
    params:
      die: {type: int, one_of: [4, 6, 8, 10, 12], default: DEFAULT}
    outcomes: {success: four or more, failure: less}
    values: {got: the die}
    steps:
      - roll: {got: 1d(die)}
      - decide:
          - {when: got >= 4, outcome: success}
          - {outcome: failure}
"""


@pytest.fixture
def path(tmp_path):
    out = tmp_path / "oneof.yaml"
    out.write_text(RULESET.replace("DEFAULT", "6"), encoding="utf-8")
    return out


@pytest.mark.parametrize("die", [4, 6, 8, 10, 12])
def test_each_listed_number_is_taken(rules, path, die):
    result = rules("odds", str(path), "trait", f"die={die}", "--json")
    assert result.exit_code == 0, result.output
    assert Fraction(json.loads(result.output)["exact"]["success"]) == Fraction(die - 3, die)


@pytest.mark.parametrize("die", ["7", "0", "13"])
def test_a_number_not_listed_is_refused_with_the_list(rules, path, die):
    before = path.read_bytes()
    result = rules("run", str(path), "trait", f"die={die}")
    assert result.exit_code == 1
    assert f"parameter 'die' is {die}; it must be one of 4, 6, 8, 10, 12" in result.output
    assert path.read_bytes() == before


def test_default_must_be_listed(rules, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(RULESET.replace("DEFAULT", "5"), encoding="utf-8")
    result = rules("validate", str(bad))
    assert result.exit_code == 1
    assert result.output.strip().endswith(
        "$.procedures.trait.params.die.default: default 5 of 'die' is not one of [4, 6, 8, 10, 12]; "
        "give a default from one_of")


def test_only_int_parameters_take_one_of(rules, tmp_path):
    bad = tmp_path / "flag.yaml"
    bad.write_text(RULESET.replace("{type: int, one_of: [4, 6, 8, 10, 12], default: DEFAULT}",
                                   "{type: flag, one_of: [1]}").replace("1d(die)", "1d6"), encoding="utf-8")
    result = rules("validate", str(bad))
    assert result.exit_code == 1 and "only an int parameter takes one_of" in result.output


def test_describe_lists_the_numbers(rules, path):
    assert "one of 4, 6, 8, 10, 12" in rules("describe", str(path)).output
