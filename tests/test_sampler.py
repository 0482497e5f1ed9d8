"""The sampling fast path (procedure.sampler): a procedure written as one function, checked against the
traced runner on the same numbers, against given dice, and against the exact odds."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import pytest

import interpreter
from interpreter.dice.expr import GivenSource, RandomSource
from interpreter.errors import BadParameter, EvaluationError, LimitExceeded, RulesError
from interpreter.procedure import sampler
from interpreter.procedure.run import run as run_once
from tests.helpers import assert_sampling_matches_odds, ruleset

BENCH = [("lockwood", "check", {"stat": 12, "dc": 15}), ("nwod", "action", {"pool": 5}),
         ("wwn", "attack", {"bonus": 3, "ac": 14, "damage": "1d8", "shock": 2, "shock_ac": 13})]


def text(params: Mapping[str, Any]) -> dict[str, str]:
    return {k: (str(v).lower() if isinstance(v, bool) else str(v)) for k, v in params.items()}


def traced(ref: str, name: str, params: Mapping[str, Any], source: Any) -> tuple[Any, ...]:
    result = run_once(ruleset(ref), name, text(params), source)
    return (result.outcome, *result.values.values())


def bundled_samples() -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for ref in ("lockwood", "nwod", "rollunder", "wwn"):
        for name, proc in ruleset(ref).procedures.items():
            if proc.sheet != "required":
                out += [(ref, name, dict(params)) for params in proc.samples or [{}]]
    return out


CASES = bundled_samples() + [
    ("lockwood", "check", {"stat": 12, "dc": 15, "disadvantage": True, "luck": 3}),
    ("lockwood", "check", {"stat": 12, "dc": 15, "advantage": True, "disadvantage": True}),
    ("nwod", "action", {"pool": 7, "again": 8, "mod": -2}),
    ("wwn", "attack", {"bonus": 3, "ac": 12, "damage": "2d6kh1", "shock": 2, "shock_ac": 13}),
    ("wwn", "attack", {"bonus": 3, "ac": 12, "damage": "1d6x", "damage_bonus": -1, "shock": 2, "shock_ac": 13}),
    ("wwn", "attack", {"bonus": 3, "ac": 12, "damage": "4", "shock": 0}),
]


@pytest.mark.parametrize(("ref", "name", "params"), CASES, ids=lambda v: str(v))
def test_a_sampled_run_is_the_traced_run_for_the_same_numbers(ref: str, name: str, params: dict[str, Any]) -> None:
    """Both paths draw the generator's numbers in the same order, so each seed gives one outcome and values."""
    run = sampler.sampler(ruleset(ref), name, text(params))
    for seed in range(150):
        assert run(random.Random(seed)) == traced(ref, name, params, RandomSource(random.Random(seed))), seed


@pytest.mark.parametrize(("ref", "name", "params"), BENCH)
def test_the_benchmarked_procedures_are_written_out(ref: str, name: str, params: dict[str, Any]) -> None:
    assert sampler.written(ruleset(ref), name)


def test_a_procedure_that_updates_a_sheet_is_sampled_by_the_traced_runner() -> None:
    """rollunder learn_ritual writes the sheet in any case, which the writer leaves to the traced runner."""
    assert not sampler.written(ruleset("rollunder"), "learn_ritual")
    run = sampler.sampler(ruleset("rollunder"), "learn_ritual", {"cunning": "12"})
    assert run(random.Random(3)) == traced("rollunder", "learn_ritual", {"cunning": 12}, RandomSource(random.Random(3)))


@pytest.mark.parametrize(("ref", "name"), [("lockwood", "talent"), ("rollunder", "zero_hp")])
def test_a_table_step_is_written_and_agrees_with_the_exact_odds(ref: str, name: str) -> None:
    """L12 talent (a 1d4 table) and R4 zero_hp (a 1d6 table whose rows roll more): rows, outcomes, row rolls."""
    assert sampler.written(ruleset(ref), name)
    assert_sampling_matches_odds(ref, name, {}, n=12000, seed=7)
    value = ruleset(ref).procedures[name].values[-1]
    assert_sampling_matches_odds(ref, name, {}, n=12000, seed=8, value=value)


class Faces:
    """A stand-in generator whose numbers make the given faces on the given dice, in order."""

    def __init__(self, *dice: tuple[int, int]):  # (face, sides)
        self.numbers = [(face - 0.5) / sides for face, sides in dice]

    def random(self) -> float:
        return self.numbers.pop(0)


def given_both(ref: str, name: str, params: Mapping[str, Any], *dice: tuple[int, int]) -> tuple[Any, ...]:
    """The sampled run on these faces, checked to be the traced run on the same given dice."""
    fake = Faces(*dice)
    got = sampler.sampler(ruleset(ref), name, text(params))(fake)  # type: ignore[arg-type]
    assert not fake.numbers, "every given die is used"
    source = GivenSource([face for face, _ in dice])
    assert got == traced(ref, name, params, source)
    source.check_exhausted()
    return got


