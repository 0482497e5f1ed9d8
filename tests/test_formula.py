"""Formulas: what they compute, how they fail, and where errors point."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from simpleeval import SimpleEval

from interpreter import limits
from interpreter.errors import (
    EvaluationError,
    FormulaSyntaxError,
    LimitExceeded,
    Location,
    RulesError,
    TableMiss,
    UnknownName,
)
from interpreter.formula.compile import (
    ALLOWED_FUNCTIONS,
    Formula,
    compile_constant_or_formula,
    compile_formula,
)

ENV = {"a": 7, "b": 2, "c": -3, "zero": 0, "yes": True, "no": False, "STR": 12, "AGI": 9, "DEX": 3}
INT_MAX = 2**63 - 1
INT_MIN = -(2**63)
WHERE = Location("rules.yaml", 10, 8, "procedures.attack.steps[0].check")


def ev(text, env=ENV, functions=None, tables=(), **kw):
    names = set(env) | set(kw.pop("names", ()))
    return compile_formula(text, names=names, functions=tables, **kw).evaluate(env, functions)


def fail(text, env=ENV, functions=None, tables=(), names=(), where=None):
    with pytest.raises(RulesError) as info:
        compile_formula(text, names=set(env) | set(names), functions=tables, where=where).evaluate(
            env, functions
        )
    return info.value


# ---------------------------------------------------------------- arithmetic


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1 + 2", 3),
        ("a - b", 5),
        ("a * b", 14),
        ("a // b", 3),
        ("-a // b", -4),
        ("a % b", 1),
        ("-a % b", 1),
        ("a % -b", -1),
        ("c * c", 9),
        ("-c", 3),
        ("+c", -3),
        ("--a", 7),
        ("(STR + AGI) // 2", 10),
        ("0", 0),
        ("9223372036854775807", INT_MAX),
        ("-9223372036854775808", INT_MIN),
    ],
)
def test_integer_arithmetic(text, expected):
    result = ev(text)
    assert result == expected
    assert type(result) is int


def test_true_division_gives_a_float_and_floor_division_floors():
    assert ev("a / b") == 3.5
    assert type(ev("a / b")) is float
    assert ev("b / b") == 1.0
    assert type(ev("b / b")) is float
    assert ev("a // b") == 3
    assert ev("-a // b") == -4
    assert ev("a / b // 1") == 3.0
    assert ev("a / b % 1") == 0.5


def test_bools_behave_as_integers_in_arithmetic():
    assert ev("yes + yes") == 2
    assert ev("yes * a") == 7
    assert ev("a + no") == 7
    assert ev("-yes") == -1
    assert type(ev("+yes")) is int
    assert ev("True + 1") == 2
    assert ev("False") is False
    assert ev("True") is True


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("10 - 4 - 3", 3),
        ("10 - (4 - 3)", 9),
        ("2 * 3 // 4", 1),
        ("2 * (3 // 4)", 0),
        ("-2 * 3", -6),
        ("-(2 * 3)", -6),
        ("20 // 3 % 4", 2),
        ("1 + 2 > 2", True),
        ("not 1 == 2", True),
        ("not a > b and b > a", False),
        ("1 or 0 and 0", 1),
        ("(1 or 0) and 0", 0),
        ("1 if 0 else 2 + 3", 5),
        ("(1 if 0 else 2) + 3", 5),
        ("a - b * c // 2", 10),
    ],
)
def test_precedence(text, expected):
    assert ev(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("a == 7", True),
        ("a != 7", False),
        ("a < b", False),
        ("a <= 7", True),
        ("a > b", True),
        ("a >= 8", False),
        ("1 < b < a", True),
        ("1 < a < b", False),
        ("b < a > 3 > c", True),
        ("0 <= a / b <= 4", True),
        ("yes == 1", True),
    ],
)
def test_comparisons(text, expected):
    result = ev(text)
    assert result is expected


def test_chained_comparison_stops_at_the_first_false():
    # ``b < 0`` is false, so the division by zero is never reached.
    assert ev("b < 0 < a // zero") is False


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1 and 2", 2),
        ("0 and 2", 0),
        ("0 or 5", 5),
        ("3 or 5", 3),
        ("0 or 0 or 9", 9),
        ("1 and 2 and 3", 3),
        ("1 and 0 and 3", 0),
        ("not a", False),
        ("not zero", True),
        ("not not a", True),
        ("yes and a > b", True),
        ("no or a < b", False),
    ],
)
def test_and_or_not(text, expected):
    assert ev(text) == expected
    assert type(ev(text)) is type(expected)


def test_and_or_short_circuit():
    assert ev("zero and a // zero") == 0
    assert ev("a or a // zero") == 7
    assert ev("0 and 0 and a // zero") == 0
    assert ev("1 or 1 or a // zero") == 1
    # An undefined name in a branch that is not taken is never looked up.
    assert ev("1 or later", names={"later"}) == 1


def test_conditional_expression():
    assert ev("10 if a > 5 else 20") == 10
    assert ev("10 if a < 5 else 20") == 20
    assert ev("1 if yes else 2 if no else 3") == 1
    assert ev("1 if no else 2 if no else 3") == 3
    # Only the chosen branch is evaluated.
    assert ev("a // zero if no else 4") == 4
    assert ev("4 if yes else a // zero") == 4


# ---------------------------------------------------------------- functions


def test_allowed_functions_are_exactly_these():
    assert set(ALLOWED_FUNCTIONS) == {"min", "max", "abs", "floor", "ceil", "clamp"}


@pytest.mark.parametrize(
    "text, expected",
    [
        ("min(a)", 7),
        ("min(a, b)", 2),
        ("min(a, b, c)", -3),
        ("max(a)", 7),
        ("max(a, b)", 7),
        ("max(c, b, 1)", 2),
        ("abs(c)", 3),
        ("abs(a)", 7),
        ("abs(-a / b)", 3.5),
        ("floor(a / b)", 3),
        ("floor(-a / b)", -4),
        ("floor(a)", 7),
        ("ceil(a / b)", 4),
        ("ceil(-a / b)", -3),
        ("ceil(a)", 7),
        ("clamp(a, 1, 5)", 5),
        ("clamp(c, 1, 5)", 1),
        ("clamp(b, 1, 5)", 2),
        ("clamp(a, a, a)", 7),
        ("min(max(a, 10), 12) + abs(c)", 13),
        ("clamp(STR // 4, 1, 5) if yes else 0", 3),
    ],
)
def test_each_allowed_function(text, expected):
    assert ev(text) == expected


def test_floor_and_ceil_give_integers():
    assert type(ev("floor(a / b)")) is int
    assert type(ev("ceil(a / b)")) is int


def test_clamp_with_crossed_bounds_fails_at_evaluation():
    err = fail("clamp(a, 5, 1)", where=WHERE)
    assert type(err) is EvaluationError
    assert err.message == "clamp() lower bound 5 is greater than upper bound 1"
    assert err.where == Location("rules.yaml", 10, 8, WHERE.path)


@pytest.mark.parametrize(
    "text, message",
    [
        ("abs(a, b)", "abs() takes exactly 1 argument (2 given)"),
        ("floor()", "floor() takes exactly 1 argument (0 given)"),
        ("ceil(a, b)", "ceil() takes exactly 1 argument (2 given)"),
        ("clamp(a, b)", "clamp() takes exactly 3 arguments (2 given)"),
        ("clamp(a, b, c, a)", "clamp() takes exactly 3 arguments (4 given)"),
        ("min()", "min() needs at least 1 argument"),
        ("max()", "max() needs at least 1 argument"),
    ],
)
def test_wrong_number_of_arguments_is_refused_at_compile_time(text, message):
    with pytest.raises(FormulaSyntaxError) as info:
        compile_formula(text, names=ENV)
    assert info.value.message == message


def test_a_function_used_as_a_name_is_refused():
    with pytest.raises(FormulaSyntaxError) as info:
        compile_formula("min + 1", names=ENV)
    assert info.value.message == "'min' is a function; call it with arguments, like min(...)"


def test_unknown_function_with_hint():
    with pytest.raises(FormulaSyntaxError) as info:
        compile_formula("mx(a, b)", names=ENV, where=WHERE)
    err = info.value
    assert err.message == "unknown function 'mx'"
    assert err.hint == "did you mean 'max'?"
    assert err.where == Location("rules.yaml", 10, 8, WHERE.path)


def test_unknown_function_hint_ignores_case():
    with pytest.raises(FormulaSyntaxError) as info:
        compile_formula("Max(a, b)", names=ENV)
    assert info.value.hint == "did you mean 'max'?"


# ---------------------------------------------------------------- table functions


def test_table_functions_are_called_with_positional_arguments():
    tables = {"damage": lambda level: level * 2, "grid": lambda row, col: row * 10 + col}
    f = compile_formula("damage(a) + grid(b, 3)", names=ENV, functions=("damage", "grid"))
    assert f.evaluate(ENV, tables) == 14 + 23
    assert f.calls == frozenset({"damage", "grid"})
    assert f.names == frozenset({"a", "b"})


def test_table_function_results_are_checked():
    f = compile_formula("label(a)", names=ENV, functions=("label",), where=WHERE)
    with pytest.raises(EvaluationError) as info:
        f.evaluate(ENV, {"label": lambda k: "hit"})
    assert info.value.message == "the result of label() is not a number (it is str)"
    with pytest.raises(EvaluationError) as info:
        f.evaluate(ENV, {"label": lambda k: 2**64})
    assert info.value.message == "integer out of range in the result of label()"
    assert f.evaluate(ENV, {"label": lambda k: True}) is True
    assert f.evaluate(ENV, {"label": lambda k: 2.5}) == 2.5


def test_table_function_errors_keep_their_own_location_or_get_the_call_site():
    tables_where = Location("tables.yaml", 3, 5)

    def miss(key):
        raise TableMiss(f"no row for {key}", tables_where)

    def miss_unlocated(key):
        raise TableMiss(f"no row for {key}")

    f = compile_formula("1 + damage(a)", names=ENV, functions=("damage",), where=WHERE)
    with pytest.raises(TableMiss) as info:
        f.evaluate(ENV, {"damage": miss})
    assert info.value.where == tables_where
    with pytest.raises(TableMiss) as info:
        f.evaluate(ENV, {"damage": miss_unlocated})
    assert info.value.message == "no row for 7"
    assert info.value.where == Location("rules.yaml", 10, 12, WHERE.path)


def test_missing_table_function_at_evaluation_is_an_unknown_name():
    f = compile_formula("damage(a)", names=ENV, functions=("damage",))
    with pytest.raises(UnknownName) as info:
        f.evaluate(ENV, {})
    assert info.value.message == "unknown function 'damage'"
    with pytest.raises(UnknownName):
        f.evaluate(ENV)


def test_table_function_needs_an_argument():
    with pytest.raises(FormulaSyntaxError) as info:
        compile_formula("damage()", names=ENV, functions=("damage",))
    assert info.value.message == "damage() needs at least 1 argument"


def test_table_function_hint():
    with pytest.raises(FormulaSyntaxError) as info:
        compile_formula("damgae(a)", names=ENV, functions=("damage",))
    assert info.value.message == "unknown function 'damgae'"
    assert info.value.hint == "did you mean 'damage'?"


def test_table_functions_cannot_replace_the_allowed_ones():
    f = compile_formula("min(a, b)", names=ENV, functions=("min",))
    assert f.evaluate(ENV, {"min": lambda *args: 99}) == 2


# ---------------------------------------------------------------- the Formula value


def test_formula_records_names_and_calls():
    f = compile_formula("max(STR, AGI) + a if yes else floor(b / 2)", names=ENV)
    assert f.text == "max(STR, AGI) + a if yes else floor(b / 2)"
    assert f.names == frozenset({"STR", "AGI", "a", "yes", "b"})
    assert f.calls == frozenset({"max", "floor"})
    assert isinstance(f.names, frozenset) and isinstance(f.calls, frozenset)


def test_formula_is_frozen_and_hashable_by_text():
    f = compile_formula("a + 1", names={"a"})
    g = compile_formula("a + 1", names={"a", "b"}, where=WHERE)
    h = compile_formula("a + 2", names={"a"})
    assert f == g and hash(f) == hash(g) and f != h
    assert len({f, g, h}) == 2
    assert {f: 1}[g] == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.text = "a + 2"  # type: ignore[misc]
    assert isinstance(f, Formula)


def test_evaluation_keeps_no_state_between_calls():
    f = compile_formula("a * 2 + b", names={"a", "b"})
    assert f.evaluate({"a": 1, "b": 1}) == 3
    assert f.evaluate({"a": 10, "b": 0}) == 20
    with pytest.raises(UnknownName):
        f.evaluate({"a": 1})
    assert f.evaluate({"a": 2, "b": 2}) == 6


def test_evaluation_is_reentrant():
    f = compile_formula("a + deeper(a)", names={"a"}, functions=("deeper",))

    def deeper(n):
        return 0 if n == 0 else f.evaluate({"a": n - 1}, {"deeper": deeper})

    assert f.evaluate({"a": 4}, {"deeper": deeper}) == 4 + 3 + 2 + 1 + 0


def test_env_may_be_any_mapping():
    class Lazy(dict):
        def __missing__(self, key):
            raise KeyError(key)

    assert ev("a + b", env=Lazy(a=1, b=2)) == 3


def test_env_values_must_be_numbers():
    f = compile_formula("a + 1", names={"a"}, where=WHERE)
    with pytest.raises(EvaluationError) as info:
        f.evaluate({"a": "12"})
    assert info.value.message == "'a' is not a number (it is str)"
    with pytest.raises(EvaluationError):
        f.evaluate({"a": None})
    with pytest.raises(EvaluationError):
        f.evaluate({"a": [1]})
    assert f.evaluate({"a": 2.5}) == 3.5


def test_int_subclasses_in_env_are_plain_integers():
    class Level(int):
        pass

    result = ev("a", env={"a": Level(4)})
    assert result == 4 and type(result) is int


# ---------------------------------------------------------------- names and locations


def test_unknown_name_message_location_and_hint():
    with pytest.raises(UnknownName) as info:
        compile_formula("STR + dex", names={"STR", "DEX"}, where=WHERE)
    err = info.value
    assert err.message == "unknown name 'dex'"
    assert err.hint == "did you mean 'DEX'?"
    assert err.where == Location("rules.yaml", 10, 14, WHERE.path)
    assert str(err) == (
        "rules.yaml:10:14: procedures.attack.steps[0].check: unknown name 'dex'; did you mean 'DEX'?"
    )


def test_unknown_name_close_match_hint():
    with pytest.raises(UnknownName) as info:
        compile_formula("strenght + 1", names={"strength", "agility"})
    assert info.value.hint == "did you mean 'strength'?"


def test_unknown_name_without_a_close_match_has_no_hint():
    with pytest.raises(UnknownName) as info:
        compile_formula("qqq + 1", names={"strength", "agility"})
    assert info.value.message == "unknown name 'qqq'"
    assert info.value.hint is None


def test_lowercase_true_and_false_are_flags_as_yaml_writes_them():
    assert compile_formula("a and true", names={"a"}).evaluate({"a": 1}) is True
    assert compile_formula("false or a > 2", names={"a"}).evaluate({"a": 1}) is False
    assert compile_formula("x if true else 0", names={"x"}).evaluate({"x": 7}) == 7


def test_location_without_where():
    with pytest.raises(UnknownName) as info:
        compile_formula("a + b + zz", names={"a", "b"})
    assert info.value.where == Location("<formula>", 1, 9)


def test_location_on_a_later_line():
    text = "(a +\n   b.real)"
    with pytest.raises(FormulaSyntaxError) as info:
        compile_formula(text, names={"a", "b"}, where=WHERE)
    assert info.value.message == "attribute access is not allowed"
    assert info.value.where == Location("rules.yaml", 11, 4, WHERE.path)
    with pytest.raises(FormulaSyntaxError) as info:
        compile_formula(text, names={"a", "b"})
    assert info.value.where == Location("<formula>", 2, 4)


def test_multi_line_formulas_and_leading_spaces_are_accepted():
    assert ev("  a +\n  b\n") == 9
    assert ev("max(a,\n    b)  # the larger\n") == 7


def test_location_counts_characters_not_bytes():
    with pytest.raises(UnknownName) as info:
        compile_formula("força + éclat", names={"força"}, where=WHERE)
    assert info.value.where.col == WHERE.col + 8


def test_the_first_problem_in_reading_order_is_reported():
    with pytest.raises(RulesError) as info:
        compile_formula("x + 1 if y.z else 'w'", names=set())
    assert type(info.value) is UnknownName
    assert info.value.message == "unknown name 'x'"


def test_syntax_error_is_located():
    with pytest.raises(FormulaSyntaxError) as info:
        compile_formula("a + * b", names={"a", "b"}, where=WHERE)
    assert info.value.message == "this is not a formula: check for a missing operator or bracket"
    assert info.value.where == Location("rules.yaml", 10, 12, WHERE.path)


def test_a_formula_that_stops_after_an_operator_says_so():
    with pytest.raises(FormulaSyntaxError) as info:
        compile_formula("a +", names={"a"})
    assert info.value.message == "the formula ends where a number or name was expected"


def test_dice_written_in_a_formula_get_a_hint():
    with pytest.raises(FormulaSyntaxError) as info:
        compile_formula("1d6 + a", names={"a"})
    assert "roll steps" in info.value.message


def test_incomplete_formula_points_at_its_end():
    with pytest.raises(FormulaSyntaxError) as info:
        compile_formula("a +", names={"a"}, where=WHERE)
    assert info.value.where == Location("rules.yaml", 10, 11, WHERE.path)
    with pytest.raises(FormulaSyntaxError) as info:
        compile_formula("a +\n\n", names={"a"})
    assert info.value.where == Location("<formula>", 1, 4)


def test_parser_messages_do_not_count_the_wrapping():
    with pytest.raises(FormulaSyntaxError) as info:
        compile_formula("'abc", names=())
    assert info.value.message == "unterminated string literal"
    assert info.value.where == Location("<formula>", 1, 1)


def test_other_ways_of_writing_whole_numbers():
    assert ev("0x10 + 0b11 + 0o7 + 1_000") == 16 + 3 + 7 + 1000


@pytest.mark.parametrize(
    "text, message, col",
    [
        ("(a + b", "'(' was never closed", 1),
        ("a + b)", "unmatched ')'", 6),
        ("max(a, b]", "unmatched ']'", 9),
    ],
)
def test_unbalanced_brackets(text, message, col):
    with pytest.raises(FormulaSyntaxError) as info:
        compile_formula(text, names={"a", "b"})
    assert info.value.message == message
    assert info.value.where == Location("<formula>", 1, col)


@pytest.mark.parametrize("text", ["", "   ", "\n", "# nothing here"])
def test_empty_formula(text):
    with pytest.raises(FormulaSyntaxError) as info:
        compile_formula(text, names=set())
    assert info.value.message == "empty formula"


def test_two_expressions_are_refused():
    with pytest.raises(FormulaSyntaxError) as info:
        compile_formula("a\nb", names={"a", "b"})
    assert info.value.message == "a formula must be a single expression"
    assert info.value.where == Location("<formula>", 2, 1)


def test_missing_name_at_evaluation():
    f = compile_formula("a + b", names={"a", "b"}, where=WHERE)
    with pytest.raises(UnknownName) as info:
        f.evaluate({"a": 1})
    assert info.value.message == "unknown name 'b'"
    assert info.value.where == Location("rules.yaml", 10, 12, WHERE.path)


# ---------------------------------------------------------------- 64-bit range


@pytest.mark.parametrize(
    "text, env, segment",
    [
        ("a + 1", {"a": INT_MAX}, "a + 1"),
        ("a - 1", {"a": INT_MIN}, "a - 1"),
        ("a * a", {"a": 2**32}, "a * a"),
        ("-a", {"a": INT_MIN}, "-a"),
        ("a // -1", {"a": INT_MIN}, "a // -1"),
        ("1 + (a + a)", {"a": 2**62}, "a + a"),
        ("abs(a)", {"a": INT_MIN}, "abs(a)"),
    ],
)
def test_integer_overflow(text, env, segment):
    f = compile_formula(text, names=env)
    with pytest.raises(EvaluationError) as info:
        f.evaluate(env)
    assert info.value.message == f"integer out of range in '{segment}'"


def test_overflow_location_points_at_the_operation():
    f = compile_formula("1 + (a * a)", names={"a"}, where=WHERE)
    with pytest.raises(EvaluationError) as info:
        f.evaluate({"a": 2**40})
    assert info.value.where == Location("rules.yaml", 10, 13, WHERE.path)


def test_range_edges_are_allowed():
    assert ev("a - 1 + 1", env={"a": INT_MAX}) == INT_MAX
    assert ev("a + 1 - 1", env={"a": INT_MIN}) == INT_MIN
    assert ev("-a - 1", env={"a": INT_MAX}) == INT_MIN


def test_float_results_are_range_checked_too():
    f = compile_formula("a / 2 * 4", names={"a"})
    with pytest.raises(EvaluationError) as info:
        f.evaluate({"a": INT_MAX})
    assert info.value.message == "number out of range in 'a / 2 * 4'"


def test_values_from_env_must_be_in_range():
    f = compile_formula("a", names={"a"})
    with pytest.raises(EvaluationError) as info:
        f.evaluate({"a": 2**63})
    assert info.value.message == "integer out of range in 'a'"
    with pytest.raises(EvaluationError):
        f.evaluate({"a": math.inf})
    with pytest.raises(EvaluationError):
        f.evaluate({"a": math.nan})


def test_range_follows_limits_at_compile_time(monkeypatch):
    monkeypatch.setattr(limits, "INT_MAX", 100)
    monkeypatch.setattr(limits, "INT_MIN", -100)
    f = compile_formula("a + 1", names={"a"})
    assert f.evaluate({"a": 99}) == 100
    with pytest.raises(EvaluationError):
        f.evaluate({"a": 100})
    with pytest.raises(LimitExceeded):
        compile_formula("101", names=())


# ---------------------------------------------------------------- division by zero


@pytest.mark.parametrize(
    "text, env",
    [
        ("a // b", {"a": 1, "b": 0}),
        ("a % b", {"a": 1, "b": 0}),
        ("a / b", {"a": 1, "b": 0}),
        ("a / b", {"a": 1, "b": False}),
        ("a // b", {"a": 1.5, "b": 0.0}),
        ("a % b", {"a": 0, "b": 0}),
    ],
)
def test_division_by_zero(text, env):
    f = compile_formula(text, names=env)
    with pytest.raises(EvaluationError) as info:
        f.evaluate(env)
    assert info.value.message == f"division by zero in '{text}'"


def test_division_by_zero_location_and_segment():
    f = compile_formula("10 + (a // (b - b))", names={"a", "b"}, where=WHERE)
    with pytest.raises(EvaluationError) as info:
        f.evaluate({"a": 1, "b": 2})
    assert info.value.message == "division by zero in 'a // (b - b)'"
    assert info.value.where == Location("rules.yaml", 10, 14, WHERE.path)


# ---------------------------------------------------------------- constants


def test_constant_or_formula():
    assert compile_constant_or_formula(3, names=()).evaluate({}) == 3
    assert compile_constant_or_formula(-3, names=()).evaluate({}) == -3
    assert compile_constant_or_formula(True, names=()).evaluate({}) is True
    assert compile_constant_or_formula(False, names=()).evaluate({}) is False
    assert compile_constant_or_formula("a * 2", names={"a"}).evaluate({"a": 4}) == 8
    assert compile_constant_or_formula(3, names=()).text == "3"
    assert compile_constant_or_formula(INT_MIN, names=()).evaluate({}) == INT_MIN


def test_constant_or_formula_refuses_other_values():
    with pytest.raises(FormulaSyntaxError) as info:
        compile_constant_or_formula(1.5, names=(), where=WHERE)
    assert info.value.message == "only whole numbers are allowed"
    assert info.value.where == WHERE
    with pytest.raises(FormulaSyntaxError) as info:
        compile_constant_or_formula(None, names=())
    assert info.value.message == "expected a whole number, true/false or a formula, not NoneType"
    with pytest.raises(LimitExceeded):
        compile_constant_or_formula(2**64, names=())


def test_compile_formula_wants_text():
    with pytest.raises(FormulaSyntaxError) as info:
        compile_formula(3, names=())  # type: ignore[arg-type]
    assert info.value.message == "a formula must be text, not int"


# ---------------------------------------------------------------- properties

NAMES = ("a", "b", "c", "d")
leaves = st.one_of(st.integers(-20, 20).map(str), st.sampled_from(NAMES), st.sampled_from(["True", "False"]))


def _combine(children):
    binary = st.sampled_from(["+", "-", "*", "/", "//", "%", "<", "<=", "==", "!=", ">", ">=", "and", "or"])
    return st.one_of(
        st.tuples(children, binary, children).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["-", "+", "not "]), children).map(lambda t: f"({t[0]}{t[1]})"),
        st.tuples(children, children, children).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        st.tuples(st.sampled_from(["min", "max"]), st.lists(children, min_size=1, max_size=3)).map(
            lambda t: f"{t[0]}({', '.join(t[1])})"
        ),
        st.tuples(st.sampled_from(["abs", "floor", "ceil"]), children).map(lambda t: f"{t[0]}({t[1]})"),
        st.tuples(children, children, children).map(lambda t: f"clamp({t[0]}, min({t[1]}, {t[2]}), max({t[1]}, {t[2]}))"),
    )


formulas = st.recursive(leaves, _combine, max_leaves=8)
envs = st.fixed_dictionaries({n: st.integers(-20, 20) for n in NAMES})


@settings(max_examples=400, deadline=None)
@given(formulas, envs)
def test_agrees_with_simpleeval_on_small_values(text, env):
    """Away from the range edges, formulas mean what the same Python expression means."""
    reference = SimpleEval(functions=dict(ALLOWED_FUNCTIONS), names=dict(env))
    try:
        expected = reference.eval(text)
    except ZeroDivisionError:
        with pytest.raises(EvaluationError) as info:
            compile_formula(text, names=NAMES).evaluate(env)
        assert info.value.message.startswith("division by zero in ")
        return
    except (OverflowError, ValueError):  # floor/ceil of a float beyond range cannot happen here
        return
    except EvaluationError:  # clamp with crossed bounds cannot happen here either
        raise
    result = compile_formula(text, names=NAMES).evaluate(env)
    assert result == expected or (math.isnan(result) and math.isnan(expected))
    assert type(result) is type(expected)


formula_alphabet = st.sampled_from(
    list("abcd0123456789+-*/%<>=!()[]{}.,:;'\"#~^&|@ \n\t\\_") + ["and", "or", "not", "if", "else", "lambda", "**", "__"]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(formula_alphabet, max_size=40).map("".join), envs)
def test_any_text_either_compiles_or_raises_a_rules_error(text, env):
    try:
        f = compile_formula(text, names=NAMES)
    except RulesError:
        return
    try:
        result = f.evaluate(env)
    except EvaluationError:
        return
    assert type(result) in (int, bool, float)


@pytest.mark.parametrize("text", ["0", "7", "20", "1000", str(2**40), "9" * 18])
def test_a_plain_whole_number_compiles_to_what_the_parsed_formula_gives(text):
    """Whole numbers skip the parser; the result is the one the parser's path gives for the same number."""
    quick, parsed = compile_formula(text, names=()), compile_formula(f"({text})", names=())
    assert quick.evaluate({}) == parsed.evaluate({}) == int(text) and type(quick.evaluate({})) is int
    assert (quick.names, quick.calls, quick.strict) == (parsed.names, parsed.calls, parsed.strict) == \
        (frozenset(), frozenset(), ())


