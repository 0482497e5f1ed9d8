"""The state of one running procedure: its names, its outcome so far, and whether it stopped.

A sampled run changes one state as it goes. Exact odds hold many states at once, each with a
probability (see procedure.exact), and never change a state another world may hold: the code
of a step runs on a state of its own (procedure.exact copies it first).
"""

from __future__ import annotations

END = -1  # the block number a step jumps to when the procedure (or a part run on its own) is done


class State:
    """One world: `env` holds every name the procedure can read, `outcome` and `stopped` how it stands."""

    __slots__ = ("env", "outcome", "stopped")

    def __init__(self, env: dict[str, object], outcome: str | None = None, stopped: bool = False) -> None:
        self.env = env
        self.outcome = outcome
        self.stopped = stopped

    def fork(self) -> State:
        """The start of a part run from this state on its own (a best_of run): the same names, outcome and stop."""
        return State(dict(self.env), self.outcome, self.stopped)

    def set_outcome(self, outcome: str | None) -> None:
        """Set the outcome, visible to formulas as `outcome` (its rank, 1 for the best; 0 for none)."""
        self.outcome = outcome
        self.env["outcome"] = 0 if outcome is None else self.env.get(outcome, 0)

    def __repr__(self) -> str:
        return f"State(outcome={self.outcome!r}, stopped={self.stopped}, names={len(self.env)})"