def test_L3_a_natural_20_is_a_critical_success_in_a_sampled_run() -> None:
    assert given_both("lockwood", "check", {"stat": 1, "dc": 30}, (20, 20)) == ("critical_success", 20, 21)
    assert given_both("lockwood", "check", {"stat": 12, "dc": 15}, (1, 20)) == ("critical_failure", 1, 13)
    assert given_both("lockwood", "check", {"stat": 12, "dc": 15}, (3, 20)) == ("success", 3, 15)


def test_L2_advantage_keeps_the_better_d20_in_a_sampled_run() -> None:
    assert given_both("lockwood", "check", {"stat": 0, "dc": 10, "advantage": True},
                      (4, 20), (17, 20)) == ("success", 17, 17)
    assert given_both("lockwood", "check", {"stat": 0, "dc": 10, "disadvantage": True},
                      (4, 20), (17, 20)) == ("failure", 4, 4)


def test_N3_tens_roll_again_in_a_sampled_run() -> None:
    """Five dice 10, 8, 3, 1, 2 and the 10's extra die 9: three successes (N1, N3)."""
    got = given_both("nwod", "action", {"pool": 5}, (10, 10), (8, 10), (3, 10), (1, 10), (2, 10), (9, 10))
    assert got[:2] == ("success", 3)


def test_W20_W21_a_hit_rolls_its_damage_in_a_sampled_run() -> None:
    attack = {"bonus": 3, "ac": 14, "damage": "1d8", "shock": 2, "shock_ac": 13}
    assert given_both("wwn", "attack", attack, (11, 20), (5, 8)) == ("hit", 11, 5)
    assert given_both("wwn", "attack", attack, (10, 20)) == ("miss", 10, 0)  # AC 14 is past the Shock's 13


@pytest.mark.parametrize(("ref", "name", "params"), BENCH + [
    ("lockwood", "check", {"stat": 12, "dc": 15, "advantage": True}),
    ("nwod", "action", {"pool": 2, "again": 8}),
    ("wwn", "attack", {"bonus": 3, "ac": 12, "damage": "1d6", "shock": 2, "shock_ac": 13})])
def test_sampled_frequencies_agree_with_the_exact_odds(ref: str, name: str, params: dict[str, Any]) -> None:
    assert sampler.written(ruleset(ref), name)
    assert_sampling_matches_odds(ref, name, params, n=20000, seed=2024)
    first_value = ruleset(ref).procedures[name].values[0]
    assert_sampling_matches_odds(ref, name, params, n=20000, seed=2025, value=first_value)


DIVIDES = """ruleset: divides
title: Divides
constants: {big: 9223372036854775807}
dice: {die: 1d6}
procedures:
  split:
    summary: a share that cannot be worked out on a 1
    params: {}
    outcomes: {done: always}
    values: {share: 12 divided by one less than the die}
    steps:
      - roll: {natural: die}
      - let: {share: 12 // (natural - 1)}
      - decide: [{outcome: done}]
  grow:
    summary: too large past a 1
    params: {}
    outcomes: {done: always}
    values: {size: the die times the largest number}
    steps:
      - roll: {natural: die}
      - let: {size: natural * big}
      - decide: [{outcome: done}]
"""


def test_an_error_in_a_sample_is_the_traced_runners_with_its_place(tmp_path: Any) -> None:
    path = tmp_path / "divides.yaml"
    path.write_text(DIVIDES, encoding="utf-8")
    rs = ruleset(str(path))
    assert sampler.written(rs, "split")
    with pytest.raises(RulesError) as sampled:
        sampler.sample(rs, "split", {}, 1000, seed=5)
    seed_rng = random.Random(5)
    run = sampler.sampler(rs, "split", {})
    with pytest.raises(RulesError) as direct:
        for _ in range(1000):
            run(seed_rng)
    source = RandomSource(random.Random(5))
    with pytest.raises(RulesError) as by_runner:
        for _ in range(1000):
            run_once(rs, "split", {}, source)
    assert "division by zero in '12 // (natural - 1)'" in str(by_runner.value)
    assert str(by_runner.value).startswith(str(path))  # placed in the ruleset
    assert str(sampled.value) == str(by_runner.value)
    assert direct.value.message == by_runner.value.message


def test_a_value_out_of_range_stops_a_sampled_run_as_it_stops_a_traced_one(tmp_path: Any) -> None:
    path = tmp_path / "divides.yaml"
    path.write_text(DIVIDES, encoding="utf-8")
    rs = ruleset(str(path))
    run = sampler.sampler(rs, "grow", {})
    seen = []
    for seed in range(20):
        outcomes: list[Any] = []
        for attempt in (lambda s=seed: run(random.Random(s)),
                        lambda s=seed: traced(str(path), "grow", {}, RandomSource(random.Random(s)))):
            try:
                outcomes.append(attempt())
            except EvaluationError as err:
                outcomes.append(err.message)
        assert outcomes[0] == outcomes[1]
        seen.append(outcomes[0])
    assert "integer out of range in 'natural * big'" in seen and ("done", 1 * 9223372036854775807) in seen


