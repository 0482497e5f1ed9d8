"""`(n)#name`: n dice of a named die, rolled, traced and weighed as the term written out; the mistakes
around it (an unknown name, a named die of several dice, `(n)d(name)`, `#` outside a ruleset) are
located errors with their remedy."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from fractions import Fraction

import pytest

RULESET = """\
ruleset: named
title: Named dice counted
description: Ability and difficulty dice, named once and counted by parameters.
dice:
  ability: d{blank,S,S,SS,A,A,SA,AA}
  difficulty: 1d{blank,F,FF,T,T,T,TT,FT}
  wild: d6x
  pair: 2d{1,2}
  setback: d{blank,F,T}
procedures:
  check:
    summary: Net successes of ability dice against difficulty dice.
    params:
      ability: {type: int, min: 0, max: 8, default: 2, help: ability dice}
      difficulty: {type: int, min: 0, max: 8, default: 2, help: difficulty dice}
    outcomes:
      success: more successes than failures
      failure: not
    steps:
      - roll: {pool: "POOL"}
        read: {net: total S - F}
      - decide:
          - {when: net >= 1, outcome: success}
          - {outcome: failure}
  wild:
    summary: Three wild dice, exploding.
    outcomes:
      high: ten or more
      low: less
    steps:
      - roll: {total: 3#wild}
      - decide:
          - {when: total >= 10, outcome: high}
          - {outcome: low}
"""
POOL = "{(ability)#ability, (difficulty)#difficulty}"


def write(tmp_path, pool: str = POOL):
    path = tmp_path / "named.yaml"
    path.write_text(RULESET.replace("POOL", pool), encoding="utf-8")
    return path


def oracle(ability: int, difficulty: int) -> Fraction:
    """P(more S than F), every throw enumerated."""
    faces = [["", "S", "S", "SS", "A", "A", "SA", "AA"]] * ability + [["", "F", "FF", "T", "T", "T", "TT", "FT"]] * difficulty
    won = sum(1 for throw in itertools.product(*faces) if "".join(throw).count("S") > "".join(throw).count("F"))
    return Fraction(won, 8 ** (ability + difficulty))


@pytest.mark.parametrize("ability,difficulty", [(3, 2), (0, 2), (2, 0), (1, 1)])
def test_counted_named_dice_match_enumeration(rules, tmp_path, ability, difficulty):
    result = rules("odds", str(write(tmp_path)), "check", f"ability={ability}", f"difficulty={difficulty}", "--json")
    assert result.exit_code == 0, result.output
    assert Fraction(json.loads(result.output)["exact"].get("success", "0")) == oracle(ability, difficulty)


def test_counted_named_dice_are_the_term_written_out(rules, tmp_path):
    path = write(tmp_path)
    assert rules("validate", str(path)).exit_code == 0
    result = rules("run", str(path), "check", "ability=2", "difficulty=1", "--dice", "4,8,2")
    assert result.exit_code == 0, result.output
    assert "{2d{blank,S,S,SS,A,A,SA,AA},1d{blank,F,FF,T,T,T,TT,FT}}: [SS, AA] [F]" in result.output
    assert "net = 1" in result.output


def test_a_named_die_keeps_its_modifiers(rules, tmp_path):
    result = rules("odds", str(write(tmp_path)), "wild", "--json")
    assert result.exit_code == 0, result.output
    plain = rules("odds", "(3d6x)>=10", "--json")
    assert json.loads(result.output)["exact"]["high"] == json.loads(plain.output)["exact"]["1"]


@pytest.mark.parametrize("pool,words", [
    ("{(ability)#abilty}", ["no named die 'abilty'", "named dice: ability, difficulty, pair, setback, wild"]),
    ("{(ability)#pair}", ["'#pair' counts dice of a named die of one die", "'pair' is '2d{1,2}'"]),
    ("{setback, setback}", ["'{setback, setback}' is a group with the name 'setback' as a member",
                            "#setback is one die of a die named 'setback', (n)#setback n of them"]),
    ("{(ability)d(setback)}", ["rolls dice with as many sides as the named die 'setback' shows",
                               "write (n)#setback"]),
])
def test_mistakes_with_named_dice_are_located(rules, tmp_path, pool, words):
    result = rules("validate", str(write(tmp_path, pool)))
    assert result.exit_code == 1
    line = result.output.strip()
    assert line.startswith(f"{tmp_path / 'named.yaml'}:20:") and "Traceback" not in line, line
    for word in words:
        assert word in line, line


def test_no_die_is_named_outside_a_ruleset(rules):
    result = rules("roll", "3#ability")
    assert result.exit_code == 1
    assert "'#' counts dice of a die named under a ruleset's `dice:`" in result.output


def test_a_count_of_a_named_die_follows_its_enumeration_in_a_pool(rules, tmp_path):
    """The same pool written out by hand and counted by name: the same joint odds, value by value."""
    by_hand = write(tmp_path, "{(ability)d{blank,S,S,SS,A,A,SA,AA}, (difficulty)d{blank,F,FF,T,T,T,TT,FT}}")
    spelled = json.loads(rules("odds", str(by_hand), "check", "ability=4", "difficulty=3", "--json").output)
    counted = json.loads(rules("odds", str(write(tmp_path)), "check", "ability=4", "difficulty=3", "--json").output)
    assert spelled["exact"] == counted["exact"] and spelled["values"] == counted["values"]
    assert Counter(spelled["exact"]) == Counter(counted["exact"])
