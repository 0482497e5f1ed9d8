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

A whole command or call (a sweep, a diff, a validate, a sample, a call of the library that does many
of these) has one budget too, limits.MAX_COMMAND_SECONDS, started by command_budget().  Its loop calls
foresee(done, total) after each piece of work: the work left is foreseen from the pieces done (each
as costly as the costlier of their mean and the last, since sweeps grow), so a command that cannot end
within its budget is refused early, naming its remedy, rather than when the budget is spent.  check()
holds every computation to the command's deadline as well.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from interpreter import limits
from interpreter.errors import LimitExceeded, Location

__all__ = ["CommandBudget", "advice", "check", "command_budget", "foresee", "foresee_due", "odds_budget", "start",
           "stop"]

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
    command = _command.get()
    if command is not None:
        command.check()


Remedy = str | Callable[[int], str]  # what a refusal tells to do, or a function of the pieces that would fit
FIRST_TRUSTED = 4  # how far past the budget the first piece alone must foretell the command to be refused on it
FORESEE_AFTER = 0.05  # CPU seconds a loop of many small pieces (a sample's runs) runs before its work is foreseen


class CommandBudget:
    """The budget of one whole command or call: what it does and its remedy (for the refusal), when it started,
    the CPU time its last foreseeing ended at and the pieces done by then."""

    __slots__ = ("done", "first", "first_done", "first_pays", "last", "remedy", "seconds", "started", "what")

    def __init__(self, what: str, remedy: Remedy, seconds: float, first_pays: bool = True):
        self.what, self.remedy, self.seconds, self.first_pays = what, remedy, seconds, first_pays
        self.started = self.last = _clock()
        self.done = self.first_done = 0  # pieces done at the last foreseeing, and at the first
        self.first = 0.0  # the CPU time the first foreseeing ended at: its pieces paid for what the others share

    def refuse(self, detail: str, each: float) -> LimitExceeded:
        """The refusal; `each` is the CPU time one piece is foreseen to take (0 when unknown), of which a remedy
        that is a function is told how many pieces fit in three quarters of the budget (0 when unknown)."""
        remedy = self.remedy
        if not isinstance(remedy, str):
            remedy = remedy(int(self.seconds * 3 / 4 / each) if each > 0 else 0)
        return LimitExceeded(f"{self.what} would need more than {self.seconds:g} s of work in all ({detail}); "
                             f"{remedy}")

    def check(self) -> None:
        """Refuse once the whole command has taken its budget."""
        used = _clock() - self.started
        if used > self.seconds:
            raise self.refuse(f"{used:.2g} s so far", used / self.done if self.done else 0.0)

    def foresee(self, done: int, total: int) -> None:
        """After `done` pieces of `total`: refuse when the pieces left, each foreseen as costly as the costlier
        of the mean piece and the pieces since the last foreseeing, would take the command past its budget.
        The pieces of the first foreseeing are left out of the mean: they pay once for what the others share
        (compiling), so alone they are trusted only to foretell far more than the budget (FIRST_TRUSTED times),
        unless the command paid for that before it started (`first_pays` false)."""
        now = _clock()
        used, last, pieces = now - self.started, now - self.last, done - self.done
        self.last, self.done = now, max(done, self.done)
        if done >= total or pieces <= 0:
            self.check()
            return
        if self.first_done == 0:
            self.first, self.first_done = now, done
            foreseen = used + last / pieces * (total - done)
            if foreseen > (FIRST_TRUSTED if self.first_pays else 1) * self.seconds:
                first = "the first" if done == 1 else f"the first {done}"
                raise self.refuse(f"{first} of {total} took {used:.2g} s, about {foreseen:.2g} s foreseen",
                                  used / done)
            self.check()
            return
        each = max((now - self.first) / (done - self.first_done), last / pieces)
        foreseen = used + each * (total - done)
        if foreseen > self.seconds:
            raise self.refuse(f"{done} of {total} done in {used:.2g} s, about {foreseen:.2g} s foreseen", each)


_command: ContextVar[CommandBudget | None] = ContextVar("rulesmith_command_budget", default=None)


@contextmanager
def command_budget(what: str, remedy: Remedy, seconds: float | None = None,
                   first_pays: bool = True) -> Iterator[CommandBudget]:
    """One budget for a whole command or call (limits.MAX_COMMAND_SECONDS unless `seconds`); a command inside
    another (a sweep a library call makes) shares the outer one's budget.  A `remedy` may be a function of the
    number of pieces that would fit (see CommandBudget.refuse).  `first_pays` false: the first pieces
    cost what the others do (what they share was done before the budget started)."""
    outer = _command.get()
    if outer is not None:
        yield outer
        return
    budget = CommandBudget(what, remedy, limits.MAX_COMMAND_SECONDS if seconds is None else seconds, first_pays)
    token = _command.set(budget)
    try:
        yield budget
    finally:
        _command.reset(token)


def foresee(done: int, total: int) -> None:
    """Tell the running command's budget that `done` of its `total` pieces of work are done (see CommandBudget)."""
    command = _command.get()
    if command is not None:
        command.foresee(done, total)


def foresee_due(done: int, total: int) -> int:
    """In a loop of many small pieces (a sample's runs): foresee the command's work (foresee()) once it has run
    FORESEE_AFTER seconds, so that one piece's noise foretells nothing, and give the count of pieces done at
    which to call again: twice as many at first, then every hundredth of the total.  A loop calling it when
    its count comes due is refused within about twice FORESEE_AFTER, or one piece, of its work being foreseeable."""
    command = _command.get()
    if command is not None and _clock() - command.started >= FORESEE_AFTER:
        command.foresee(done, total)
    return done + max(1, min(done, total // 100))