def test_sample_counts_every_run_and_repeats_with_a_seed() -> None:
    first = interpreter.sample("lockwood", "check", {"stat": 12, "dc": 15}, times=500, seed=9)
    again = interpreter.sample("lockwood", "check", {"stat": 12, "dc": 15}, times=500, seed=9)
    assert first == again
    assert sum(first.outcomes.values()) == 500 == sum(first.values["natural"].values())
    assert set(first.values["natural"]) <= set(range(1, 21))
    # one run of random.Random(s) here is what run(..., seed=s) gives
    one = interpreter.sample("lockwood", "check", {"stat": 12, "dc": 15}, times=1, seed=4)
    result = interpreter.run("lockwood", "check", {"stat": 12, "dc": 15}, seed=4)
    assert one.outcomes[result.outcome] == 1 and one.values["total"] == {result.values["total"]: 1}


def test_sample_refuses_a_count_out_of_bounds() -> None:
    with pytest.raises(BadParameter, match="times must be a whole number of at least 1"):
        interpreter.sample("lockwood", "check", {"stat": 12, "dc": 15}, times=0)
    with pytest.raises(LimitExceeded, match="a sample is 1 to 1000000 runs"):
        interpreter.sample("lockwood", "check", {"stat": 12, "dc": 15}, times=2_000_000)


LOOPS = """ruleset: loops
title: Loops
procedures:
  spin:
    summary: a loop that never ends by itself
    params: {}
    outcomes: {done: always}
    values: {n: passes}
    steps:
      - let: {n: 0}
      - while: n >= 0
        steps:
          - let: {n: n + 1}
      - decide: [{outcome: done}]
  heavy:
    summary: more dice than a run may roll
    params: {times: {type: int}}
    outcomes: {done: always}
    values: {total: the last roll}
    steps:
      - let: {total: 0}
      - repeat: times
        steps:
          - roll: {total: 1000d6}
      - decide: [{outcome: done}]
  long:
    summary: more steps than a run may take
    params: {}
    outcomes: {done: always}
    values: {n: passes}
    steps:
      - let: {n: 0}
      - repeat: 1000
        steps:
          - repeat: 100
            steps:
              - let: {n: n + 1}
      - decide: [{outcome: done}]
"""


@pytest.mark.parametrize(("name", "params", "message"), [
    ("spin", {}, "a loop ran more than 1000 times"),
    ("heavy", {"times": 101}, "the procedure rolls more than 100000 dice"),
    ("long", {}, "the procedure needs more than 100000 steps")])
def test_a_written_run_stops_at_the_limits_the_traced_run_stops_at(tmp_path: Any, name: str, params: dict[str, Any],
                                                                    message: str) -> None:
    path = tmp_path / "loops.yaml"
    path.write_text(LOOPS, encoding="utf-8")
    rs = ruleset(str(path))
    assert sampler.written(rs, name, text(params))
    with pytest.raises(LimitExceeded) as written:
        sampler.sampler(rs, name, text(params))(random.Random(1))
    with pytest.raises(LimitExceeded) as by_runner:
        run_once(rs, name, text(params), RandomSource(random.Random(1)))
    assert message in by_runner.value.message
    assert str(written.value) == str(by_runner.value)  # the same words at the same place


def test_a_written_run_just_under_the_dice_limit_finishes(tmp_path: Any) -> None:
    path = tmp_path / "loops.yaml"
    path.write_text(LOOPS, encoding="utf-8")
    rs = ruleset(str(path))
    got = sampler.sampler(rs, "heavy", {"times": "100"})(random.Random(2))
    assert got == traced(str(path), "heavy", {"times": 100}, RandomSource(random.Random(2)))
    assert 1000 <= got[1] <= 6000


def test_N6_an_extended_roll_is_written_and_agrees_with_the_exact_odds() -> None:
    params = {"pool": 5, "required": 5, "max_rolls": 3}
    assert sampler.written(ruleset("nwod"), "extended", text(params))
    assert_sampling_matches_odds("nwod", "extended", params, n=12000, seed=11)
    assert_sampling_matches_odds("nwod", "extended", params, n=12000, seed=12, value="successes")


@pytest.mark.parametrize("name", ["find", "guarded", "defaulted"])
def test_a_name_a_table_row_leaves_absent_is_absent_in_a_written_run_too(tmp_path: Any, name: str) -> None:
    """Rows binding different names (docs/format.md, "table"): reported as no value, an error when read."""
    from tests.test_table_absent import LOOT

    path = tmp_path / "loot.yaml"
    path.write_text(LOOT, encoding="utf-8")
    rs = ruleset(str(path))
    assert sampler.written(rs, name)
    run = sampler.sampler(rs, name, {})
    seen = set()
    for seed in range(60):
        got = []
        for attempt in (lambda s=seed: run(random.Random(s)),
                        lambda s=seed: traced(str(path), name, {}, RandomSource(random.Random(s)))):
            try:
                got.append(attempt())
            except EvaluationError as err:
                got.append(err.message)
        assert got[0] == got[1], seed
        seen.add(got[0] if isinstance(got[0], str) else got[0][0])
    assert len(seen) >= 3  # every row came up (and in `guarded`, the error of a row without a gem)
