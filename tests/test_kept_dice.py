"""interpreter.dice(EXPR): a parsed expression kept to roll again, its odds, and a result ready for a chat line."""

from __future__ import annotations

import json
import random
import re
import runpy
from fractions import Fraction
from pathlib import Path

import pytest

import interpreter
from interpreter.dice.expr import RandomSource, parse
from interpreter.errors import EvaluationError

DICE_DOC = Path(__file__).resolve().parent.parent / "docs" / "dice.md"


def test_a_kept_expression_rolls_as_rules_roll_does_with_the_same_generator(rules):
    kept = interpreter.dice("4d6kh3")
    for seed in range(20):
        mine = kept.roll(random.Random(seed))
        theirs = parse("4d6kh3").roll({}, RandomSource(random.Random(seed)))
        assert mine.value == theirs.value
        assert [d.value for d in mine.dice] == [d.value for d in theirs.dice]
        assert str(mine) == rules("roll", "4d6kh3", "--seed", str(seed)).stdout.rstrip("\n")


def test_the_result_is_a_chat_line_with_every_die():
    got = interpreter.dice("5d10x10cs>=8").roll(random.Random(3))
    text = str(got)
    assert text.startswith("5d10x10cs>=8: [") and text.endswith(f"= {got.value} successes" if got.value != 1
                                                                   else "= 1 success")
    assert len(re.findall(r"\d+", text.split(": ", 1)[1])) >= 6  # every die, and the count
    assert int(got) == got.value


def test_one_generator_rolls_on_from_roll_to_roll():
    kept = interpreter.dice("1d20+5")
    rng = random.Random(9)
    first = [kept.roll(rng).value for _ in range(5)]
    rng = random.Random(9)
    source = RandomSource(rng)
    assert first == [parse("1d20+5").roll({}, source).value for _ in range(5)]
    assert all(6 <= v <= 25 for v in (kept.roll().value for _ in range(50)))  # no generator: one of its own


def test_odds_are_those_rules_odds_prints(rules):
    kept = interpreter.dice("2d20kh1+5>=15")
    data = json.loads(rules("odds", "2d20kh1+5>=15", "--json").stdout)
    dist = kept.odds()
    assert dist.exact and {str(v): f"{p.numerator}/{p.denominator}" for v, p in dist.probs} == data["exact"]
    assert interpreter.dice("4d6kh3").mean == pytest.approx(float(Fraction(15869, 1296)))


def test_a_kept_expression_is_immutable_and_equal_by_text():
    kept = interpreter.dice("3d6")
    with pytest.raises(AttributeError):
        kept.text = "1d6"  # type: ignore[misc]
    assert kept == interpreter.dice("3d6") and hash(kept) == hash(interpreter.dice("3d6"))
    assert str(kept) == "3d6" and repr(kept) == "ParsedDice('3d6')"


def test_a_kept_expression_names_no_variables_and_says_its_warnings():
    with pytest.raises(EvaluationError, match="names bonus"):
        interpreter.dice("1d20+bonus")
    assert interpreter.dice("10d10>7").warnings[0].startswith("<expr>:1:6: '10d10>7' compares the total")


def test_the_package_stays_callable_after_its_modules_are_imported():
    import interpreter.dice.odds  # importing a submodule rebinds the package's attribute: still callable

    assert interpreter.dice("d6").roll(random.Random(1)).value in range(1, 7)


def test_interpreter_roll_without_a_seed_rolls_fresh_dice():
    values = {interpreter.roll("1d1000").value for _ in range(30)}
    assert len(values) > 20


def test_the_dice_page_python_example_runs(tmp_path, capsys):
    block = DICE_DOC.read_text(encoding="utf-8").split("```python\n")[1].split("```")[0]
    module = tmp_path / "example.py"
    module.write_text(block, encoding="utf-8")
    runpy.run_path(str(module))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "4d6kh3: [2, 1, 4, ~~1~~] = 7"
    assert lines[1].startswith("12.24")
