"""Exact odds run a stretch of `let`, `stop`, `decide` and `contest` steps as one written-out function
(procedure.batch). Its odds are checked against brute-force enumeration written here, and its errors
against the traced runner's, which runs the same steps one by one."""

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
from interpreter.procedure import batch
from interpreter.procedure.odds import odds as procedure_odds
from interpreter.procedure.run import run as run_once


@pytest.fixture(autouse=True)
def _always_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every stretch here is written out, however few worlds it runs over."""
    monkeypatch.setattr(batch, "WORTH", 0)


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


def test_the_steps_are_written_out_once_and_reused(written: Any) -> None:
    steps = written.procedures["mixed"].steps[1:5]
    assert [s.kind for s in steps] == ["let", "stop", "contest", "decide"]
    run = batch.written(steps)
    assert run is not None
    assert batch.written(steps) is run


def test_an_error_in_a_written_run_is_the_traced_runners_error(written: Any) -> None:
    """A division by zero in the second `let` formula: the same message at the same place."""
    with pytest.raises(RulesError) as exact:
        procedure_odds(written, "mixed", {"divisor": 0})
    with pytest.raises(RulesError) as sampled:
        run_once(written, "mixed", {"divisor": "0"}, dice.GivenSource([3, 4, 2]))
    assert str(exact.value) == str(sampled.value)
    assert "division by zero" in str(exact.value)


def test_merged_weights_add_up_exactly_whatever_their_denominators() -> None:
    """worlds.merge adds ratios over one denominator as integers and the rest as fractions: the sums are
    those of Fraction arithmetic, and the first world of each state is kept."""
    from interpreter.procedure.weights import Ratio, exact
    from interpreter.procedure.worlds import World, merge

    six = 6 ** 20
    weights = [Ratio(1, six), Ratio(5, six), Ratio(3, 4), Fraction(1, 3), Ratio(7, six), 1, Ratio(2, six * 5)]
    worlds = [(World({"x": i % 2, "y": i}), w) for i, w in enumerate(weights)]
    merged = merge(worlds, ("x",))
    assert [w.env["y"] for w, _ in merged] == [0, 1]
    expected = [sum((Fraction(w.num, w.den) if isinstance(w, Ratio) else Fraction(w) for w in weights[k::2]),
                    Fraction(0)) for k in (0, 1)]
    assert [exact(p) for _, p in merged] == expected


def test_a_written_run_merges_as_merge_does(written: Any) -> None:
    """The written function that merges as it goes gives the worlds that merging its output gives."""
    from interpreter.procedure.weights import Ratio, exact
    from interpreter.procedure.worlds import World, merge

    steps = written.procedures["mixed"].steps[1:5]
    base = {**written.constants, "outcome": 0, "win": 1, "lose": 2, "bust": 3, "great": 4, "bonus": 1, "divisor": 2}
    worlds = [(World({**base, "a": a, "b": b, "c": c}, stopped=(a == 6 and c == 1)), Ratio(a + b, 6 ** 3))
              for a, b, c in itertools.product(range(1, 7), range(1, 7), range(1, 5))]
    worlds += [(World({**base, "a": 2, "b": 2, "c": 2}), Fraction(1, 7)), (World({**base, "a": 2, "b": 2, "c": 2}), 0.25)]
    names = ("half", "margin", "total")
    functions = {"bonus_for": lambda a: 2 if a >= 4 else 0}
    listed = batch.written(steps)
    merging = batch.written(steps, names)
    assert listed is not None and merging is not None

    def shown(ws: Any) -> list[Any]:
        return [(tuple(w.env.get(n) for n in names), w.outcome, w.stopped, exact(p)) for w, p in ws]
    assert shown(merging(worlds, functions)) == shown(merge(listed(worlds, functions), names))
    assert len(merging(worlds, functions)) < len(worlds)


def test_a_stretch_is_written_only_once_it_has_run_over_enough_worlds(written: Any,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A small question is answered by the step runners (writing costs more than it saves there);
    the same stretch is written once the worlds it has run over pass the threshold, with the same odds."""
    monkeypatch.setattr(batch, "_SEEN", {})
    monkeypatch.setattr(batch, "_RUNS", {})
    monkeypatch.setattr(batch, "WORTH", 10_000)
    first = procedure_odds(written, "mixed", {"bonus": 1, "divisor": 2})
    assert batch._RUNS == {}  # 144 worlds: not worth writing
    monkeypatch.setattr(batch, "WORTH", 200)
    second = procedure_odds(written, "mixed", {"bonus": 1, "divisor": 2})  # 288 worlds seen by now
    assert batch._RUNS != {}
    assert second.outcomes == first.outcomes and second.values == first.values


@pytest.mark.parametrize("count", [3, 20])
def test_worlds_merge_by_many_names_even_when_some_are_unbound(count: int) -> None:
    """Keys of many names (a sheet's) are read in one lookup; a world missing one of them is still told
    apart from one where it is bound, in worlds.merge and in a written stretch alike."""
    from interpreter.procedure.weights import Ratio, exact
    from interpreter.procedure.worlds import World, merge

    names = tuple(f"n{i}" for i in range(count))
    envs = [{n: 0 for n in names}, {n: 0 for n in names[1:]}, {**{n: 0 for n in names}, names[-1]: 1},
            {n: 0 for n in names}, {n: 0 for n in names[1:]}, {n: None for n in names}]
    worlds = [(World(env), Ratio(i + 1, 21)) for i, env in enumerate(envs)]
    merged = merge(worlds, names)
    assert [exact(p) for _, p in merged] == [Fraction(5, 21), Fraction(7, 21), Fraction(3, 21), Fraction(6, 21)]

    let = one_let_step(names)
    run = batch.written((let,), names)
    assert run is not None
    out = run(worlds, {})
    assert [exact(p) for _, p in out] == [Fraction(5, 21), Fraction(7, 21), Fraction(3, 21), Fraction(6, 21)]
    assert all(w.env["x"] == 1 for w, _ in out)


def one_let_step(names: tuple[str, ...]) -> Any:
    """A `let: {x: 1}` step, compiled."""
    from interpreter.errors import Location
    from interpreter.formula.compile import compile_formula
    from interpreter.ruleset.specs import Assign, Let, Step

    where = Location("<test>", 1, 1)
    return Step("let", Let((Assign("x", compile_formula("1", names=names), where),)), where)
