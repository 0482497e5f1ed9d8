"""The state of one running procedure: its names, its outcome so far, whether it stopped, and its trace.

A sampled run changes one state as it goes. Exact odds hold many states at once, each with a
probability (see procedure.exact), and never change a state another world may hold: the code
of a step runs on a state of its own (procedure.exact copies it first).
"""

from __future__ import annotations

from typing import Any

from interpreter.procedure.records import Record

END = -1  # the block number a step jumps to when the procedure (or a part run on its own) is done


class State:
    """One world: `env` holds every name the procedure can read, `trace` its records (None when not traced)."""

    __slots__ = ("env", "outcome", "stopped", "trace")

    def __init__(self, env: dict[str, Any], outcome: str | None = None, stopped: bool = False,
                 trace: list[Record] | None = None) -> None:
        self.env = env
        self.outcome = outcome
        self.stopped = stopped
        self.trace = trace

    def copy(self) -> State:
        """A state of its own with the same names (its trace is shared: only a sampled run appends to one)."""
        return State(dict(self.env), self.outcome, self.stopped, self.trace)

    def fork(self) -> State:
        """The start of a part run from this state on its own (a best_of run): the same names, a trace of its own."""
        return State(dict(self.env), self.outcome, self.stopped, None if self.trace is None else [])

    def become(self, other: State) -> None:
        """Take another state's names, outcome and stop (the run a best_of kept), adding its trace to this one's."""
        self.env = other.env
        self.outcome = other.outcome
        self.stopped = other.stopped
        if self.trace is not None and other.trace:
            self.trace.extend(other.trace)

    def set_outcome(self, outcome: str | None) -> None:
        """Set the outcome, visible to formulas as `outcome` (its rank, 1 for the best; 0 for none)."""
        self.outcome = outcome
        self.env["outcome"] = 0 if outcome is None else self.env.get(outcome, 0)

    def __repr__(self) -> str:
        return f"State(outcome={self.outcome!r}, stopped={self.stopped}, names={len(self.env)})"
