"""Every call of the library that can work long has a budget, and is refused in the library's words within it.

A sample is one whole call (limits.MAX_COMMAND_SECONDS, foreseen from its first runs, however slow each run
is); exact odds are one computation (limits.MAX_ODDS_SECONDS); a run is held to its steps and dice, a roll to
its dice.  Each refusal is a `RulesError` of one line, naming the call's parameters, never a `--flag`.
CPU time is measured in this process.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

import interpreter
from interpreter import limits

# a formula of about a hundred nodes whose value stays small: each run of `slow` is about a thousand of them
FORMULA = "min(" + " + ".join(["max(n, 1) * 2 - min(n, 3)"] * 10) + ", 7) - 3"


def _slow(tmp_path: Path) -> interpreter.Ruleset:
    path = tmp_path / "slow.yaml"
    path.write_text(f"""ruleset: slow
title: Slow
procedures:
  slow:
    outcomes: {{done: done}}
    values: {{n: n}}
    steps:
      - roll: {{n: 1d6}}
      - repeat: 1000
        steps:
          - let: {{n: "{FORMULA}"}}
      - decide: [{{outcome: done}}]
  spin:
    outcomes: {{done: done}}
    steps:
      - repeat: 1000
        steps:
          - repeat: 1000
            steps:
              - let: {{n: 1}}
      - decide: [{{outcome: done}}]
""", encoding="utf-8")
    return interpreter.load_ruleset(path)


def _refused(call: Callable[[], object], within: float) -> str:
    """The one line `call` is refused with, after no more than `within` seconds of CPU time."""
    start = time.process_time()
    with pytest.raises(interpreter.RulesError) as refused:
        call()
    spent = time.process_time() - start
    line = str(refused.value)
    assert spent < within, f"refused after {spent:.2f} s: {line}"
    assert "\n" not in line and "--" not in line
    return line


def test_a_sample_of_slow_runs_is_refused_from_its_first_runs_naming_the_runs_that_fit(tmp_path: Path) -> None:
    slow = _slow(tmp_path)
    # 10,000 runs of a thousand steps are within the work limit, not within the 5 s of one call
    line = _refused(lambda: slow.procedure("slow").sample(times=10_000, seed=1), within=1.0)
    fits = line.rsplit("ask for at most ", 1)[1]
    runs = int(fits.split()[0])
    assert line.startswith("a sample of 10000 runs would need more than 5 s of work in all")
    assert 1 <= runs < 10_000 and f"(times {runs})" in fits


def test_the_function_sample_has_the_same_budget(tmp_path: Path) -> None:
    slow = _slow(tmp_path)
    line = _refused(lambda: interpreter.sample(slow, "slow", {}, times=10_000), within=1.0)
    assert line.startswith("a sample of 10000 runs would need more than 5 s")


def test_a_sample_of_many_quick_runs_is_refused_once_its_time_can_be_foreseen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_COMMAND_SECONDS", 0.5)  # (a million runs fit the work limit; the budget
    action = interpreter.load_ruleset("nwod").procedure("action")  # is lowered so that no machine fits them)
    line = _refused(lambda: action.sample(pool=3, times=1_000_000, seed=1), within=0.5)
    assert line.startswith("a sample of 1000000 runs would need more than 0.5 s of work in all")


def test_a_sample_within_its_budget_is_counted(tmp_path: Path) -> None:
    counts = _slow(tmp_path).procedure("slow").sample(times=20, seed=1)
    assert counts.outcomes == {"done": 20}


def test_the_odds_of_a_procedure_are_refused_at_their_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_ODDS_SECONDS", 0.2)
    nwod = interpreter.load_ruleset("nwod")
    for call in (lambda: nwod.procedure("action").odds(pool=1000), lambda: interpreter.odds(nwod, "action", {"pool": 1000})):
        line = _refused(call, within=0.6)
        assert "exact odds need more than 0.2 s of work" in line and "`sample(...)`" in line


def test_the_odds_of_a_dice_expression_are_refused_at_their_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_ODDS_SECONDS", 0.2)
    heavy = interpreter.dice("20d100kh10")  # few values, but a long walk to them
    for ask in (heavy.odds, lambda: heavy.mean):
        assert "`roll(expr)`" in _refused(ask, within=0.6)


def test_a_run_is_held_to_its_steps(tmp_path: Path) -> None:
    spin = _slow(tmp_path).procedure("spin")
    for call in (lambda: spin(seed=1), lambda: interpreter.run(spin.ruleset, "spin", seed=1)):
        assert f"needs more than {limits.MAX_STEPS} steps" in _refused(call, within=1.0)


def test_a_roll_is_held_to_its_dice() -> None:
    line = _refused(lambda: interpreter.roll("+".join(["1000d1000"] * 49)), within=0.5)
    assert "dice" in line
