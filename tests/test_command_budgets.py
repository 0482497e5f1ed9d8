"""Whole commands and calls within their budgets: a distribution refused from its text before it is built,
a command's work foreseen from its first pieces, and a chart that never replaces a file that appeared
while it was drawn."""

from __future__ import annotations

import time
import tracemalloc

import pytest

import interpreter
from interpreter import budget, limits
from interpreter.cli import charts
from interpreter.cli.chart_data import Chart, Panel, Series
from interpreter.dice.expr import parse
from interpreter.dice.size import size_of
from interpreter.errors import BadParameter, LimitExceeded

HUGE = "3d1000+1d1000*3000"


@pytest.mark.parametrize("ask", [lambda d: d.mean, lambda d: d.odds()], ids=["mean", "odds"])
def test_a_distribution_of_millions_of_values_is_refused_by_the_library_before_it_is_built(ask):
    tracemalloc.start()
    start = time.process_time()
    try:
        with pytest.raises(LimitExceeded, match="2,998,000 values"):
            ask(interpreter.dice(HUGE))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.process_time() - start < 1.0
    assert peak < 20 << 20


def test_the_limit_on_values_is_the_estimate_of_the_dice_layer():
    below = "1d1000*100+1d100"  # 100,000 values: built
    assert size_of(parse(below).tree, {}).values <= limits.MAX_ODDS_VALUES
    assert len(interpreter.dice(below).odds().values) == 100_000
    assert size_of(parse(HUGE).tree, {}).values > limits.MAX_ODDS_VALUES


def test_a_named_value_is_read_at_the_value_it_has():
    expr = parse("3d1000+1d1000*n")
    assert len(expr.distribution({"n": 1}).values) == 4000 - 4 + 1  # 4 to 4,000
    with pytest.raises(LimitExceeded, match="too much work"):
        expr.distribution({"n": 3000})


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_command_is_refused_as_soon_as_the_pieces_left_cannot_fit_its_budget(monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(budget, "_clock", clock)
    with pytest.raises(LimitExceeded, match=r"a sweep of 100 points would need more than 5 s.*sweep fewer"), \
            budget.command_budget("a sweep of 100 points", "sweep fewer values", seconds=5.0):
        for done in range(1, 101):
            clock.now += 0.02 * done  # each piece costlier than the one before
            budget.foresee(done, 100)
    assert 0 < done < 40 and clock.now < 5.0  # refused early, long before the budget was spent


def test_a_command_whose_pieces_fit_its_budget_runs_whatever_its_first_piece_cost(monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(budget, "_clock", clock)
    with budget.command_budget("a sweep of 400 points", "sweep fewer values", seconds=5.0):
        clock.now += 0.04  # the first piece pays for what the others share
        budget.foresee(1, 400)
        for done in range(2, 401):
            clock.now += 0.005
            budget.foresee(done, 400)
    assert clock.now < 5.0


def test_check_holds_a_computation_to_the_deadline_of_its_command(monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(budget, "_clock", clock)
    with budget.command_budget("this diff", "compare one procedure", seconds=2.0):
        budget.check("exact odds", "use fewer dice")
        clock.now = 2.5
        with pytest.raises(LimitExceeded, match="this diff would need more than 2 s"):
            budget.check("exact odds", "use fewer dice")
    budget.check("exact odds", "use fewer dice")  # no command: no deadline


def _chart(values: int) -> Chart:
    return Chart("t", (Panel("p", tuple(str(i) for i in range(values)), (Series("chance", (0.5,) * values),)),))


def test_a_chart_of_more_values_than_it_draws_is_refused_before_drawing(tmp_path, monkeypatch):
    monkeypatch.setattr(charts, "render", lambda *a: pytest.fail("drawn"))
    target = tmp_path / "c.svg"
    with pytest.raises(BadParameter, match="more than the 2,000 a chart draws"):
        charts.write_chart(_chart(limits.MAX_CHART_VALUES + 1), str(target), "svg")
    assert not target.exists()


def test_a_file_that_appears_while_the_chart_is_drawn_is_kept_unless_forced(tmp_path, monkeypatch):
    target = tmp_path / "c.svg"

    def drawn_while_someone_writes(chart: Chart, fmt: str) -> bytes:
        target.write_text("a page of its own")
        return b"<svg/>"

    monkeypatch.setattr(charts, "render", drawn_while_someone_writes)
    with pytest.raises(BadParameter, match="appeared while the chart was drawn; nothing was written"):
        charts.write_chart(_chart(3), str(target), "svg")
    assert target.read_text() == "a page of its own"
    assert [p.name for p in tmp_path.iterdir()] == ["c.svg"]  # no temporary file left behind
    charts.write_chart(_chart(3), str(target), "svg", replace=True)
    assert target.read_bytes() == b"<svg/>"
