"""Features that formulas refuse on purpose, each with the exact message a ruleset author sees.

Formulas compute numbers from numbers.  Everything below either reaches outside
the formula (imports, attributes, builtins), defines behaviour instead of
computing a value (lambdas, assignment), or brings in values the rules never
need and that make runaway memory use possible (strings, containers, floats,
``**``).  Rulesets express those things as data: tables, procedures, steps.
"""

from __future__ import annotations

import pytest

from interpreter.errors import FormulaSyntaxError, LimitExceeded, Location
from interpreter.formula.compile import compile_formula

NAMES = {"STR", "AGI", "level", "bonus", "stats"}
WHERE = Location("game.yaml", 42, 14, "derived.defense")


def refused(text):
    with pytest.raises((FormulaSyntaxError, LimitExceeded)) as info:
        compile_formula(text, names=NAMES, where=WHERE)
    return info.value


# Imports: a formula cannot load code.
@pytest.mark.parametrize(
    "text, message",
    [
        ("import math", "import is not allowed"),
        ("from math import floor", "import is not allowed"),
        ("__import__('math').floor(STR)", "attribute access is not allowed"),
        ("__import__('math')", "unknown function '__import__'"),
    ],
)
def test_imports(text, message):
    err = refused(text)
    assert type(err) is FormulaSyntaxError
    assert err.message == message


# Lambdas and definitions: a formula computes a value, it does not define behaviour.
@pytest.mark.parametrize(
    "text, message",
    [
        ("lambda: STR", "lambda is not allowed"),
        ("lambda x: x + 1", "lambda is not allowed"),
        ("(lambda: STR)()", "lambda is not allowed"),
        ("max(lambda: 1, 2)", "lambda is not allowed"),
        ("def f(): return STR", "function definitions are not allowed"),
        ("class C: pass", "class definitions are not allowed"),
    ],
)
def test_lambdas_and_definitions(text, message):
    err = refused(text)
    assert type(err) is FormulaSyntaxError
    assert err.message == message


# Attribute access: the way out of every expression sandbox.
@pytest.mark.parametrize(
    "text, message",
    [
        ("STR.real", "attribute access is not allowed"),
        ("stats.strength", "attribute access is not allowed"),
        ("STR.__class__", "attribute access is not allowed"),
        ("level.bit_length()", "attribute access is not allowed"),
        ("max(STR, AGI).__add__(1)", "attribute access is not allowed"),
    ],
)
def test_attribute_access(text, message):
    err = refused(text)
    assert type(err) is FormulaSyntaxError
    assert err.message == message
    assert err.where == Location("game.yaml", 42, 14, "derived.defense")


# Strings: results and labels belong in tables and outcomes, not in arithmetic.
@pytest.mark.parametrize(
    "text, message, col",
    [
        ("'hit'", "strings are not allowed in formulas", 14),
        ('"hit" if STR > 10 else "miss"', "strings are not allowed in formulas", 14),
        ("STR > 10 and 'yes'", "strings are not allowed in formulas", 27),
        ("f'{STR}'", "strings are not allowed in formulas", 14),
        ("b'raw'", "bytes are not allowed in formulas", 14),
        ("'''long'''", "strings are not allowed in formulas", 14),
    ],
)
def test_strings(text, message, col):
    err = refused(text)
    assert type(err) is FormulaSyntaxError
    assert err.message == message
    assert err.where == Location("game.yaml", 42, col, "derived.defense")


# The rest of Python that formulas leave out.
@pytest.mark.parametrize(
    "text, message",
    [
        ("STR ** 2", "'**' is not allowed"),
        ("STR << 1", "'<<' is not allowed"),
        ("STR & 1", "'&' is not allowed"),
        ("-~STR", "'~' is not allowed"),
        ("STR * 1.5", "only whole numbers are allowed"),
        ("stats[0]", "subscripts are not allowed"),
        ("[STR, AGI]", "lists are not allowed"),
        ("(STR, AGI)", "tuples are not allowed"),
        ("{STR: AGI}", "dicts are not allowed"),
        ("[s for s in stats]", "comprehensions are not allowed"),
        ("(bonus := 2)", "assignment is not allowed"),
        ("level = 3", "assignment is not allowed"),
        ("max(STR, default=0)", "keyword arguments are not allowed"),
        ("max(*stats)", "'*' unpacking is not allowed"),
        ("STR in stats", "'in' is not allowed"),
        ("bonus is None", "'is' is not allowed"),
        ("None", "None is not allowed"),
        ("len(stats)", "unknown function 'len'"),
        ("round(STR / 2)", "unknown function 'round'"),
        ("STR; AGI", "a formula must be a single expression"),
        ("99999999999999999999", "integer literal out of range (it must fit in 64 bits)"),
    ],
)
def test_other_python_features(text, message):
    assert refused(text).message == message


def test_round_is_not_offered_but_floor_and_ceil_are():
    err = refused("round(STR / 2)")
    assert err.hint is None or "round" not in err.hint
    assert compile_formula("floor(STR / 2) + ceil(AGI / 2)", names=NAMES).evaluate(
        {"STR": 13, "AGI": 9}
    ) == 6 + 5
