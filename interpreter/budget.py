"""The time budget of one exact-odds computation, checked often so that a refusal comes fast.

Exact odds count their work in steps (limits.MAX_ODDS_STEPS), but a step's cost varies a
lot (worlds with many values, probabilities with long numerators), so the work is also
held to limits.MAX_ODDS_SECONDS of CPU time.  The clock starts with the outermost
computation (a procedure's odds, or a dice expression's distribution); every place that
counts work calls check().
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from interpreter import limits
from interpreter.errors import LimitExceeded, Location

__all__ = ["check", "odds_budget", "spent", "start", "stop"]

_started: list[float] = []  # the CPU time the outermost running computation started at; empty when none runs


def start() -> bool:
    """Start the clock of an exact-odds computation; False when one is running already (it shares that budget)."""
    if _started:
        return False
    _started.append(time.process_time())
    return True


def stop(started: bool) -> None:
    """Stop the clock that start() started (when it returned True)."""
    if started:
        _started.clear()


@contextmanager
def odds_budget() -> Iterator[None]:
    """Time one exact-odds computation; computations inside it share its budget."""
    started = start()
    try:
        yield
    finally:
        stop(started)


def spent() -> float:
    """CPU seconds the running computation has taken (0 when none runs)."""
    return time.process_time() - _started[0] if _started else 0.0


def check(what: str, advice: str, where: Location | None = None) -> None:
    """Refuse the running computation once it has taken more than its time budget."""
    if _started and time.process_time() - _started[0] > limits.MAX_ODDS_SECONDS:
        raise LimitExceeded(f"{what} need more than {limits.MAX_ODDS_SECONDS:g} s of work; {advice}", where)
