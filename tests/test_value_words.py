"""Issue 16: a reported value may show words for its numbers (damage types by name)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

RULESET = """ruleset: words
title: Words
procedures:
  hit:
    summary: a damage type chosen by a d6, and an amount
    outcomes: {hit: a lethal or worse hit, graze: bashing only}
    values:
      kind:
        help: the damage type
        words: {bashing: 1, lethal: 2, aggravated: 3}
      amount: the damage
    steps:
      - roll: {die: 1d6, amount: 1d4}
      - let: {kind: "1 if die <= 3 else (2 if die <= 5 else 3)"}
      - decide:
          - {when: kind >= 2, outcome: hit}
          - {outcome: graze}
"""


@pytest.fixture
def path(tmp_path):
    out = tmp_path / "words.yaml"
    out.write_text(RULESET, encoding="utf-8")
    return out


@pytest.mark.parametrize("die,word", [(1, "bashing"), (3, "bashing"), (4, "lethal"), (6, "aggravated")])
def test_run_shows_the_word_in_text_and_json(rules, path, die, word):
    data = json.loads(rules("run", str(path), "hit", "--dice", f"{die},2", "--json").output)
    assert data["values"] == {"kind": word, "amount": 2}
    assert data["outcome"] == ("graze" if word == "bashing" else "hit")  # formulas compare the numbers
    assert f"kind = {word}" in rules("run", str(path), "hit", "--dice", f"{die},2").output


def test_odds_are_by_word_and_words_have_no_mean(rules, path):
    data = json.loads(rules("odds", str(path), "hit", "--json").output)
    kind = data["values"]["kind"]
    assert kind["exact"] == {"bashing": "1/2", "lethal": "1/3", "aggravated": "1/6"}
    assert list(kind["distribution"]) == ["bashing", "lethal", "aggravated"]  # in the order of their numbers
    assert kind["mean"] is None
    assert Fraction(data["exact"]["hit"]) == Fraction(1, 2)
    assert data["values"]["amount"]["mean"] == 2.5


def test_describe_lists_the_words(rules, path):
    assert "[bashing=1, lethal=2, aggravated=3]" in rules("describe", str(path)).output


def test_two_words_for_one_number_is_a_located_error(rules, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(RULESET.replace("aggravated: 3", "aggravated: 2"), encoding="utf-8")
    result = rules("validate", str(bad))
    assert result.exit_code == 1
    assert "$.procedures.hit.values.kind.words.aggravated: 'aggravated' and 'lethal' both stand for 2" in result.output
