"""Exact odds of a block of `let`, `stop`, `decide` and `contest` steps after a roll, checked against
brute-force enumeration written here, their errors against a sampled run's, and the merging of worlds."""

from __future__ import annotations

import itertools
from collections import defaultdict
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from interpreter.dice import expr as dice
from interpreter.errors import RulesError
from interpreter.pipeline import compile_ref
from interpreter.procedure.odds import odds as procedure_odds
from interpreter.procedure.run import run as run_once

RULESET = """\
ruleset: written
title: Written runs
constants: {edge: 3}
tables:
  bonus_for:
    rows:
      - {on: [1, 3], value: 0}
      - {on: [4, 6], value: 2}
procedures:
  mixed:
    params:
      bonus: {type: int, default: 0}
      divisor: {type: int, default: 2}
    outcomes: {win: the actor wins, lose: the defender wins, bust: two ones, great: a big win}
    values: {total: the actor's total, margin: actor minus defender, level: whether it tied, half: total halved}
    steps:
      - roll: {a: 1d6, b: 1d6, c: 1d4}
      - let: {total: a + b + bonus + bonus_for(a), half: "total // divisor"}
      - stop: a == 1 and b == 1
        outcome: bust
      - contest: {actor: total, defender: c * edge, ties: defender, win: win, lose: lose, margin: margin, tied: level}
      - decide:
          - {when: margin >= 6 and not level, outcome: great}
      - let: {total: "clamp(max(total, c, half) - min(a, b), 0, 9)"}
  stops_without_outcome:
    outcomes: {low: low, high: high}
    values: {kept: the roll}
    steps:
      - roll: {kept: 1d6}
      - decide: [{when: kept <= 2, outcome: low}, {outcome: high}]
      - stop: kept == 6
      - let: {kept: kept * 10}
"""


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path: Path = tmp_path_factory.mktemp("written") / "written.yaml"
    path.write_text(RULESET, encoding="utf-8")
    return compile_ref(str(path))


def mixed_by_hand(bonus: int, divisor: int) -> tuple[dict[str, Fraction], dict[str, dict[Any, Fraction]]]:
    outcomes: dict[str, Fraction] = defaultdict(Fraction)
    values: dict[str, dict[Any, Fraction]] = {v: defaultdict(Fraction) for v in ("total", "margin", "level", "half")}
    for a, b, c in itertools.product(range(1, 7), range(1, 7), range(1, 5)):
        p = Fraction(1, 6 * 6 * 4)
        total = a + b + bonus + (2 if a >= 4 else 0)
        half = total // divisor
        margin: Any = None
        level: Any = None
        if a == 1 and b == 1:
            outcome = "bust"
        else:
            margin, level = total - 3 * c, total == 3 * c
            outcome = "win" if total > 3 * c else "lose"
            if margin >= 6 and not level:
                outcome = "great"
            total = max(0, min(max(total, c, half) - min(a, b), 9))
        outcomes[outcome] += p
        for name, value in (("total", total), ("margin", margin), ("level", level), ("half", half)):
            values[name][value] += p
    return outcomes, values


@pytest.mark.parametrize("bonus, divisor", [(0, 2), (3, 3), (-4, 5)])
def test_a_run_of_one_to_one_steps_gives_the_enumerated_odds(written: Any, bonus: int, divisor: int) -> None:
    outcomes, values = mixed_by_hand(bonus, divisor)
    odds = procedure_odds(written, "mixed", {"bonus": bonus, "divisor": divisor})
    assert odds.exact
    assert odds.outcomes == {o: outcomes.get(o, Fraction(0)) for o in ("win", "lose", "bust", "great")}
    for name, dist in values.items():
        assert dict(odds.values[name]) == {k: v for k, v in dist.items() if v}, name


def test_a_world_stopped_without_an_outcome_keeps_the_one_it_had(written: Any) -> None:
    odds = procedure_odds(written, "stops_without_outcome", {})
    assert odds.outcomes == {"low": Fraction(1, 3), "high": Fraction(2, 3)}
    assert odds.values["kept"] == {10: Fraction(1, 6), 20: Fraction(1, 6), 30: Fraction(1, 6), 40: Fraction(1, 6),
                                   50: Fraction(1, 6), 6: Fraction(1, 6)}


def test_an_error_in_exact_odds_is_the_sampled_runs_error(written: Any) -> None:
    """A division by zero in the second `let` formula: the same message at the same place."""
    with pytest.raises(RulesError) as exact:
        procedure_odds(written, "mixed", {"divisor": 0})
    with pytest.raises(RulesError) as sampled:
        run_once(written, "mixed", {"divisor": "0"}, dice.GivenSource([3, 4, 2]))
    assert str(exact.value) == str(sampled.value)
    assert "division by zero" in str(exact.value)


def test_merged_weights_add_up_exactly_whatever_their_denominators() -> None:
    """Merging adds ratios over one denominator as integers and the rest as fractions: the sums are
    those of Fraction arithmetic, and the first world of each state is kept."""
    from interpreter.procedure.merging import Merger
    from interpreter.procedure.state import State
    from interpreter.procedure.weights import Ratio, exact

    merge = Merger().merge

    six = 6 ** 20
    weights = [Ratio(1, six), Ratio(5, six), Ratio(3, 4), Fraction(1, 3), Ratio(7, six), 1, Ratio(2, six * 5)]
    worlds = [(State({"x": i % 2, "y": i}), w) for i, w in enumerate(weights)]
    merged = merge(worlds, ("x",))
    assert [w.env["y"] for w, _ in merged] == [0, 1]
    expected = [sum((Fraction(w.num, w.den) if isinstance(w, Ratio) else Fraction(w) for w in weights[k::2]),
                    Fraction(0)) for k in (0, 1)]
    assert [exact(p) for _, p in merged] == expected


@pytest.mark.parametrize("count", [3, 20])
def test_worlds_merge_by_many_names_even_when_some_are_unbound(count: int) -> None:
    """Keys of many names (a sheet's) are read in one lookup; a world missing one of them is still told
    apart from one where it is bound."""
    from interpreter.procedure.merging import Merger
    from interpreter.procedure.state import State
    from interpreter.procedure.weights import Ratio, exact

    merge = Merger().merge

    names = tuple(f"n{i}" for i in range(count))
    envs = [{n: 0 for n in names}, {n: 0 for n in names[1:]}, {**{n: 0 for n in names}, names[-1]: 1},
            {n: 0 for n in names}, {n: 0 for n in names[1:]}, {n: None for n in names}]
    worlds = [(State(env), Ratio(i + 1, 21)) for i, env in enumerate(envs)]
    merged = merge(worlds, names)
    assert [exact(p) for _, p in merged] == [Fraction(5, 21), Fraction(7, 21), Fraction(3, 21), Fraction(6, 21)]
