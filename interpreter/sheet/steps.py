"""Steps that change a character sheet: update, damage, heal, require and for_each.

They change names in a world's env like any step, so exact odds work for them too;
`runner` writes the changed names back to the sheet file after a run.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from interpreter.errors import Refused, RulesError, SchemaViolation, UnknownName
from interpreter.hints import suggest
from interpreter.procedure.steps import each, evaluate, run_steps
from interpreter.procedure.worlds import EvalContext, Weight, World, Worlds
from interpreter.ruleset.context import Checker, ProcContext, Scope, compile_steps
from interpreter.ruleset.model import SheetSpec
from interpreter.ruleset.specs import Assign, BoxChange, ForEach, Require, Step, Update
from interpreter.sheet.bind import refresh
from interpreter.sheet.tracks import MARKS, box_numbers, damage_marks, heal_marks

P = tuple[Any, ...]
Spec = Mapping[str, Any]


def _needs_sheet(c: Checker, ctx: ProcContext, path: P, kind: str) -> SheetSpec | None:
    if ctx.sheet is None:
        c.problem(SchemaViolation(f"a '{kind}' step needs the procedure to have 'sheet: required'", c.where(path)))
    return ctx.sheet


def compile_update(c: Checker, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> Update:
    assign = []
    _needs_sheet(c, ctx, path, "update")
    for name, value in spec["update"].items():
        at = path + ("update", name)
        if name not in ctx.writable:
            c.problem(UnknownName(f"'{name}' is not a sheet value a procedure can change", c.where(at, key=True),
                                  suggest(name, sorted(ctx.writable))))
        assign.append(Assign(name, c.formula(value, at, scope.formulas), c.where(at)))
    return Update(tuple(assign))


def _compile_box(kind: str, c: Checker, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> BoxChange:
    name = spec[kind]
    sheet = _needs_sheet(c, ctx, path, kind)
    if sheet is not None:
        track = sheet.tracks.get(name)
        if track is None or track.kind != "boxes":
            boxes = [t.name for t in sheet.tracks.values() if t.kind == "boxes"]
            c.problem(UnknownName(f"unknown box track '{name}'", c.where(path + (kind,)), suggest(name, boxes)))
    return BoxChange(name, c.formula(spec["amount"], path + ("amount",), scope.formulas),
                     c.formula(spec["type"], path + ("type",), scope.formulas))


def compile_damage(c: Checker, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> BoxChange:
    return _compile_box("damage", c, spec, path, scope, ctx)


def compile_heal(c: Checker, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> BoxChange:
    return _compile_box("heal", c, spec, path, scope, ctx)


def compile_require(c: Checker, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> Require:
    return Require(c.formula(spec["require"], path + ("require",), scope.formulas), spec["message"])


def compile_for_each(c: Checker, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> ForEach:
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


def run_update(step: Step[Update], worlds: Worlds, ctx: EvalContext) -> Worlds:
    """`update`: set sheet values, then keep every dependent name consistent."""
    def one(world: World, weight: Weight) -> Iterator[tuple[World, Weight]]:
        env = dict(world.env)
        for a in step.spec.assign:
            try:
                env[a.name] = a.formula.evaluate(env, ctx.functions)
            except RulesError as err:
                raise err.located(a.where) from None
        refresh(ctx.ruleset, env)
        yield world.with_env(env), weight
    return each(worlds, one)


def _run_box(kind: str, step: Step[BoxChange], worlds: Worlds, ctx: EvalContext) -> Worlds:
    sheet = ctx.ruleset.sheet
    assert sheet is not None  # the step compiles only in a ruleset with a sheet
    track = sheet.tracks[step.spec.track]

    def one(world: World, weight: Weight) -> Iterator[tuple[World, Weight]]:
        amount = evaluate(step.spec.amount, world, ctx, step.where)
        severity = evaluate(step.spec.type, world, ctx, step.where)
        if amount < 0:
            raise Refused(f"{kind} amount is {amount}; it cannot be negative", step.where)
        if not 1 <= severity <= len(track.types):
            raise Refused(f"damage type {severity} is not 1 to {len(track.types)} ({', '.join(track.types)})",
                          step.where)
        env = dict(world.env)
        marks = env[MARKS + track.name]
        if kind == "damage":
            temporary = env.get(track.temporary, 0) if track.temporary else 0
            marks, left = damage_marks(track, marks, amount, severity, temporary)
            if track.temporary:
                env[track.temporary] = left
        else:
            marks = heal_marks(marks, amount, severity)
        env[MARKS + track.name] = marks
        env.update(box_numbers(track, marks))
        refresh(ctx.ruleset, env)
        yield world.with_env(env), weight
    return each(worlds, one)


def run_damage(step: Step[BoxChange], worlds: Worlds, ctx: EvalContext) -> Worlds:
    """`damage`: mark boxes of a track, worst type first, filling temporary boxes before."""
    return _run_box("damage", step, worlds, ctx)


def run_heal(step: Step[BoxChange], worlds: Worlds, ctx: EvalContext) -> Worlds:
    """`heal`: clear boxes of one damage type, rightmost first."""
    return _run_box("heal", step, worlds, ctx)


def run_require(step: Step[Require], worlds: Worlds, ctx: EvalContext) -> Worlds:
    """`require`: refuse the whole procedure (nothing is written) unless the condition holds."""
    for world, _ in worlds:
        if not world.stopped and not evaluate(step.spec.when, world, ctx, step.where):
            raise Refused(fill(step.spec.message, world.env))
    return worlds


def fill(message: str, env: Any) -> str:
    """A message with each {name} replaced by that name's value ({{ and }} for braces)."""
    def value(match: Any) -> str:
        v = env.get(match.group(1))
        return str(v).lower() if isinstance(v, bool) else str(v)
    text = re.sub(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})", value, message)
    return text.replace("{{", "{").replace("}}", "}")


def run_for_each(step: Step[ForEach], worlds: Worlds, ctx: EvalContext) -> Worlds:
    """`for_each`: run steps once per trait, with its value under the alias, and write it back."""
    alias = step.spec.alias
    for trait in step.spec.traits:
        worlds = [(w if w.stopped else w.bound(alias, w.env[trait]), p) for w, p in worlds]
        worlds = run_steps(step.spec.steps, worlds, ctx)
        updated = []
        for w, p in worlds:
            if alias in w.env:
                env = dict(w.env)
                env[trait] = env[alias]
                if ctx.ruleset.sheet is not None:
                    refresh(ctx.ruleset, env)
                w = w.with_env(env)
            updated.append((w, p))
        worlds = updated
    return [(_without(w, alias), p) for w, p in worlds]


def _without(world: World, name: str) -> World:
    if name not in world.env:
        return world
    env = dict(world.env)
    del env[name]
    return world.with_env(env)
