"""What the written code of a procedure asks of its context `c`: the one interface both assemblies call.

procedure.function writes a run's function `run(c, E)`, whose context (procedure.run_context) rolls
dice from a source and keeps a trace; procedure.program writes exact odds' blocks `b0(s, c)`, whose
context (procedure.exact) gives each result of a draw in turn. A step kind writes its draws the same
way for both (procedure.writing): `c.roll`, `c.pool` and `c.call` are `Context`; a run's context adds
its step count and trace (`RunContext`), exact odds' the best_of runs it works out (`OddsContext`).
`Function` and `Block` are the written code as the callers see it, so mypy checks each context
against what its code calls.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from interpreter.dice.expr import DiceExpr
    from interpreter.errors import Location
    from interpreter.procedure.kinds.best_of import Runs
    from interpreter.procedure.kinds.call import End, Site
    from interpreter.procedure.records import Record
    from interpreter.procedure.state import State
    from interpreter.ruleset.specs import RollInto

Ran = tuple[Any, bool, tuple[Any, ...]]  # what a procedure's function gives: (outcome, stopped, values)


class Context(Protocol):
    """What the code of steps calls, however it runs: the table functions of formulas, and the draws."""

    @property
    def functions(self) -> Mapping[str, Callable[..., object]]:
        """The functions formulas call (`F` in the written code)."""

    def roll(self, name: str, expr: DiceExpr, where: Location, env: Mapping[str, object]) -> object:
        """A result of rolling a dice expression that reads the names in `env`."""

    def pool(self, r: RollInto, env: Mapping[str, object], thresholds: Sequence[Sequence[int]],
             value_read: bool) -> tuple[object, ...]:
        """A result of a pool, then the statistics of it the step reads (each with its thresholds)."""

    def call(self, site: Site, args: dict[str, object], env: Mapping[str, object]) -> End:
        """An end of a called procedure given these arguments (`env`: the caller's names, its sheet's among them)."""


class RunContext(Context, Protocol):
    """A run's context (procedure.run_context): one result per draw, the steps taken and the trace, if kept."""

    steps: int  # counted by the code against limits.MAX_STEPS
    trace: list[Record] | None


class OddsContext(Context, Protocol):
    """Exact odds' context (procedure.exact): each result of a draw in turn, and the runs a best_of keeps."""

    def best(self, s: State, runs: Runs, count: int, worst: bool) -> None:
        """Make `s` one of the runs a best_of keeps from it (the body's program run `count` times)."""


class Function(Protocol):
    """A procedure written as one function (procedure.function): `run(c, E) -> (outcome, stopped, values)`."""

    loads: tuple[str, ...]  # the names it reads from E at its start
    uses_env: bool  # whether it reads or changes E past its start

    def __call__(self, c: RunContext, env: dict[str, object], /) -> Ran:
        """Run the procedure from these starting names (left holding the sheet's names as the run leaves them)."""


Block = Callable[["State", OddsContext], int]  # one block of exact odds: (state, context) -> the next block or END


__all__ = ["Block", "Context", "Function", "OddsContext", "Ran", "RunContext"]
