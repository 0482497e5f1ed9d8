"""Generated hostile text for the dice parser, the formula checker and the sheet reader.

Whatever the text, each either accepts it or refuses it with a RulesError (one located line);
no other exception escapes. The examples repeat on every run (conftest's derandomized profile).
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interpreter.dice import expr as dice
from interpreter.errors import RulesError
from interpreter.formula.compile import compile_formula
from interpreter.pipeline import compile_ref
from interpreter.sheet.creation import check
from interpreter.sheet.file import SheetFile

DICE_PIECES = ["1", "6", "20", "0", "1000", "9" * 25, "d", "D", "F", "%", "x", "o", "r", "rr", "kh", "kl", "dh", "dl",
               "cs", "df", ">", ">=", "<", "<=", "=", "!", "+", "-", "*", "//", "(", ")", "{", "}", ",", " ",
               "pool", "ＳＴＲ", "\x00", "١", "\n", "_"]
FORMULA_PIECES = ["STR", "DEX", "level", "1", "0", "9" * 30, "+", "-", "*", "//", "%", "**", "(", ")", "[", "]",
                  ",", " ", "max", "min", "abs", "if", "else", "and", "or", "not", "==", "<", ">=", "True", "None",
                  "'s'", "lambda", ":", ".", "__class__", "ＳＴＲ", "ﬁ", "\\", "#", "\n", "\x00", "1e9", "1_0"]


def pieces(alphabet: list[str]) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(alphabet), max_size=25).map("".join) | st.text(max_size=40)


@settings(max_examples=300, deadline=None)
@given(pieces(DICE_PIECES))
def test_the_dice_parser_accepts_or_refuses_in_one_line(text):
    try:
        expr = dice.parse(text)
    except RulesError as err:
        assert "\n" not in str(err)
        return
    try:
        expr.roll({"pool": 3}, dice.RandomSource(random.Random(1)))
        expr.distribution({"pool": 3})
    except RulesError as err:
        assert "\n" not in str(err)


@settings(max_examples=300, deadline=None)
@given(pieces(FORMULA_PIECES))
def test_the_formula_checker_accepts_or_refuses_in_one_line(text):
    try:
        formula = compile_formula(text, names=["STR", "DEX", "level"], functions=["max", "min", "abs"])
    except RulesError as err:
        assert "\n" not in str(err)
        return
    try:
        formula.evaluate({"STR": 12, "DEX": -3, "level": 2**62}, {})
    except RulesError as err:
        assert "\n" not in str(err)


SHEET = """\
ruleset: lockwood
name: Alice
traits: {STR: 11, AGI: 11, END: 11, KNO: 11, WIS: 11, PER: 11, CHA: 11, WILL: 11, LUCK: 12}
choices:
  advantages: [Healing, Quick, Sharp eyes]
  disadvantages: [Clumsy, Loud]
  talent: Phase step
  backfire: Ends up one room over
state:
  treatment_days_left: 0
  hp: {current: 22, max: 22}
  luck_points: 12
  talent_uses: 5
"""
VALUES = ["0", "-1", "99", "9" * 30, "9" * 5000, "null", "~", "[]", "{}", "[1, [2]]", "true", "'x'", "\"\\x00\"",
          "1.5", ".nan", "&a 1", "*a", "!!str 1", "0x7f", "{current: 1}", "[null, lethal]", "|\n  text", "ＳＴＲ"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_the_sheet_reader_and_check_accept_or_refuse_in_one_line(tmp_path, data):
    rules = compile_ref("lockwood")
    text = SHEET
    for _ in range(data.draw(st.integers(1, 3))):
        numbers = [i for i, c in enumerate(text) if c.isdigit() and not text[i - 1].isdigit()]
        at = data.draw(st.sampled_from(numbers))
        end = at
        while end < len(text) and text[end].isdigit():
            end += 1
        text = text[:at] + data.draw(st.sampled_from(VALUES)) + text[end:]
    path = tmp_path / "sheet.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        sheet = SheetFile.read(path)
        problems = check(rules, sheet.data, sheet.doc)
    except RulesError as err:
        assert "\n" not in str(err)
        return
    assert all("\n" not in str(problem) for problem in problems)
