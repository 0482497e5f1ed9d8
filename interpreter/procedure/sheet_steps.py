"""Running the steps that change a character sheet: update, damage, heal, require and for_each.

They change names in a world's env like any step, so exact odds work for them too; the
sheet layer writes the changed names back to the sheet file after a run.
"""

from __future__ import annotations

from collections.abc import Iterator

from interpreter.errors import Refused, RulesError
from interpreter.procedure.steps import each, evaluate, run_steps
from interpreter.procedure.worlds import EvalContext, Weight, World, Worlds
from interpreter.ruleset.derived import refresh
from interpreter.ruleset.specs import BoxChange, ForEach, Require, Step, Update
from interpreter.ruleset.texts import fill
from interpreter.ruleset.tracks import MARKS, box_numbers, damage_marks, heal_marks


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
