"""Dice notation: what parses, what the names are, and where syntax errors point."""

from __future__ import annotations

import time

import pytest

from interpreter import limits
from interpreter.dice.expr import GivenSource, parse
from interpreter.errors import DiceSyntaxError, LimitExceeded, Location


def value(text: str, given: list[int], env: dict | None = None) -> int:
    """Roll with given dice and insist that every given die was used."""
    source = GivenSource(given)
    result = parse(text).roll(env or {}, source)
    source.check_exhausted()
    return result.value


@pytest.mark.parametrize("text, given, expected", [
    ("2d6", [3, 4], 7),
    ("d6", [5], 5),
    ("d%", [77], 77),
    ("3 + 4 * 2", [], 11),
    ("(3 + 4) * 2", [], 14),
    ("7 // 2", [], 3),
    ("-7 // 2", [], -4),
    ("-1d6 + 10", [4], 6),
    ("- - 3", [], 3),
    ("1d20 + 5 >= 15", [10], 1),
    ("1d20+5>=15", [9], 0),
    ("1d6 = 3", [3], 1),
    ("1d6 == 3", [2], 0),
    ("1d6 != 3", [2], 1),
    ("1d6!=3", [3], 0),
    ("1d6 < 3", [2], 1),
    ("1d6 <= 3", [4], 0),
    ("1d6 > 3", [4], 1),
    ("0d6 + 2", [], 2),
    ("2d20kh1+5>=15", [3, 12], 1),
    ("4d6k3", [1, 2, 3, 4], 9),
    ("(2)d(6)", [1, 2], 3),
])
def test_notation_values(text, given, expected):
    assert value(text, given) == expected


@pytest.mark.parametrize("written", ["4d6kh3", "4d6dl1", "4d6dl"])
def test_keep_highest_and_drop_lowest_agree(written):
    assert value(written, [2, 6, 1, 5]) == 13


def test_keep_default_count_is_one():
    assert value("3d6kl", [4, 2, 6]) == 2
    assert value("3d6dh", [4, 2, 6]) == 6


def test_modifiers_apply_in_fixed_order_whatever_the_written_order():
    for text in ("3d6r1x6kh2cs>=5", "3d6cs>=5kh2x6r1", "3d6kh2cs>=5r1x6"):
        # 1 is rerolled to 6, which explodes into 5; dice 6, 3, 4, 5 -> keep 6 and 5 -> 2 successes
        assert value(text, [1, 6, 3, 4, 5]) == 2


def test_exclamation_mark_is_explode():
    assert value("1d6!", [6, 2]) == 8
    assert value("1d6!>=5", [5, 6, 1]) == 12
    assert value("2d6!o", [6, 6, 6, 1]) == 19


def test_names_are_free_variables():
    expr = parse("1d20 + stat + mod")
    assert expr.names == frozenset({"stat", "mod"})
    assert value("1d20 + stat + mod", [10], {"stat": 3, "mod": -1}) == 12


def test_names_in_dice_positions_need_parentheses():
    expr = parse("(pool)d10x>=(again)cs>=(target)")
    assert expr.names == frozenset({"pool", "again", "target"})
    assert value("(pool)d10x>=(again)cs>=(target)", [9, 3, 2, 1], {"pool": 3, "again": 9, "target": 8}) == 1
    assert value("1d(healing)", [4], {"healing": 4}) == 4
    with pytest.raises(DiceSyntaxError):
        parse("pool d10")


def test_bool_values_count_as_zero_or_one():
    assert value("1d4 + flag", [2], {"flag": True}) == 3


def test_dice_shaped_identifiers_are_dice_not_names():
    assert parse("d6 + d8").names == frozenset()
    assert parse("dex + d20").names == frozenset({"dex"})


def test_dice_typed_parameter_is_rolled_where_it_appears():
    env = {"damage": parse("1d8"), "bonus": 2}
    assert value("damage + damage + bonus", [3, 5], env) == 10


def test_parse_is_cached_and_expressions_are_immutable():
    a, b = parse("3d6+1"), parse("3d6+1")
    assert a is b and hash(a) == hash(b)
    with pytest.raises(AttributeError):
        a.text = "other"  # type: ignore[misc]


@pytest.mark.parametrize("text, col, words", [
    ("2d6+", 5, "ends"),
    ("2d6x>=", 7, "expected a number after 'x>='"),
    ("2d6kh(", 7, "expected"),
    ("1d20 + (3", 8, "never closed"),
    ("2d6q", 4, "unknown dice modifier 'q'"),
    ("1d6r", 5, "after 'r'"),
    ("5 $ 3", 3, "expected an operator"),
    ("2d6cs", 6, "after 'cs'"),
    ("3d6df=1", 8, "needs a 'cs'"),
    ("1d6/2", 4, "use //"),
    ("2d6 kh1", 5, "expected an operator before 'kh1'"),
    ("2dx", 2, "a die needs its number of sides after 'd'"),
    ("1d", 2, "a die needs its number of sides after 'd'"),
    ("", 1, "empty"),
    ("2d6)", 4, "unmatched"),
    ("1d6 > 2 > 1", 9, "only one comparison"),
    ("2d6kh1kl1", 7, "only one keep or drop"),
    ("2d6x6x5", 6, "only one explode"),
])
def test_syntax_errors_point_at_the_column(text, col, words):
    with pytest.raises(DiceSyntaxError) as info:
        parse(text)
    assert info.value.where == Location(file="<expr>", line=1, col=col)
    assert words in info.value.message


def test_limit_expression_length():
    parse("1" + "+1" * ((limits.MAX_DICE_CHARS - 1) // 2))
    with pytest.raises(LimitExceeded, match="at most 500"):
        parse("1" + "+1" * (limits.MAX_DICE_CHARS // 2))


def test_limit_nesting_depth():
    parse("(" * limits.MAX_DICE_DEPTH + "1" + ")" * limits.MAX_DICE_DEPTH)
    with pytest.raises(LimitExceeded, match="nested"):
        parse("(" * (limits.MAX_DICE_DEPTH + 1) + "1" + ")" * (limits.MAX_DICE_DEPTH + 1))


def test_limit_huge_pool_fails_fast():
    start = time.process_time()
    with pytest.raises(LimitExceeded, match="at most 1000 dice"):
        parse("1000000d1000000")
    assert time.process_time() - start < 1  # the dice issue: an error in under 1 s


def test_limit_faces():
    parse("1d1000")
    with pytest.raises(LimitExceeded, match="1001 faces"):
        parse("1d1001")


def test_limit_total_dice_over_terms():
    parse("500d6+500d6")
    with pytest.raises(LimitExceeded):
        parse("600d6+600d6")


@pytest.mark.parametrize("text", ["1d1x", "1d6x>=1", "1d6rr<=5x6", "(n)d1x"])
def test_limit_endless_explosion_is_an_error(text):
    with pytest.raises(LimitExceeded, match="explodes forever"):
        expr = parse(text)
        expr.roll({"n": 1}, GivenSource([1]))


def test_limit_endless_reroll_is_an_error():
    with pytest.raises(LimitExceeded, match="rerolls forever"):
        parse("2d6rr<=6")


def test_explode_once_on_every_face_is_fine():
    assert value("1d1xo", [1, 1]) == 2
