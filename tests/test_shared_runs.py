"""Exact odds work a best_of's kept results out once for all worlds that agree on what its runs read
and write, and merge worlds only where that saves work (not before a step that maps each world to
one, and after an `if` rather than in each branch). Checked against brute-force enumeration."""

from __future__ import annotations

import itertools
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter.pipeline import compile_ref
from interpreter.procedure.odds import odds as procedure_odds

RULESET = """\
ruleset: shared
title: Shared runs
procedures:
  reads_an_earlier_roll:
    outcomes: {high: high, low: low}
    values: {best: the kept tiebreak}
    steps:
      - roll: {a: 1d4}
      - best_of: 2
        tiebreak: t
        steps:
          - roll: {b: 1d6}
          - let: {t: a * b % 5}
      - let: {best: t}
      - decide: [{when: best >= 3, outcome: high}, {outcome: low}]
  reads_nothing_earlier:
    outcomes: {high: high, low: low}
    values: {best: the kept roll plus the earlier one}
    steps:
      - roll: {a: 1d4}
      - if: a > 2
        then:
          - let: {bonus: 1}
        else:
          - roll: {bonus: 1d2}
      - best_of: 2
        worst_when: a == 1
        tiebreak: b
        steps:
          - roll: {b: 1d6}
      - let: {best: b + a + bonus}
      - decide: [{when: best >= 8, outcome: high}, {outcome: low}]
"""


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory):
    path: Path = tmp_path_factory.mktemp("shared") / "shared.yaml"
    path.write_text(RULESET, encoding="utf-8")
    return compile_ref(str(path))


def test_a_best_of_that_reads_an_earlier_roll_is_worked_out_for_each_value_of_it(shared):
    best: dict[int, Fraction] = defaultdict(Fraction)
    for a, b1, b2 in itertools.product(range(1, 5), range(1, 7), range(1, 7)):
        best[max(a * b1 % 5, a * b2 % 5)] += Fraction(1, 4 * 36)
    odds = procedure_odds(shared, "reads_an_earlier_roll", {})
    assert odds.values["best"] == dict(sorted(best.items()))
    assert odds.outcomes["high"] == sum(p for v, p in best.items() if v >= 3)


def test_a_best_of_shared_by_every_world_keeps_each_worlds_own_names_and_worst(shared):
    best: dict[int, Fraction] = defaultdict(Fraction)
    for a, bonus, b1, b2 in itertools.product(range(1, 5), range(1, 3), range(1, 7), range(1, 7)):
        p = Fraction(1, 4 * 36) * (Fraction(1, 2) if a <= 2 else (1 if bonus == 1 else 0))
        kept = min(b1, b2) if a == 1 else max(b1, b2)
        best[kept + a + (bonus if a <= 2 else 1)] += p
    odds = procedure_odds(shared, "reads_nothing_earlier", {})
    assert odds.exact
    assert odds.values["best"] == {k: v for k, v in sorted(best.items()) if v}
    assert odds.outcomes["high"] == sum(p for v, p in best.items() if v >= 8)
