"""`update`, `damage` and `heal`: change a character sheet's values, then keep what follows from them fresh.

They change names in the state like any step, so exact odds work for them too; the sheet layer
writes the changed names back to the sheet file after a run (sheet.session).
"""

from __future__ import annotations

from typing import Any

from interpreter.errors import Location, Refused, SchemaViolation, UnknownName
from interpreter.hints import suggest
from interpreter.procedure.writing import Writer
from interpreter.ruleset.context import CompileContext, P, ProcContext, Scope, Spec
from interpreter.ruleset.derived import refresh
from interpreter.ruleset.kind import Instances, RawStep, StepKind
from interpreter.ruleset.liveness import SHEET, Liveness, Names, assigned, names
from interpreter.ruleset.model import CompiledRuleset, SheetSpec, Track
from interpreter.ruleset.specs import Assign, BoxChange, Step, Update
from interpreter.ruleset.tracks import MARKS, box_numbers, damage_marks, heal_marks

_KEYS = ("update", "damage", "heal")


def _needs_sheet(c: CompileContext, ctx: ProcContext, path: P, kind: str) -> SheetSpec | None:
    if ctx.sheet is None:
        c.problem(SchemaViolation(f"a '{kind}' step needs the procedure to have 'sheet: required'", c.where(path)))
    return ctx.sheet


def compile_update(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> Update:
    assign = []
    _needs_sheet(c, ctx, path, _KEYS[0])
    for name, value in spec[_KEYS[0]].items():
        at = path + (_KEYS[0], name)
        if name not in ctx.writable:
            c.problem(UnknownName(f"'{name}' is not a sheet value a procedure can change", c.where(at, key=True),
                                  suggest(name, sorted(ctx.writable))))
        assign.append(Assign(name, c.formula(value, at, scope.formulas), c.where(at)))
    return Update(tuple(assign))


def compile_box(kind: str, c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> BoxChange:
    name = spec[kind]
    sheet = _needs_sheet(c, ctx, path, kind)
    if sheet is not None:
        track = sheet.tracks.get(name)
        if track is None or track.kind != "boxes":
            boxes = [t.name for t in sheet.tracks.values() if t.kind == "boxes"]
            c.problem(UnknownName(f"unknown box track '{name}'", c.where(path + (kind,)), suggest(name, boxes)))
    return BoxChange(name, c.formula(spec["amount"], path + ("amount",), scope.formulas),
                     c.formula(spec["type"], path + ("type",), scope.formulas))


def compile_change(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> Update | BoxChange:
    key = next(k for k in _KEYS if k in spec)
    return compile_update(c, spec, path, scope, ctx) if key == _KEYS[0] else compile_box(key, c, spec, path, scope, ctx)


def reads(lv: Liveness, spec: Update | BoxChange, out: Names) -> tuple[Update | BoxChange, set[str]]:
    if isinstance(spec, BoxChange):
        return spec, set(out) | names(spec.amount) | names(spec.type) | {SHEET}
    return spec, assigned(out, spec.assign) | {SHEET}


def writes(spec: Update | BoxChange, *_: object) -> set[str]:
    return {SHEET} if isinstance(spec, BoxChange) else {a.name for a in spec.assign} | {SHEET}


def write_update(w: Writer, step: Step[Update]) -> None:
    for a in step.spec.assign:
        with w.located(a.where):
            w.set(a.name, w.value(a.formula))
    w.emit(f"_refresh({w.keep(w.ruleset)}, {w.names()})")


class Boxes:
    """A damage or heal step on a box track: marks boxes worst type first, or clears boxes of one type."""

    __slots__ = ("kind", "ruleset", "track", "where")

    def __init__(self, kind: str, track: Track, ruleset: CompiledRuleset, where: Location) -> None:
        self.kind = kind
        self.track = track
        self.ruleset = ruleset
        self.where = where

    def change(self, env: dict[str, Any], amount: Any, severity: Any) -> None:
        track = self.track
        if amount < 0:
            raise Refused(f"{self.kind} amount is {amount}; it cannot be negative", self.where)
        if not 1 <= severity <= len(track.types):
            raise Refused(f"damage type {severity} is not 1 to {len(track.types)} ({', '.join(track.types)})",
                          self.where)
        marks = env[MARKS + track.name]
        if self.kind == "damage":
            temporary = env.get(track.temporary, 0) if track.temporary else 0
            marks, left = damage_marks(track, marks, amount, severity, temporary)
            if track.temporary:
                env[track.temporary] = left
        else:
            marks = heal_marks(marks, amount, severity)
        env[MARKS + track.name] = marks
        env.update(box_numbers(track, marks))
        refresh(self.ruleset, env)


def _write_box(w: Writer, step: Step[BoxChange]) -> None:
    sheet = w.ruleset.sheet
    assert sheet is not None  # the step compiles only in a ruleset with a sheet
    boxes = Boxes(step.kind, sheet.tracks[step.spec.track], w.ruleset, step.where)
    amount, severity = w.temp(), w.temp()
    with w.located(step.where):
        w.emit(f"{amount} = {w.value(step.spec.amount)}")
        w.emit(f"{severity} = {w.value(step.spec.type)}")
    w.emit(f"{w.keep(boxes)}.change({w.names()}, {amount}, {severity})")


def write_change(w: Writer, step: Step[Update | BoxChange]) -> None:
    if isinstance(step.spec, Update):
        write_update(w, step)  # type: ignore[arg-type]  # (a step of this spec)
    else:
        _write_box(w, step)  # type: ignore[arg-type]


def describe(step: Step[Update | BoxChange]) -> str:
    spec = step.spec
    if isinstance(spec, Update):
        return "On the sheet, set " + "; ".join(f"`{a.name}` to `{a.formula.text}`" for a in spec.assign) + "."
    verb = "Mark" if step.kind == _KEYS[1] else "Heal"
    return f"{verb} `{spec.amount.text}` boxes of type `{spec.type.text}` on the `{spec.track}` track."


def sample(g: Instances, times: float, depth: int) -> list[RawStep]:
    """None: the steps need a character sheet with a box track, which the differential procedures have not."""
    return []


KIND = StepKind(
    keys=_KEYS, specs=(Update, BoxChange), compile=compile_change, reads=reads, writes=writes, draws=False,
    jumps=False, goes_on=True, write=write_change, describe=describe, sample=sample,
    helpers={"_refresh": refresh}
)
