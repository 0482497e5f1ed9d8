"""What a step kind is: the record each module of procedure.kinds exports, and the table of them.

A step kind says, in one place, everything the rest of the interpreter asks of it: the YAML keys
it handles, how a step of it compiles (names and references checked, its spec made), what it
reads and writes (the liveness analysis and constant folding rely on both), whether it draws or
loops (exact odds merge worlds before such a step) or is written as segments a run jumps between,
how its code is written, the sentence `rules describe` gives it, and how random instances of it
are made for the differential test. Those fields are required, so a kind that forgets one fails as
it is made; a kind may also say what its code calls (`helpers`), which of its keys name another part
of the ruleset (`refers`: a call's procedure) and which rolls of its steps as written effects reach
(`rolls`).

The records themselves live in procedure.kinds (the folder after this one); the compiler and the
liveness analysis get the table from the pipeline, and the compiled ruleset keeps it for running.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from types import MappingProxyType
from typing import TYPE_CHECKING, Protocol

from interpreter.record import field, record

if TYPE_CHECKING:
    import random  # (only the differential test's generator has one: exact odds never load it)

    from interpreter.ruleset.specs import StepSpec

RawStep = dict[str, object]
"""A step as YAML data: what `sample` makes."""


class Instances(Protocol):
    """What a kind's `sample` makes random steps with: the differential test's generator of procedures.

    The procedure it writes binds every name `name` gives at its start (so none is ever absent),
    declares the outcomes `outcomes` (best first), one table rolled on a die and one looked up by
    a key, and a procedure to call; runs stay within a budget of dice sequences (`afford`).
    """

    rng: random.Random
    outcomes: tuple[str, ...]
    sheet: bool  # whether the procedure works on a character sheet (sheet steps need one)

    def name(self) -> str: ...  # a name every step may read and rebind
    def number(self) -> str: ...  # a random formula of a number
    def condition(self) -> str: ...  # a random formula of a truth value
    def dice(self, pool: bool) -> tuple[list[RawStep], str, float]: ...  # steps setting what it reads, dice, log of sequences
    def afford(self, cost: float, times: float) -> bool: ...  # whether `times` runs of `cost` fit the budget
    def steps(self, times: float, depth: int) -> list[RawStep] | None: ...  # a nested body (None: too deep)
    def counter(self) -> str: ...  # a fresh name for a loop's counter
    def table(self, rolled: bool) -> str: ...  # a table rolled on its die, or looked up by a key
    def callee(self) -> tuple[str, str, tuple[str, ...]]: ...  # a procedure, its number parameter, what it gives
    def keep(self, formula: str) -> RawStep: ...  # a step binding a reported name to a formula's value
    def decides(self) -> RawStep: ...  # a step setting an outcome


Sample = Callable[[Instances, float, int], list[RawStep]]
"""(generator, how many times the step may run, nesting depth) -> the steps written (none when it cannot)."""


@record
class StepKind:
    """One step kind of the procedure language (see the module's docstring)."""

    keys: tuple[str, ...]  # the YAML keys of its steps, in the order compiling tries them
    specs: tuple[type[StepSpec], ...]  # the compiled specs its compiler makes
    compile: Callable[..., StepSpec]  # (CompileContext, step as written, path, Scope, ProcContext) -> its spec
    reads: Callable[..., tuple[StepSpec, AbstractSet[str]]]  # (Liveness, spec, live after) -> (spec, live before)
    writes: Callable[..., AbstractSet[str]]  # (spec, procedures, tables) -> every name it may bind
    draws: bool  # whether it branches over dice or calls, or loops: exact odds merge worlds before it
    jumps: bool  # whether its code is segments a run jumps between (a loop's head and body)
    goes_on: bool  # whether every run that reaches it goes on to the next step (no stop, branch or loop)
    write: Callable[..., None]  # (procedure.writing.Writer, step) -> None: writes the step's code
    describe: Callable[..., str]  # (step) -> the sentence `rules describe` gives a step
    sample: Sample  # random steps of the kind, for the differential test
    helpers: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))  # what its code calls
    refers: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))  # key -> what its value names
    rolls: Callable[[RawStep], list[tuple[str, str, object]]] = field(default=lambda step: [])  # (key, name, dice)
    sets_outcome: bool = False  # whether a step of it may set the run's outcome (a best_of judges runs by it)


Kinds = Mapping[str, StepKind]
"""Step key -> its kind, in the order compiling tries the keys."""


def table(*kinds: StepKind) -> Kinds:
    """The table of these kinds by step key; a key two kinds claim is refused."""
    out: dict[str, StepKind] = {}
    for kind in kinds:
        for key in kind.keys:
            if key in out:
                raise ValueError(f"step key '{key}' belongs to two kinds")
            out[key] = kind
    return MappingProxyType(out)


def key_of(kinds: Kinds, spec: type[StepSpec]) -> str:
    """The step key of the kind that makes steps of this spec (its first, when it has several)."""
    return next(key for key, kind in kinds.items() if spec in kind.specs)


def naming(kinds: Kinds, what: str) -> frozenset[str]:
    """The keys of steps whose value names a part of the ruleset of this sort (a `procedure`, a `table`)."""
    return frozenset(key for kind in kinds.values() for key, named in kind.refers.items() if named == what)


def written_rolls(kinds: Kinds, step: RawStep) -> list[tuple[str, str, object]]:
    """The rolls of a step as written that effects may change: (its key, the name rolled into, the dice)."""
    kind = next((kinds[key] for key in step if key in kinds), None)
    return kind.rolls(step) if kind is not None else []


def distinct(kinds: Kinds) -> tuple[StepKind, ...]:
    """Each kind of a table once, in order."""
    return tuple({id(k): k for k in kinds.values()}.values())


__all__ = ["Instances", "Kinds", "RawStep", "Sample", "StepKind", "distinct", "key_of", "naming", "table",
           "written_rolls"]
