"""The compiled parts of each step kind: one frozen dataclass per kind, read by the runner and by describe.

A compiled step is a `Step` (in `model`) whose `spec` is one of these. Formulas are
`Formula` objects and dice are `DiceExpr` objects; nested steps are tuples of `Step`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from interpreter.errors import Location

if TYPE_CHECKING:
    from interpreter.dice.expr import DiceExpr
    from interpreter.dice.pool import Statistic
    from interpreter.formula.compile import Formula


@dataclass(frozen=True, slots=True)
class StepSpec:
    """What every step kind's compiled parts offer: the step lists nested in them."""

    def nested(self) -> tuple[Steps, ...]:
        """The lists of steps this step runs (the branches of `if`, the body of a loop)."""
        return ()


S_co = TypeVar("S_co", bound=StepSpec, covariant=True)


@dataclass(frozen=True, slots=True)
class Step(Generic[S_co]):
    """One compiled step: ``kind`` is the YAML key that names it, ``spec`` its compiled parts."""

    kind: str
    spec: S_co
    where: Location
    live: tuple[str, ...] = ()  # names some later step reads or the procedure reports (see liveness)
    done: tuple[str, ...] = ()  # reported values no later step reads or writes (top-level steps only)


Steps = tuple[Step[Any], ...]


def walk(steps: Steps) -> Iterator[Step[Any]]:
    """Every step of a list, nested ones included, in source order."""
    for step in steps:
        yield step
        for inner in step.spec.nested():
            yield from walk(inner)


@dataclass(frozen=True, slots=True)
class Assign:
    """`name: formula` in a `let` or an `update`."""

    name: str
    formula: Formula
    where: Location


@dataclass(frozen=True, slots=True)
class Let(StepSpec):
    assign: tuple[Assign, ...]


@dataclass(frozen=True, slots=True)
class RollInto:
    """`name: dice` in a `roll` step, or a value a table row rolls."""

    name: str
    expr: DiceExpr
    where: Location
    reads: tuple[tuple[str, Statistic], ...] = ()  # `read`: names bound to statistics of the same pool


@dataclass(frozen=True, slots=True)
class Roll(StepSpec):
    rolls: tuple[RollInto, ...]


@dataclass(frozen=True, slots=True)
class Branch:
    """One branch of `decide`: a condition (None for the last, unconditional one) and its outcome."""

    cond: Formula | None
    outcome: str
    where: Location


@dataclass(frozen=True, slots=True)
class Decide(StepSpec):
    branches: tuple[Branch, ...]


@dataclass(frozen=True, slots=True)
class Stop(StepSpec):
    when: Formula
    outcome: str | None


@dataclass(frozen=True, slots=True)
class If(StepSpec):
    cond: Formula
    then: Steps
    otherwise: Steps

    def nested(self) -> tuple[Steps, ...]:
        return (self.then, self.otherwise)


@dataclass(frozen=True, slots=True)
class Loop(StepSpec):
    """`repeat` N times and/or `while` a condition holds, at most `max` times, counting in `counter`."""

    times: Formula | None
    condition: Formula | None
    max: Formula | None
    counter: str | None
    steps: Steps

    def nested(self) -> tuple[Steps, ...]:
        return (self.steps,)


@dataclass(frozen=True, slots=True)
class BestOf(StepSpec):
    count: Formula
    worst_when: Formula | None
    tiebreak: Formula | None
    steps: Steps
    procedure: str  # whose outcome order ranks the runs

    def nested(self) -> tuple[Steps, ...]:
        return (self.steps,)


@dataclass(frozen=True, slots=True)
class Contest(StepSpec):
    actor: Formula
    defender: Formula
    ties: str  # actor | defender
    win: str
    lose: str
    margin: str | None
    tied: str | None


@dataclass(frozen=True, slots=True)
class TableLookup(StepSpec):
    table: str
    key: Formula | None  # None: roll the table's die
    roll_as: str | None
    value_as: str | None


@dataclass(frozen=True, slots=True)
class Arg:
    """`name: formula` under a call's `with`."""

    name: str
    formula: Formula
    where: Location


@dataclass(frozen=True, slots=True)
class Call(StepSpec):
    procedure: str
    args: tuple[Arg, ...]
    prefix: str | None  # `as`
    inherit: bool  # inherit_outcome
    call_where: Location


@dataclass(frozen=True, slots=True)
class Update(StepSpec):
    assign: tuple[Assign, ...]


@dataclass(frozen=True, slots=True)
class BoxChange(StepSpec):
    """`damage` or `heal` of a box track."""

    track: str
    amount: Formula
    type: Formula


@dataclass(frozen=True, slots=True)
class Require(StepSpec):
    when: Formula
    message: str


@dataclass(frozen=True, slots=True)
class ForEach(StepSpec):
    traits: tuple[str, ...]
    alias: str  # `as`
    steps: Steps

    def nested(self) -> tuple[Steps, ...]:
        return (self.steps,)
