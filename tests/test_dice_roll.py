"""Rolling: given-dice order, traces, JSON and text, limits while rolling, and the roll command."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from cli import main
from interpreter.dice.expr import Die, GivenSource, RandomSource, parse, render_roll, roll_json
from interpreter.errors import BadParameter, EvaluationError, LimitExceeded, UnknownName

EXAMPLE_JSON = {
    "expr": "5d10x10cs>=8",
    "result": 2,
    "dice": [
        {"value": 1, "success": False}, {"value": 3, "success": False},
        {"value": 5, "success": False}, {"value": 7, "success": False},
        {"value": 10, "success": True, "exploded": True}, {"value": 8, "success": True, "from": 4},
    ],
}


def roll_given(text: str, given: list[int], env: dict | None = None):
    """Roll with given dice, all of which must be used."""
    source = GivenSource(given)
    result = parse(text).roll(env or {}, source)
    source.check_exhausted()
    return result


def run_roll(*args: str):
    """Invoke `rules roll` through the main command group."""
    return CliRunner().invoke(main, ["roll", *args])


# -- the seed examples: ten-again pools ---------------------------------------------

@pytest.mark.parametrize("text, given, expected", [
    ("5d10x10cs>=8", [1, 3, 5, 7, 10, 8], 2),
    ("3d10x10cs>=8", [1, 5, 10, 3], 1),
    ("3d10x10cs>=7", [1, 5, 10, 3], 1),
    ("4d10x10cs>=7", [2, 4, 6, 7], 1),
    ("5d10x10cs>=8", [3, 5, 7, 7, 9], 1),
    ("5d10x10cs>=7", [3, 5, 7, 7, 9], 3),
    ("5d10x10cs>=8", [1, 3, 5, 5, 6], 0),
])
def test_N2_target_eight_counts_successes(text, given, expected):
    assert roll_given(text, given).value == expected
    out = run_roll(text, "--dice", ",".join(map(str, given)), "--json")
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["result"] == expected


def test_N3_ten_again_rerolls_tens():
    result = roll_given("5d10x10cs>=8", [1, 3, 5, 7, 10, 8])
    dice = result.terms[0].dice
    assert dice[4].exploded and dice[5].from_ == 4
    assert roll_given("2d10x10cs>=8", [10, 10, 10, 2, 1]).value == 3


def test_N3_nine_again_and_eight_again():
    assert roll_given("2d10x>=9cs>=8", [9, 3, 8]).value == 2
    assert roll_given("2d10x>=8cs>=8", [9, 8, 8, 1, 2]).value == 3


def test_N4_ones_have_no_effect_without_df():
    assert roll_given("4d10x10cs>=8", [1, 1, 8, 9]).value == 2


def test_N4_ones_remove_successes_with_df():
    assert roll_given("4d10x10cs>=8df=1", [1, 1, 8, 9]).value == 0
    assert roll_given("3d10cs>=8df=1", [1, 1, 8]).value == -1  # results may go below zero
    dice = roll_given("2d10cs>=8df=1", [1, 9]).terms[0].dice
    assert dice[0].deducted and not dice[0].success and dice[1].success


# -- draw order and traces --------------------------------------------------------

def test_explosions_are_drawn_breadth_first():
    result = roll_given("3d6x", [6, 2, 6, 6, 6, 1, 3])
    values = [d.value for d in result.terms[0].dice]
    froms = [d.from_ for d in result.terms[0].dice]
    assert values == [6, 2, 6, 6, 6, 1, 3]
    assert froms == [None, None, None, 0, 2, 3, 4]
    assert result.value == 30


def test_reroll_is_drawn_at_once_and_kept_as_history():
    result = roll_given("3d6r<=2", [1, 4, 5, 2, 2])
    dice = result.terms[0].dice
    assert [d.value for d in dice] == [4, 5, 2]
    assert dice[0].rerolled == (1,) and dice[2].rerolled == (2,)
    assert result.value == 11


def test_reroll_again_until_no_match():
    result = roll_given("1d6rr<=2", [1, 2, 1, 5])
    assert result.terms[0].dice[0].rerolled == (1, 2, 1) and result.value == 5


def test_exploded_dice_are_rerolled_and_explode_again():
    result = roll_given("1d6r1x6", [6, 1, 6, 3])
    assert [d.value for d in result.terms[0].dice] == [6, 6, 3] and result.value == 15


def test_keep_marks_dropped_dice():
    result = roll_given("4d6kh3", [2, 6, 2, 5])
    dice = result.terms[0].dice
    assert [d.kept for d in dice] == [True, True, False, True]
    assert result.value == 13
    assert render_roll(parse("4d6kh3"), result) == "4d6kh3: [2, 6, ~~2~~, 5] = 13"


def test_exploded_dice_join_the_pool_for_keep():
    assert roll_given("2d6xkh2", [6, 3, 5]).value == 11


def test_terms_are_traced_in_roll_order():
    result = roll_given("1d20 + 2d6 - 3", [15, 2, 3])
    assert [t.text for t in result.terms] == ["1d20", "2d6"]
    assert [t.result for t in result.terms] == [15, 5]
    assert result.value == 17
    assert result.dice == (Die(15, 20), Die(2, 6), Die(3, 6))


def test_roll_json_has_the_contract_shape():
    expr = parse("5d10x10cs>=8")
    out = roll_json(expr, roll_given("5d10x10cs>=8", [1, 3, 5, 7, 10, 8]))
    for key, value in EXAMPLE_JSON.items():
        assert out[key] == value


def test_json_from_points_into_the_flat_list():
    out = roll_json(parse("1d4+2d6x"), roll_given("1d4+2d6x", [2, 6, 1, 4]))
    assert out["dice"][3] == {"value": 4, "from": 1}
    assert out["dice"][1]["exploded"] is True


def test_json_marks_dropped_and_rerolled():
    out = roll_json(parse("2d6r1kh1"), roll_given("2d6r1kh1", [1, 3, 2]))
    assert out["dice"] == [{"value": 3, "rerolled": [1]}, {"value": 2, "kept": False, "dropped": True}]


def test_text_rendering():
    expr = parse("5d10x10cs>=8")
    assert render_roll(expr, roll_given(expr.text, [1, 3, 5, 7, 10, 8])) == \
        "5d10x10cs>=8: [1, 3, 5, 7, 10 → 8] = 2 successes"
    expr = parse("2d20kh1+5>=15")
    assert render_roll(expr, roll_given(expr.text, [3, 17])) == \
        "2d20kh1+5>=15: [~~3~~, 17] + 5 >= 15 = 1 (true)"
    expr = parse("1d20 + stat")
    assert render_roll(expr, roll_given(expr.text, [4], {"stat": 2})) == "1d20 + stat: [4] + stat(2) = 6"
    expr = parse("1d6r1")
    assert "rerolled 1" in render_roll(expr, roll_given(expr.text, [1, 4]))


# -- sources and errors while rolling ---------------------------------------------

def test_given_source_too_few():
    with pytest.raises(BadParameter, match="not enough given dice"):
        parse("3d6").roll({}, GivenSource([1, 2]))


def test_given_source_left_over():
    source = GivenSource([1, 2, 3, 4, 5, 6])
    parse("3d6").roll({}, source)
    assert source.remaining() == 3
    with pytest.raises(BadParameter, match="3 given dice were not used: 4, 5, 6"):
        source.check_exhausted()


def test_given_source_impossible_face():
    with pytest.raises(BadParameter, match="given die 0 is not a face of a d10"):
        parse("1d10").roll({}, GivenSource([0]))
    with pytest.raises(BadParameter, match="given die 7 is not a face of a d6"):
        parse("1d6").roll({}, GivenSource([7]))


def test_random_source_is_repeatable_with_a_seed():
    expr = parse("10d10x10cs>=8")
    a = [expr.roll({}, RandomSource(random.Random(9))).value for _ in range(3)]
    b = [expr.roll({}, RandomSource(random.Random(9))).value for _ in range(3)]
    assert a == b


def test_limit_too_many_explosions_in_a_row():
    with pytest.raises(LimitExceeded, match="exploded more than 100 times"):
        parse("1d6x").roll({}, GivenSource([6] * 101 + [1]))


def test_limit_explosions_count_toward_the_dice_limit():
    with pytest.raises(LimitExceeded, match="more than 1000 dice"):
        parse("1000d2x").roll({}, GivenSource([2] * 1000))


def test_limit_dynamic_count():
    with pytest.raises(LimitExceeded, match="at most 1000"):
        parse("(n)d6").roll({"n": 1001}, GivenSource([]))


def test_negative_dice_count_is_an_error_and_zero_is_fine():
    with pytest.raises(EvaluationError, match="negative"):
        parse("(n)d6").roll({"n": -1}, GivenSource([]))
    assert parse("(n)d6").roll({"n": 0}, GivenSource([])).value == 0


def test_unknown_and_bad_names():
    with pytest.raises(UnknownName, match="stat"):
        parse("1d20+stat").roll({}, GivenSource([3]))
    with pytest.raises(BadParameter, match="whole number or a dice expression"):
        parse("1d20+stat").roll({"stat": "high"}, GivenSource([3]))


def test_division_by_zero():
    with pytest.raises(EvaluationError, match="division by zero"):
        parse("1d6 // (1d2 - 1)").roll({}, GivenSource([3, 1]))


def test_self_referring_dice_parameter_stops():
    env: dict = {}
    env["a"] = parse("a + 1")
    with pytest.raises(LimitExceeded, match="refer to each other"):
        parse("a").roll(env, GivenSource([]))


# -- the roll command ----------------------------------------------------------------

def test_roll_command_json_matches_the_contract():
    out = run_roll("5d10x10cs>=8", "--dice", "1,3,5,7,10,8", "--json")
    assert out.exit_code == 0
    data = json.loads(out.output)
    for key, value in EXAMPLE_JSON.items():
        assert data[key] == value


def test_roll_command_text():
    out = run_roll("5d10x10cs>=8", "--dice", "1,3,5,7,10,8")
    assert out.output.strip() == "5d10x10cs>=8: [1, 3, 5, 7, 10 → 8] = 2 successes"


def test_roll_command_seed_repeats():
    first = run_roll("4d6kh3", "--seed", "42", "--json").output
    assert first == run_roll("4d6kh3", "--seed", "42", "--json").output


def test_roll_command_variables():
    out = run_roll("1d20+mod", "--dice", "10", "--set", "mod=3")
    assert out.output.strip().endswith("= 13")


@pytest.mark.parametrize("args, words", [
    (["3d6", "--dice", "1,2"], "--dice: 2 dice given; 3d6 wanted a 3rd"),
    (["1d6", "--dice", "1,2,3"], "2 given dice were not used: 2, 3"),
    (["1d10", "--dice", "11"], "given die 11 is not a face of a d10"),
    (["2d6q"], "unknown dice modifier"),
    (["1d1x"], "explodes forever"),
])
def test_roll_command_errors_exit_1_on_one_line(args, words):
    out = run_roll(*args)
    assert out.exit_code == 1
    assert words in out.output and "Traceback" not in out.output
    assert len(out.output.strip().splitlines()) == 1


def test_roll_command_bad_usage_exits_2():
    assert run_roll("1d6", "--dice", "1,x").exit_code == 2
    assert run_roll("1d6", "--seed", "1", "--dice", "1").exit_code == 2
    assert run_roll().exit_code == 2


def test_a_die_shows_its_value_once_and_everything_that_happened_to_it():
    from interpreter.dice.trace import Die

    assert repr(Die(1, 6)) == "Die(1, d6)"
    assert repr(Die(3, 10, kept=False, exploded=True, deducted=True)) == \
        "Die(3, d10, kept=False, exploded=True, deducted=True)"
    assert repr(Die(6, 6, rerolled=(1,), success=True)) == "Die(6, d6, rerolled=(1,), success=True)"
    assert repr(Die(1, 6, success=False)) == "Die(1, d6, success=False)"
