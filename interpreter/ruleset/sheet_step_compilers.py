"""Compiling the steps that change a character sheet: update, damage, heal, require and for_each.

Each returns its kind's compiled spec (see `specs`); what the step does when it runs is in
procedure.sheet_steps.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from interpreter.errors import SchemaViolation, UnknownName
from interpreter.hints import suggest
from interpreter.ruleset.context import CompileContext, ProcContext, Scope, compile_steps
from interpreter.ruleset.model import SheetSpec
from interpreter.ruleset.specs import Assign, BoxChange, ForEach, Require, Update

P = tuple[Any, ...]
Spec = Mapping[str, Any]


def _needs_sheet(c: CompileContext, ctx: ProcContext, path: P, kind: str) -> SheetSpec | None:
    if ctx.sheet is None:
        c.problem(SchemaViolation(f"a '{kind}' step needs the procedure to have 'sheet: required'", c.where(path)))
    return ctx.sheet


def compile_update(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> Update:
    assign = []
    _needs_sheet(c, ctx, path, "update")
    for name, value in spec["update"].items():
        at = path + ("update", name)
        if name not in ctx.writable:
            c.problem(UnknownName(f"'{name}' is not a sheet value a procedure can change", c.where(at, key=True),
                                  suggest(name, sorted(ctx.writable))))
        assign.append(Assign(name, c.formula(value, at, scope.formulas), c.where(at)))
    return Update(tuple(assign))


def _compile_box(kind: str, c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> BoxChange:
    name = spec[kind]
    sheet = _needs_sheet(c, ctx, path, kind)
    if sheet is not None:
        track = sheet.tracks.get(name)
        if track is None or track.kind != "boxes":
            boxes = [t.name for t in sheet.tracks.values() if t.kind == "boxes"]
            c.problem(UnknownName(f"unknown box track '{name}'", c.where(path + (kind,)), suggest(name, boxes)))
    return BoxChange(name, c.formula(spec["amount"], path + ("amount",), scope.formulas),
                     c.formula(spec["type"], path + ("type",), scope.formulas))


def compile_damage(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> BoxChange:
    return _compile_box("damage", c, spec, path, scope, ctx)


def compile_heal(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> BoxChange:
    return _compile_box("heal", c, spec, path, scope, ctx)


def compile_require(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> Require:
    return Require(c.formula(spec["require"], path + ("require",), scope.formulas), spec["message"])


def compile_for_each(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> ForEach:
    known = ctx.sections.traits
    if isinstance(spec["for_each"], str):  # a trait group: its traits in the order they are declared
        group = spec["for_each"]
        traits = tuple(name for name, trait in known.items() if trait.group == group)
        if not traits:
            groups = sorted({t.group for t in known.values() if t.group})
            c.problem(UnknownName(f"no trait is in group '{group}'", c.where(path + ("for_each",)),
                                  suggest(group, groups) or ("groups: " + ", ".join(groups) if groups else None)))
    else:
        traits = tuple(spec["for_each"])
    for i, name in enumerate(traits):
        if name not in known:
            c.problem(UnknownName(f"unknown trait '{name}'", c.where(path + ("for_each", i)), suggest(name, list(known))))
    inner = scope.copy(weak=True)  # the steps may run no times (an empty list)
    inner.define(spec["as"])
    ctx.writable.add(spec["as"])
    steps = compile_steps(c, spec["steps"], path + ("steps",), inner, ctx)
    return ForEach(traits, spec["as"], steps)


