"""Which names each step leaves for later steps: the liveness of a procedure, worked out when it is compiled.

Exact odds run a procedure over every possible world and merge worlds that are the same
state. Two worlds that differ only in names no later step reads (and that the procedure
does not report) lead to the same results, so they are the same state: each compiled
step carries the names that are still *live* after it, and worlds are merged by those
alone. Only names some step of the procedure writes can differ between worlds; every
other name (constants, parameters, sheet values no step changes) is the same in all of
them and is never part of a key.

The analysis is the classic backwards one: a step's live-in is what it reads plus what
is live after it and it does not surely write. Loops are iterated to a fixed point.
Where a step's reads cannot be known (a dice parameter rolled: its text comes with the
run) every written name is taken as read. A step that works on a character sheet reads
and may write every name the sheet gives, which is only known when a sheet is bound:
the marker `SHEET` stands for those names.

What a step reads and writes is its kind's to say (`reads` and `writes` of its record in
procedure.kinds, both required); this module only walks the steps and iterates loops.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from interpreter.record import replace
from interpreter.ruleset.specs import Assign, Step, Steps, walk

if TYPE_CHECKING:
    from interpreter.ruleset.kind import Kinds
    from interpreter.ruleset.model import CompiledProcedure

ALL = "*"  # every name the procedure writes
SHEET = "#sheet"  # every name a bound character sheet gives
Names = frozenset[str]


class Liveness:
    """The liveness analysis of one procedure's steps."""

    def __init__(self, dice: Mapping[str, Any], tables: Mapping[str, Any], dice_params: Iterable[str],
                 procedures: Mapping[str, Any], kinds: Kinds):
        self.dice = dice  # named dice expressions: rolling one reads its names too
        self.tables = tables  # compiled tables (a die table rolls its die, and rows roll their values)
        self.dice_params = frozenset(dice_params)  # their expressions come with the run: unknown reads
        self.procedures = procedures  # compiled procedures, for what a call gives back
        self.kinds = kinds  # each step kind's own reads and writes

    # -- what single parts read -------------------------------------------------------------
    def dice_reads(self, expr: Any) -> Names:
        return frozenset() if expr is None else self.names_read(expr.names)

    def names_read(self, read: Iterable[str]) -> Names:
        """The names dice reading these names read: named dice followed, a dice parameter read as any name."""
        out: set[str] = set()
        todo = list(read)
        while todo:
            name = todo.pop()
            if name in out:
                continue
            out.add(name)
            if name in self.dice_params:
                out.add(ALL)
            inner = self.dice.get(name)
            if inner is not None:
                todo.extend(inner.names)
        return frozenset(out)

    # -- the transfer functions ---------------------------------------------------------------
    def steps(self, steps: Steps, out: Names) -> tuple[Steps, Names]:
        """The steps annotated with what is live after each, and what is live before the first."""
        annotated: list[Step[Any]] = []
        for step in reversed(steps):
            new, live_in = self.step(step, out)
            annotated.append(new)
            out = live_in
        return tuple(reversed(annotated)), out

    def loop(self, body: Steps, head: Names) -> tuple[Steps, Names]:
        """A loop body annotated with what is live at its head: grown until a pass adds no name."""
        while True:
            annotated, body_in = self.steps(body, head)
            grown = head | body_in
            if grown == head:
                return annotated, head
            head = grown

    def step(self, step: Step[Any], out: Names) -> tuple[Step[Any], Names]:
        """The step annotated with what is live after it, and what is live before it (its kind's reads)."""
        spec, live_in = self.kinds[step.kind].reads(self, step.spec, out)
        return replace(step, spec=spec, live=tuple(sorted(out))), frozenset(live_in)


def writes(steps: Steps, procedures: Mapping[str, Any], tables: Mapping[str, Any], kinds: Kinds) -> Names:
    """Every name some step (nested ones included) may write; SHEET when a step may change the sheet."""
    out: set[str] = set()
    for step in walk(steps):
        out |= kinds[step.kind].writes(step.spec, procedures, tables)
    return frozenset(out)


def annotate(steps: Steps, end: Iterable[str], liveness: Liveness, written: Names) -> Steps:
    """The steps with `live` set to the written names that are read later or reported at the end."""
    end = frozenset(end)
    annotated, _ = liveness.steps(steps, end)
    return _restrict(annotated, written, end)


def mark_done(steps: Steps, values: Iterable[str], liveness: Liveness, procedures: Mapping[str, Any],
              tables: Mapping[str, Any]) -> Steps:
    """Top-level steps with `done` set: the reported values that are final after them.

    A value no later step reads or writes has its final value already, so exact odds can
    add up its distribution there and stop telling worlds apart by it.
    """
    # What the steps after each one read (before writing) and may write, from the last step back.
    after: list[tuple[Names, Names]] = []
    reads: Names = frozenset()
    written: Names = frozenset()
    for step in reversed(steps):
        after.append((reads, written))
        _, reads = liveness.step(step, reads)
        written = written | writes((step,), procedures, tables, liveness.kinds)
    after.reverse()
    pending = set(values)
    out = []
    for step, (later_reads, later_writes) in zip(steps, after, strict=True):
        touched = later_reads | later_writes
        done: set[str] = set()
        if ALL not in touched and SHEET not in touched:
            done = pending - touched
            pending -= done
        out.append(replace(step, done=tuple(sorted(done))))
    return tuple(out)


def _restrict(steps: Steps, written: Names, end: Names) -> Steps:
    out = []
    for step in steps:
        live = set(step.live) | end
        if ALL in live:
            live |= written
        keep = sorted(n for n in live if n in written)
        spec = step.spec
        nested = spec.nested()
        if nested:
            spec = spec.renested(tuple(_restrict(body, written, end) for body in nested))
        out.append(replace(step, spec=spec, live=tuple(keep)))
    return tuple(out)


def assigned(out: Iterable[str], assign: Iterable[Assign]) -> set[str]:
    """What is live before names are bound to formulas in order (a `let`, an `update`), given what is live after."""
    live_in = set(out)
    for a in reversed(tuple(assign)):
        live_in.discard(a.name)
        live_in |= names(a.formula)
    return live_in


def names(formula: Any) -> Names:
    """The names a formula (or None) reads."""
    return formula.names if formula is not None else frozenset()


def with_liveness(proc: CompiledProcedure, dice: Mapping[str, Any], tables: Mapping[str, Any],
                  procedures: Mapping[str, CompiledProcedure], kinds: Kinds) -> CompiledProcedure:
    """The procedure with each step knowing the names still live after it (see liveness)."""
    liveness = Liveness(dice, tables, [p.name for p in proc.params if p.type == "dice"], procedures, kinds)
    end = set(proc.values) | ({SHEET} if proc.sheet != "none" else set())
    steps = annotate(proc.steps, end, liveness, writes(proc.steps, procedures, tables, kinds))
    # A name never written is live at the start if any step reads it; a run needs no other constant.
    _, live_in = liveness.steps(proc.steps, frozenset(end))
    unknown = ALL in live_in or any(p.type == "dice" for p in proc.params)
    return replace(proc, steps=mark_done(steps, proc.values, liveness, procedures, tables),
                   reads=None if unknown else frozenset(live_in))
