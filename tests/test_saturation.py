"""Exact outcome odds through endless explosions (issue 16 item 4): saturated totals in procedures.

The oracle enumerates each die's explosion chain until the successes reach the bound compared
with; past it every chain counts as "at least the bound", so the enumeration is exact.
"""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction

import pytest

from interpreter.dice.atleast import AtLeast, Undecided


def successes_at_least(dice: int, target: int, again: int, bound: int) -> dict[int, Fraction]:
    """min(successes, bound) of `dice` d10s counting faces >= target, re-rolling faces >= again."""
    one: Counter[int] = Counter()

    def walk(got: int, p: Fraction) -> None:
        for face in range(1, 11):
            total = got + (face >= target)
            q = p / 10
            if total >= bound:
                one[bound] += q
            elif face >= again:
                walk(total, q)
            else:
                one[total] += q
    walk(0, Fraction(1))
    pool = {0: Fraction(1)}
    for _ in range(dice):
        nxt: Counter[int] = Counter()
        for a, p in pool.items():
            for b, q in one.items():
                nxt[min(a + b, bound)] += p * q
        pool = dict(nxt)
    return pool


def odds_json(rules, *args):
    result = rules("odds", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_N3_nwod_action_five_dice_outcomes_are_exact_fractions(rules):
    data = odds_json(rules, "nwod", "action", "pool=5")
    want = successes_at_least(5, 8, 10, 5)
    assert Fraction(data["exact"]["exceptional_success"]) == want[5] == Fraction(1013853, 50000000)
    assert Fraction(data["exact"]["failure"]) == want[0] == Fraction(16807, 100000)
    assert "truncated" not in data
    successes = data["values"]["successes"]
    assert 0 < successes["truncated"] < 1e-12 and "exact" not in successes
    assert data["values"]["chance"]["exact"] == {"false": "1/1"}


@pytest.mark.parametrize("pool,again", [(1, 10), (3, 9), (8, 8), (12, 10)])
def test_N3_nwod_action_outcomes_match_enumeration(rules, pool, again):
    data = odds_json(rules, "nwod", "action", f"pool={pool}", f"again={again}")
    want = successes_at_least(pool, 8, again, 5)
    assert Fraction(data["exact"]["exceptional_success"]) == want[5]
    assert Fraction(data["exact"]["failure"]) == want[0]
    assert Fraction(data["exact"]["success"]) == 1 - want[0] - want[5]


def test_text_says_the_outcomes_are_exact_and_the_value_is_cut(rules):
    result = rules("odds", "nwod", "action", "pool=5")
    assert "1013853/50000000" in result.output
    assert "(successes: its endless largest values are left out" in result.output


def test_a_formula_that_needs_the_exact_total_falls_back_to_the_cut_off(rules, tmp_path):
    path = tmp_path / "rest.yaml"
    path.write_text("""ruleset: rest
title: Rest
procedures:
  rest:
    summary: the exploding total's remainder by 6 against 3
    outcomes: {high: at least 3, low: less}
    steps:
      - roll: {total: 1d6x}
      - let: {rest: total % 6}
      - decide:
          - {when: rest >= 3, outcome: high}
          - {outcome: low}
""", encoding="utf-8")
    data = odds_json(rules, str(path), "rest")
    assert "exact" not in data and 0 < data["truncated"] < 1e-12
    assert abs(data["outcomes"]["high"] - 3 / 5) < 1e-12  # the last die, a 1 to 5 alike, is the remainder
    assert data["inexact"] == "a formula takes a remainder (%) of an exploding total, which its lower bound " \
        "does not settle"
    shown = rules("odds", str(path), "rest").output.splitlines()
    assert shown[-1] == f"(not exact fractions: {data['inexact']})"


def test_arithmetic_that_keeps_the_order_of_an_exploding_total_stays_exact(rules, tmp_path):
    path = tmp_path / "halves.yaml"
    path.write_text("""ruleset: halves
title: Halves
procedures:
  half:
    summary: half the exploding total, rounded down, against 3
    outcomes: {high: at least 3, low: less}
    values: {half: half the total}
    steps:
      - roll: {total: 1d6x}
      - let: {half: "max(0, (total - 1) // 2 * 3 - 2)"}
      - decide:
          - {when: half >= 7, outcome: high}
          - {outcome: low}
""", encoding="utf-8")
    data = odds_json(rules, str(path), "half")
    # (t - 1) // 2 * 3 - 2 >= 7 when t >= 7: a six, then anything
    assert data["exact"] == {"high": "1/6", "low": "5/6"} and "truncated" not in data
    assert 0 < data["values"]["half"]["truncated"] < 1e-12


def test_at_least_answers_only_what_its_bound_settles():
    a = AtLeast(16)
    assert a >= 5 and a > 15 and (a == 3) is False and a != 7 and not a < 16
    assert sorted([3, a, 1]) == [1, 3, a]  # the int on the left asks the bound (reflected comparison)
    assert a + 2 == AtLeast(18) and 3 + a == AtLeast(19) and a * 2 == AtLeast(32) and a - 1 == AtLeast(15)
    assert min(a, 5) == 5 and max(a, 5) is a and bool(a)
    assert (a - 4) // 4 == AtLeast(3) and (a - 4) // 4 * 2 + 1 == AtLeast(7)
    for ask in (lambda: a >= 17, lambda: a == 16, lambda: int(a), lambda: -a, lambda: 20 - a, lambda: a % 2,
                lambda: a < 40, lambda: a * -1, lambda: a // -2, lambda: (a - 4) // 4 >= 5):
        with pytest.raises(Undecided):
            ask()
    with pytest.raises(Undecided) as asked:
        (a - 4) // 4 * 2 >= 9  # noqa: B015  (a total of 24 or more settles it: 2 * ((24 - 4) // 4) = 10)
    assert asked.value.need == 24


@pytest.mark.parametrize("trait,want", [(8, Fraction(13, 16)), (6, Fraction(3, 4)), (4, Fraction(5, 8))])
def test_trait_or_wild_die_through_a_named_group_is_exact(rules, tmp_path, trait, want):
    """docs/format.md's example: keep the better of an exploding trait die and wild die, against 4.

    Below 4 neither die explodes (a d4 shows 4 only by reaching it), so P(fail) = P(trait < 4) * P(wild < 4).
    """
    path = tmp_path / "wild.yaml"
    path.write_text(f"""ruleset: wild
title: Wild
dice:
  trait_or_wild: "{{1d(trait)x, 1d6x}}kh1"
procedures:
  trait:
    summary: trait test
    params:
      trait: {{type: int, default: {trait}}}
    outcomes: {{success: four or more, failure: less}}
    steps:
      - roll: {{got: trait_or_wild}}
      - decide:
          - {{when: got >= 4, outcome: success}}
          - {{outcome: failure}}
""", encoding="utf-8")
    data = odds_json(rules, str(path), "trait")
    assert want == 1 - Fraction(3, trait) * Fraction(3, 6)
    assert Fraction(data["exact"]["success"]) == want
