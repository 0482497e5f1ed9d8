"""A dice parameter handed on through `call` (`with: {damage: damage}`): checked at load, rolled by the callee."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import one_line_error

import interpreter

STRIKE = """\
extends: wwn
ruleset: wwn-strike
procedures:
  strike:
    summary: wwn's attack at bonus 2 against AC 12, the weapon's dice handed on
    params:
      damage: {{type: dice, help: the weapon's dice}}
    outcomes: {{hit: h, miss: m}}
    values: {{dealt: d}}
    steps:
      - call: attack
        with: {with_}
        as: blow
        inherit_outcome: true
      - let: {{dealt: blow_damage}}
"""


def _strike(tmp_path: Path, with_: str = "{bonus: 2, ac: 12, damage: damage}") -> Path:
    path = tmp_path / "strike.yaml"
    path.write_text(STRIKE.format(with_=with_), encoding="utf-8")
    return path


def test_W21_the_dice_handed_on_are_rolled_by_the_callee(tmp_path):
    """W20/W21: a natural 20 hits, and the damage is the weapon's die (given 20, then 7 on the d8)."""
    strike = interpreter.load_ruleset(_strike(tmp_path)).procedure("strike")
    result = strike(damage="1d8", dice=[20, 7])
    assert (result.outcome, result.values["dealt"]) == ("hit", 7)
    assert [(r.name, r.expr.text) for r in result.trace] == [("blow_natural", "attack_die"), ("blow_rolled", "damage")]
    assert strike(damage=3, dice=[20]).values["dealt"] == 3  # a whole number is dice too


def test_W21_odds_and_samples_through_the_call_are_the_attacks_own(tmp_path):
    """W20/W21: the same attack, called or not, has the same odds, and the same runs from the same seed."""
    strike = interpreter.load_ruleset(_strike(tmp_path)).procedure("strike")
    attack = interpreter.load_ruleset("wwn").procedure("attack")
    direct = attack.odds(bonus=2, ac=12, damage="2d6")
    called = strike.odds(damage="2d6")
    assert called.exact and called.outcomes == direct.outcomes
    assert called.values["dealt"] == direct.values["damage"]
    by_call = strike.sample(damage="1d8", times=300, seed=5)
    by_hand = attack.sample(bonus=2, ac=12, damage="1d8", times=300, seed=5)
    assert by_call.outcomes == by_hand.outcomes and by_call.values["dealt"] == by_hand.values["damage"]


@pytest.mark.parametrize(("with_", "column", "message"), [
    ("{bonus: damage, ac: 12, damage: damage}", 23,
     ("$.procedures.strike.steps[0].with.bonus: 'damage' is dice, and parameter 'bonus' of 'attack' takes a number; "
     "roll it first (- roll: {rolled: damage}) and give the roll")),
    ("{bonus: 2, ac: 12, damage: damage + 1}", 42,
     ("$.procedures.strike.steps[0].with.damage: 'damage' is dice: hand it on whole (damage: damage), not in a "
     "formula; roll it first (- roll: {rolled: damage}) to compute with it")),
])
def test_dice_handed_on_wrongly_are_refused_at_load(tmp_path, rules, with_, column, message):
    path = _strike(tmp_path, with_)
    assert one_line_error(rules("validate", str(path))) == f"{path}:12:{column}: {message}"