@pytest.mark.parametrize("text", ["007", "00", "9" * 19, str(2**63), "１２"])
def test_numbers_the_quick_path_does_not_take_are_judged_by_the_parser(text):
    try:
        value = compile_formula(f"({text})", names=()).evaluate({})
    except RulesError as err:
        with pytest.raises(type(err)):
            compile_formula(text, names=()).evaluate({})
    else:
        assert compile_formula(text, names=()).evaluate({}) == value


def test_a_formula_builds_when_first_run_and_then_runs_as_built():
    """Building waits for the first evaluation; every later one gives the same, errors included."""
    f = compile_formula("a * b - c if yes else zero // 0", names=ENV)
    waiting = f._run
    assert f.evaluate(ENV) == 7 * 2 + 3
    assert f._run is not waiting and f.evaluate(ENV) == 17
    g = compile_formula("a // zero", names=ENV)
    for _ in range(2):  # the error of a division by zero is the same before and after the build
        with pytest.raises(EvaluationError, match="division by zero"):
            g.evaluate(ENV)


@pytest.mark.parametrize("text", ["a + b * (c - 1)", "max(a,\n  b) + clamp(x, 1, 3)", "(a if b else c) // 2",
                                  "x + 'é' + y", "f(a,\n b,\n c) + 1", "not (a < b <= c) or d"])
def test_the_text_of_each_node_is_what_the_parser_read(text):
    """Messages quote a node's text as ast.get_source_segment would, without splitting the text per node."""
    import ast

    from interpreter.formula.source import Source

    source = Source(text, None)
    for node in ast.walk(ast.parse(source.wrapped, mode="eval")):
        assert source._written(node) == ast.get_source_segment(source.wrapped, node)
