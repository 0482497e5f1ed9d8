"""Rulesets that ask for endless or enormous work end with a clear error, never a hang."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent / "hostile" / "loops.yaml"


@pytest.mark.parametrize("command,procedure,message", [
    ("run", "spin", "the procedure needs more than 100000 steps"),
    ("run", "forever", "a loop ran more than 1000 times"),
    # x is never read, so the worlds of each turn merge into one and the loop's own limit is reached first
    ("odds", "forever", "a loop ran more than 1000 times"),
    ("odds", "wide", "exact odds need more than"),
])
def test_runaway_procedures_stop_with_one_line(rules, command, procedure, message, monkeypatch):
    from interpreter import limits

    monkeypatch.setattr(limits, "MAX_ODDS_STEPS", 20_000)  # the same limit, reached sooner
    extra = ["--seed", "1"] if command == "run" else []
    result = rules(command, str(HERE), procedure, *extra)
    assert result.exit_code == 1
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_nested_loops_for_odds_stop_at_the_step_limit(rules, monkeypatch):
    from interpreter import limits

    monkeypatch.setattr(limits, "MAX_ODDS_STEPS", 20_000)
    result = rules("odds", str(HERE), "spin")
    assert result.exit_code == 1
    assert "exact odds need more than 20000 steps; " in result.stderr
    assert "count sampled runs instead: `rules run" in result.stderr
