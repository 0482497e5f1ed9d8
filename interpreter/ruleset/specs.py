"""The compiled parts of each step kind: one frozen dataclass per kind, read by the runner and by describe.

A compiled step is a `Step` (in `model`) whose `spec` is one of these. Formulas are
`Formula` objects and dice are `DiceExpr` objects; nested steps are tuples of `Step`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Generic, Self, TypeVar

from interpreter.errors import Location
from interpreter.record import record, replace

if TYPE_CHECKING:
    from interpreter.dice.expr import DiceExpr
    from interpreter.dice.statistic import Statistic
    from interpreter.formula.compile import Formula


class StepSpec:
    """What every step kind's compiled parts offer: the step lists nested in them (a record each)."""

    __slots__ = ()

    def nested(self) -> tuple[Steps, ...]:
        """The lists of steps this step runs (the branches of `if`, the body of a loop)."""
        return ()

    def renested(self, lists: tuple[Steps, ...]) -> Self:
        """The same step with these lists of steps in place of those `nested` gives, in its order."""
        return self


S_co = TypeVar("S_co", bound=StepSpec, covariant=True)


@record
class Step(Generic[S_co]):
    """One compiled step: ``kind`` is the YAML key that names it, ``spec`` its compiled parts."""

    kind: str
    spec: S_co
    where: Location
    live: tuple[str, ...] = ()  # names some later step reads or the procedure reports (see liveness)
    done: tuple[str, ...] = ()  # reported values no later step reads or writes (top-level steps only)
    name: str | None = None  # `name:`, what an overlay calls the step by; running it never reads it


Steps = tuple[Step[Any], ...]


def walk(steps: Steps) -> Iterator[Step[Any]]:
    """Every step of a list, nested ones included, in source order."""
    for step in steps:
        yield step
        for inner in step.spec.nested():
            yield from walk(inner)


@record
class Assign:
    """`name: formula` in a `let` or an `update`."""

    name: str
    formula: Formula
    where: Location


@record
class Let(StepSpec):
    assign: tuple[Assign, ...]
    notes: tuple[tuple[Formula, str], ...] = ()  # (condition, text): noted in the trace after the names are bound


@record
class RollInto:
    """`name: dice` in a `roll` step, or a value a table row rolls."""

    name: str
    expr: DiceExpr
    where: Location
    reads: tuple[tuple[str, Statistic], ...] = ()  # `read`: names bound to statistics of the same pool
    thresholds: tuple[tuple[Any, ...], ...] = ()  # each statistic's thresholds written as formulas, compiled
    effects: tuple[Any, ...] = ()  # the effects that reach it (ruleset.effects.Effect), each with a bit of `pick`
    switches: tuple[Formula, ...] = ()  # per effect: whether it is on (its flag)
    variants: tuple[DiceExpr, ...] = ()  # per set of effects on (a bit each): the expression rolled
    changes: tuple[str, ...] = ()  # per effect: what it does to this roll, in words


@record
class RollStep(StepSpec):
    rolls: tuple[RollInto, ...]


@record
class Branch:
    """One branch of `decide`: a condition (None for the last, unconditional one) and its outcome."""

    cond: Formula | None
    outcome: str
    where: Location


@record
class Decide(StepSpec):
    branches: tuple[Branch, ...]


@record
class Stop(StepSpec):
    when: Formula
    outcome: str | None


@record
class If(StepSpec):
    cond: Formula
    then: Steps
    otherwise: Steps

    def nested(self) -> tuple[Steps, ...]:
        return (self.then, self.otherwise)

    def renested(self, lists: tuple[Steps, ...]) -> Self:
        return replace(self, then=lists[0], otherwise=lists[1])


@record
class Loop(StepSpec):
    """`repeat` N times and/or `while` a condition holds, at most `max` times, counting in `counter`."""

    times: Formula | None
    condition: Formula | None
    max: Formula | None
    counter: str | None
    steps: Steps

    def nested(self) -> tuple[Steps, ...]:
        return (self.steps,)

    def renested(self, lists: tuple[Steps, ...]) -> Self:
        return replace(self, steps=lists[0])


@record
class BestOf(StepSpec):
    count: Formula
    worst_when: Formula | None
    tiebreak: Formula | None
    steps: Steps
    procedure: str  # whose outcome order ranks the runs

    def nested(self) -> tuple[Steps, ...]:
        return (self.steps,)

    def renested(self, lists: tuple[Steps, ...]) -> Self:
        return replace(self, steps=lists[0])


@record
class Contest(StepSpec):
    actor: Formula
    defender: Formula
    ties: str  # actor | defender
    win: str
    lose: str
    margin: str | None
    tied: str | None


@record
class TableLookup(StepSpec):
    table: str
    key: Formula | None  # None: roll the table's die
    roll_as: str | None
    value_as: str | None


@record
class Arg:
    """`name: formula` under a call's `with`; `passes` names dice handed on whole to a dice parameter."""

    name: str
    formula: Formula
    where: Location
    passes: str | None = None  # `damage: damage`: the dice the caller's name holds, given as they are


@record
class Call(StepSpec):
    procedure: str
    args: tuple[Arg, ...]
    prefix: str | None  # `as`
    inherit: bool  # inherit_outcome
    call_where: Location


@record
class Update(StepSpec):
    assign: tuple[Assign, ...]


@record
class BoxChange(StepSpec):
    """`damage` or `heal` of a box track."""

    track: str
    amount: Formula
    type: Formula


@record
class Require(StepSpec):
    when: Formula
    message: str


@record
class ForEach(StepSpec):
    traits: tuple[str, ...]
    alias: str  # `as`
    steps: Steps

    def nested(self) -> tuple[Steps, ...]:
        return (self.steps,)

    def renested(self, lists: tuple[Steps, ...]) -> Self:
        return replace(self, steps=lists[0])
