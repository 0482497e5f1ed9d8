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
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from interpreter.record import replace
from interpreter.ruleset.specs import (
    BestOf,
    BoxChange,
    Call,
    Contest,
    Decide,
    ForEach,
    If,
    Let,
    Loop,
    Require,
    Roll,
    Step,
    Steps,
    Stop,
    TableLookup,
    Update,
    walk,
)

if TYPE_CHECKING:
    from interpreter.ruleset.model import Procedure

ALL = "*"  # every name the procedure writes
SHEET = "#sheet"  # every name a bound character sheet gives
Names = frozenset[str]
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class Liveness:
    """The liveness analysis of one procedure's steps."""

    def __init__(self, dice: Mapping[str, Any], tables: Mapping[str, Any], dice_params: Iterable[str],
                 procedures: Mapping[str, Any]):
        self.dice = dice  # named dice expressions: rolling one reads its names too
        self.tables = tables  # compiled tables (a die table rolls its die, and rows roll their values)
        self.dice_params = frozenset(dice_params)  # their expressions come with the run: unknown reads
        self.procedures = procedures  # compiled procedures, for what a call gives back

    # -- what single parts read -------------------------------------------------------------
    def dice_reads(self, expr: Any) -> Names:
        if expr is None:
            return frozenset()
        out: set[str] = set()
        todo = list(expr.names)
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

    def table_reads(self, step: TableLookup) -> tuple[Names, Names]:
        """What a table step reads, and what every row of it writes."""
        table = self.tables.get(step.table)
        reads: set[str] = set(_names(step.key))
        if table is None:
            return frozenset(reads), frozenset()
        if step.key is None:
            reads |= self.dice_reads(table.die)
        rows = list(table.rows) + ([table.default] if table.default is not None else [])
        shared: set[str] | None = None
        for row in rows:
            reads |= _names(row.value)
            written = set()
            for name, expr in row.values:
                reads |= self.dice_reads(expr)
                written.add(name)
            shared = written if shared is None else shared & written
        return frozenset(reads), frozenset(shared or ())

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

    # Above the complexity gate (C901): one arm per step kind, until the kinds registry.
    def step(self, step: Step[Any], out: Names) -> tuple[Step[Any], Names]:  # noqa: C901
        spec = step.spec
        live_in: set[str]
        match spec:
            case Let(assign=assign) | Update(assign=assign):
                live_in = set(out)
                for a in reversed(assign):
                    live_in.discard(a.name)
                    live_in |= _names(a.formula)
                if isinstance(spec, Update):
                    live_in.add(SHEET)
            case Roll(rolls=rolls):
                live_in = set(out)
                for r in reversed(rolls):
                    live_in.discard(r.name)
                    live_in -= {name for name, _ in r.reads}
                    live_in |= self.dice_reads(r.expr)
                    live_in.update(*(_names(f) for fs in r.thresholds for f in fs))
                    live_in.update(*(_names(f) for f in r.switches))
            case Decide(branches=branches):
                live_in = set(out).union(*(_names(b.cond) for b in branches))
            case Stop(when=when):
                live_in = set(out) | _names(when)
            case Require(when=when, message=message):
                live_in = set(out) | _names(when) | set(_PLACEHOLDER.findall(message))
            case Contest(actor=actor, defender=defender, margin=margin, tied=tied):
                live_in = (set(out) - {margin, tied}) | _names(actor) | _names(defender)
            case TableLookup():
                reads, writes = self.table_reads(spec)
                live_in = (set(out) - {spec.roll_as, spec.value_as} - writes) | reads
            case Call(args=args):
                live_in = set(out) - call_writes(spec, self.procedures)
                for arg in args:
                    live_in |= _names(arg.formula)
                if SHEET in call_writes(spec, self.procedures):
                    live_in.add(SHEET)
            case BoxChange(amount=amount, type=kind):
                live_in = set(out) | _names(amount) | _names(kind) | {SHEET}
            case If(cond=cond, then=then, otherwise=otherwise):
                then, then_in = self.steps(then, out)
                otherwise, else_in = self.steps(otherwise, out)
                spec = replace(spec, then=then, otherwise=otherwise)
                live_in = set(then_in | else_in | _names(cond))
            case BestOf(count=count, worst_when=worst, tiebreak=tiebreak, steps=body):
                body, body_in = self.steps(body, out | _names(tiebreak))
                spec = replace(spec, steps=body)
                live_in = set(body_in | _names(count) | _names(worst))
            case Loop(times=times, condition=condition, max=most, counter=counter, steps=body):
                annotated, head = self.loop(body, out | _names(condition) | ({counter} if counter else frozenset()))
                spec = replace(spec, steps=annotated)
                live_in = set(head | _names(times) | _names(most))
            case ForEach(alias=alias, steps=body):
                annotated, head = self.loop(body, out | {SHEET, alias})
                spec = replace(spec, steps=annotated)
                live_in = set(head) | set(spec.traits)
            case _:
                live_in = set(out) | {ALL}  # a kind this analysis does not know: keep everything
        return replace(step, spec=spec, live=tuple(sorted(out))), frozenset(live_in)


