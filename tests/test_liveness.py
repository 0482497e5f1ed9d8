"""Liveness: each compiled step knows which written names are still read later (or reported), and exact
odds tell worlds apart by those alone. Checked on small rulesets written here, and on the result: the odds
with merging by live names equal brute-force enumeration."""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter.pipeline import compile_ref
from interpreter.procedure.odds import odds as procedure_odds
from interpreter.procedure.worlds import World
from interpreter.ruleset.liveness import SHEET
from interpreter.ruleset.specs import walk

RULESET = """\
ruleset: live
title: Liveness
procedures:
  later_decide:
    outcomes: {high: high, low: low}
    steps:
      - roll: {a: 1d6, unused: 1d4}
      - let: {b: a * 2}
      - let: {c: 1}
      - decide: [{when: a > 3, outcome: high}, {outcome: low}]
  helper:
    params: {n: {type: int}}
    outcomes: {done: done}
    values: {total: the sum}
    steps:
      - roll: {x: (n)d6}
      - let: {total: x}
      - decide: [{outcome: done}]
  caller:
    outcomes: {even: even, odd: odd}
    values: {got: what the helper gave}
    steps:
      - let: {k: 2}
      - call: helper
        with: {n: k}
        as: h
      - let: {got: h_total}
      - decide: [{when: got % 2 == 0, outcome: even}, {outcome: odd}]
  inner:
    outcomes: {done: done}
    values: {x: the inner roll}
    steps:
      - roll: {x: 1d4}
      - decide: [{outcome: done}]
  outer:
    outcomes: {done: done}
    values: {x: the outer roll, y: the inner roll}
    steps:
      - roll: {x: 1d6}
      - call: inner
        as: i
      - let: {y: i_x}
      - decide: [{outcome: done}]
"""


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory):
    path: Path = tmp_path_factory.mktemp("live") / "live.yaml"
    path.write_text(RULESET, encoding="utf-8")
    return compile_ref(str(path))


def _steps(ruleset, name):
    return list(walk(ruleset.procedures[name].steps))


def test_a_name_read_only_by_a_later_decide_stays_live(live):
    roll, let_b, let_c, _ = _steps(live, "later_decide")
    assert "a" in roll.live and "a" in let_b.live and "a" in let_c.live


def test_a_name_never_read_is_dropped(live):
    roll, let_b, let_c, decide = _steps(live, "later_decide")
    for step in (roll, let_b, let_c, decide):
        assert not {"unused", "b", "c"} & set(step.live), step.kind


def test_names_a_called_procedure_reads_are_kept(live):
    let_k, call, let_got, _ = _steps(live, "caller")
    assert "k" in let_k.live  # read by the call's argument
    assert "h_total" in call.live and "h_total" not in let_got.live
    assert "got" in let_got.live  # reported, and read by decide
    helper_roll, helper_let, _ = _steps(live, "helper")
    assert "x" in helper_roll.live and "total" in helper_let.live  # the caller reads the callee's values


def test_names_read_by_sheet_steps_are_kept():
    """rollunder's advance: for_each calls advance_stat on the sheet, so the sheet stays live through it."""
    rs = compile_ref("rollunder")
    steps = list(walk(rs.procedures["advance"].steps))
    for_each = next(s for s in steps if s.kind == "for_each")
    assert SHEET in for_each.live
    assert "hp_gain" in for_each.live  # read by the update after it
    inner_let = next(s for s in for_each.spec.steps if s.kind == "let")
    assert {"hp_gain", "stat"} <= set(inner_let.live)


def test_a_reported_value_is_done_where_no_later_step_reads_or_writes_it():
    rs = compile_ref("nwod")
    steps = rs.procedures["attack"].steps
    contest = next(s for s in steps if s.kind == "contest")
    assert set(contest.done) == {"attack_successes", "defense_successes"}
    assert set(steps[-1].done) >= {"damage", "hits"}


def test_worlds_cannot_be_changed():
    world = World({"a": 1})
    with pytest.raises(AttributeError):
        world.outcome = "x"  # type: ignore[misc]
    assert world.bound("a", 2).env["a"] == 2 and world.env["a"] == 1
    assert world.with_outcome(None).env["outcome"] == 0 and "outcome" not in world.env


def test_odds_merged_by_live_names_equal_brute_force(live):
    """later_decide and caller by enumeration of every roll, with no merging at all."""
    odds = procedure_odds(live, "later_decide", {})
    assert odds.outcomes == {"high": Fraction(1, 2), "low": Fraction(1, 2)}
    counts: dict[str, int] = {"even": 0, "odd": 0}
    for a, b in itertools.product(range(1, 7), repeat=2):
        counts["even" if (a + b) % 2 == 0 else "odd"] += 1
    got: dict[int, int] = {}
    for a, b in itertools.product(range(1, 7), repeat=2):
        got[a + b] = got.get(a + b, 0) + 1
    odds = procedure_odds(live, "caller", {})
    assert odds.outcomes == {k: Fraction(v, 36) for k, v in counts.items()}
    assert odds.values["got"] == {k: Fraction(v, 36) for k, v in sorted(got.items())}



def test_a_value_final_in_the_caller_is_still_told_apart_in_a_callee_of_the_same_name(live):
    """outer's x is final after its first step; inner's own x must still be kept apart while inner runs."""
    odds = procedure_odds(live, "outer", {})
    assert odds.values["x"] == {v: Fraction(1, 6) for v in range(1, 7)}
    assert odds.values["y"] == {v: Fraction(1, 4) for v in range(1, 5)}
