"""The library keeps no process-wide state a caller would notice: the collector is the console's
to tune, and the work budget of exact odds belongs to the call (and the thread) that runs them."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from interpreter import budget, limits
from interpreter.errors import LimitExceeded

LIBRARY = """
import gc, sys
import interpreter
from interpreter.cli import main
odds = interpreter.odds("lockwood", "check", {"stat": 12, "dc": 15})
interpreter.run("nwod", "action", {"pool": 5}, seed=1)
print(gc.isenabled(), gc.get_freeze_count())
"""


def test_importing_the_library_and_the_command_line_leaves_the_collector_alone() -> None:
    done = subprocess.run([sys.executable, "-c", LIBRARY], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "0"]


def test_the_console_entry_point_pauses_the_collector_only_while_it_imports() -> None:
    probe = ("import gc, sys; sys.argv = ['rules', 'list']\n"
             "from interpreter.cli import console\n"
             "try:\n    console()\nexcept SystemExit:\n    pass\n"
             "print(gc.isenabled(), gc.get_freeze_count() > 0, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert "lockwood" in done.stdout
    assert done.stderr.split() == ["True", "True"]


def test_a_budget_started_in_one_thread_is_not_another_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """A computation that ran out of time in one thread does not refuse the work of another."""
    monkeypatch.setattr(limits, "MAX_ODDS_SECONDS", 0.05)
    started = threading.Event()
    finish = threading.Event()
    seen: list[str] = []

    def long_running() -> None:
        with budget.odds_budget():
            started.set()
            end = time.thread_time() + 0.1
            while time.thread_time() < end:  # burn this thread's CPU time past the budget
                pass
            try:
                budget.check("the first thread's odds", "wait")
            except LimitExceeded as err:
                seen.append(str(err))
            finish.wait(5)

    worker = threading.Thread(target=long_running)
    worker.start()
    started.wait(5)
    try:
        with budget.odds_budget():  # this thread's own clock, started now
            budget.check("the second thread's odds", "wait")
        budget.check("nothing running here", "wait")  # no budget runs in this thread any more
    finally:
        finish.set()
        worker.join(5)
    assert len(seen) == 1 and "the first thread's odds need more than 0.05 s" in seen[0]


def test_budgets_nest_into_the_outermost_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_ODDS_SECONDS", 0.05)
    with budget.odds_budget():
        end = time.thread_time() + 0.1
        while time.thread_time() < end:
            pass
        with budget.odds_budget(), pytest.raises(LimitExceeded):  # the inner one shares the outer clock
            budget.check("inner odds", "wait")
    budget.check("after it", "wait")
