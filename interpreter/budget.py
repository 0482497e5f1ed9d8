"""The time budget of one exact-odds computation, checked often so that a refusal comes fast.

Exact odds count their work in steps (limits.MAX_ODDS_STEPS), but a step's cost varies a
lot (worlds with many values, probabilities with long numerators), so the work is also
held to limits.MAX_ODDS_SECONDS of CPU time.  The clock starts with the outermost
computation (a procedure's odds, or a dice expression's distribution); every place that
counts work calls check().  The clock belongs to the call that started it: it is a context
variable, so computations in other threads (or other asyncio tasks) each have their own.
The time counted is the thread's CPU time where the platform offers it.

A refusal names its remedy. The outermost computation knows what was asked (a procedure's odds
know its ruleset, parameters and loops; the dice inside it do not), so the remedy it gives
odds_budget() is the one every refusal inside it names (advice()), in place of the remedy the
place of refusal would give on its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from interpreter import limits
from interpreter.errors import LimitExceeded, Location

__all__ = ["advice", "check", "odds_budget", "start", "stop"]

# the CPU time the outermost computation of this context started at; None when none runs
_started: ContextVar[float | None] = ContextVar("rulesmith_odds_started", default=None)
_clock: Callable[[], float] = getattr(time, "thread_time", time.process_time)
_remedy: ContextVar[str | None] = ContextVar("rulesmith_odds_remedy", default=None)  # the outermost's remedy


def start() -> bool:
    """Start the clock of an exact-odds computation; False when one is running already (it shares that budget)."""
    if _started.get() is not None:
        return False
    _started.set(_clock())
    return True


def stop(started: bool) -> None:
    """Stop the clock that start() started (when it returned True)."""
    if started:
        _started.set(None)


@contextmanager
def odds_budget(remedy: str | None = None) -> Iterator[None]:
    """Time one exact-odds computation; computations inside it share its budget, and its `remedy` (advice())."""
    started = start()
    token = _remedy.set(remedy) if started else None
    try:
        yield
    finally:
        if token is not None:
            _remedy.reset(token)
        stop(started)


def advice(default: str) -> str:
    """The remedy a refusal names: the outermost computation's, when it gave one, else `default`."""
    return _remedy.get() or default


def check(what: str, remedy: str, where: Location | None = None) -> None:
    """Refuse the running computation once it has taken more than its time budget."""
    started = _started.get()
    if started is not None and _clock() - started > limits.MAX_ODDS_SECONDS:
        raise LimitExceeded(f"{what} need more than {limits.MAX_ODDS_SECONDS:g} s of work; {advice(remedy)}", where)