def call_writes(call: Call, procedures: Mapping[str, Any]) -> Names:
    """The names a call binds in the caller: the callee's values and outcomes under the prefix, and its sheet."""
    callee = procedures.get(call.procedure)
    if callee is None:
        return frozenset()
    out = {f"{call.prefix}_{n}" for n in callee.values + callee.outcomes} if call.prefix else set()
    if callee.sheet != "none":
        out.add(SHEET)
    return frozenset(out)


def writes(steps: Steps, procedures: Mapping[str, Any], tables: Mapping[str, Any]) -> Names:
    """Every name some step (nested ones included) may write; SHEET when a step may change the sheet."""
    out: set[str] = set()
    for step in walk(steps):
        spec = step.spec
        match spec:
            case Let(assign=assign):
                out |= {a.name for a in assign}
            case Update(assign=assign):
                out |= {a.name for a in assign} | {SHEET}
            case Roll(rolls=rolls):
                out |= {r.name for r in rolls} | {name for r in rolls for name, _ in r.reads}
            case Contest(margin=margin, tied=tied):
                out |= {n for n in (margin, tied) if n}
            case TableLookup(table=name, roll_as=roll_as, value_as=value_as):
                out |= {n for n in (roll_as, value_as) if n}
                table = tables.get(name)
                if table is not None:
                    for row in list(table.rows) + ([table.default] if table.default is not None else []):
                        out |= {n for n, _ in row.values}
            case Call():
                out |= call_writes(spec, procedures)
            case Loop(counter=counter):
                if counter:
                    out.add(counter)
            case ForEach(alias=alias, traits=traits):
                out |= {alias, SHEET} | set(traits)
            case BoxChange():
                out.add(SHEET)
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
        written = written | writes((step,), procedures, tables)
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
        match spec:
            case If(then=then, otherwise=otherwise):
                spec = replace(spec, then=_restrict(then, written, end), otherwise=_restrict(otherwise, written, end))
            case BestOf(steps=body) | Loop(steps=body) | ForEach(steps=body):
                spec = replace(spec, steps=_restrict(body, written, end))
        out.append(replace(step, spec=spec, live=tuple(keep)))
    return tuple(out)


def _names(formula: Any) -> Names:
    return formula.names if formula is not None else frozenset()


def with_liveness(proc: Procedure, dice: Mapping[str, Any], tables: Mapping[str, Any],
                  procedures: Mapping[str, Procedure]) -> Procedure:
    """The procedure with each step knowing the names still live after it (see liveness)."""
    liveness = Liveness(dice, tables, [p.name for p in proc.params if p.type == "dice"], procedures)
    end = set(proc.values) | ({SHEET} if proc.sheet != "none" else set())
    steps = annotate(proc.steps, end, liveness, writes(proc.steps, procedures, tables))
    # A name never written is live at the start if any step reads it; a run needs no other constant.
    _, live_in = liveness.steps(proc.steps, frozenset(end))
    unknown = ALL in live_in or any(p.type == "dice" for p in proc.params)
    return replace(proc, steps=mark_done(steps, proc.values, liveness, procedures, tables),
                   reads=None if unknown else frozenset(live_in))
