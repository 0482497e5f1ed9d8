"""Calls: running another procedure from a step, and the names any procedure starts with."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from interpreter.absent import Absent
from interpreter.errors import BadParameter, Location
from interpreter.procedure.steps import each, evaluate, run_steps
from interpreter.procedure.trace import RollRecord
from interpreter.procedure.weights import Ratio, add_all, den_product
from interpreter.procedure.worlds import EvalContext, Weight, World, Worlds
from interpreter.record import replace
from interpreter.ruleset.liveness import SHEET
from interpreter.ruleset.model import Procedure, Ruleset
from interpreter.ruleset.specs import Call, Step

make = tuple.__new__  # a World without its Python-level constructor, where many are made


def run_call(step: Step[Call], worlds: Worlds, ctx: EvalContext) -> Worlds:
    """`call`: run another procedure with formula arguments and bind its results under a prefix."""
    spec = step.spec
    callee: Procedure = ctx.ruleset.procedures[spec.procedure]

    def start(args: dict[str, Any], sheet: dict[str, Any]) -> World:
        env = initial_env(ctx.ruleset, callee, args, step.where)
        if sheet:
            env.update(sheet)
            env["has_sheet"] = True
        return World(env)

    def ends(args: dict[str, Any], sheet: dict[str, Any]) -> Worlds:
        if not ctx.exact:
            return run_steps(callee.steps, [(start(args, sheet), 1)], ctx)
        # For odds a callee's ends depend only on its arguments (and the sheet): work them out once per run.
        key = (callee.name, tuple(args.items()), tuple(sheet.items()))
        cached = ctx.calls.get(key)
        if cached is None:
            settled, ctx.settled = ctx.settled, frozenset()  # the caller's settled values are not the callee's
            try:
                cached = ctx.calls[key] = run_steps(callee.steps, [(start(args, sheet), 1)], ctx)
            finally:
                ctx.settled = settled
        return cached

    def one(world: World, weight: Weight) -> Iterable[tuple[World, Weight]]:
        args = {a.name: world.env[a.passes] if a.passes else evaluate(a.formula, world, ctx, step.where)
                for a in spec.args}  # dice handed on whole are the caller's value as it is
        prefix = spec.prefix
        # A procedure that works on a sheet gets the caller's sheet, and its changes come back.
        sheet: dict[str, Any] = {}
        if callee.sheet != "none" and world.env.get("has_sheet"):
            sheet = {k: world.env[k] for k in ctx.sheet_names if k in world.env}
        elif callee.sheet == "required":
            raise BadParameter(f"procedure '{callee.name}' works on a character sheet, and this call has none to give",
                               step.where)
        found = ends(args, sheet)
        ctx.tick(len(found), step.where)  # every end of the callee becomes a world of the caller
        if ctx.exact:
            return exact_ends(world, weight, found, sheet)
        out: Worlds = []
        for end, p in found:
            env = dict(world.env)
            env.update(bindings(end, sheet))
            trace = end.trace
            if prefix:
                trace = tuple(replace(r, name=f"{prefix}_{r.name}") if isinstance(r, RollRecord) else r for r in trace)
            new = World(env, world.outcome, world.stopped, world.trace + trace, world.loops)
            if spec.inherit:
                new = new.with_outcome(end.outcome)
            out.append((new, weight * p))
        return out

    def bindings(end: World, sheet: Mapping[str, Any]) -> dict[str, Any]:
        """The names an end of the callee binds in the caller: its values and outcomes under the prefix, the sheet."""
        out: dict[str, Any] = {}
        if spec.prefix:
            for name in callee.values:
                out[f"{spec.prefix}_{name}"] = end.env.get(name)
            for name in callee.outcomes:
                out[f"{spec.prefix}_{name}"] = end.outcome == name
        for name in sheet:
            out[name] = end.env[name]
        return out

    def exact_ends(world: World, weight: Weight, found: Worlds, sheet: Mapping[str, Any]) -> Worlds:
        # What each end binds, worked out once per set of ends; names no later step reads are left out,
        # and ends that bind the same (and give the same outcome, when it is inherited) are one.
        key = ("ends", id(step), id(found))
        shared = ctx.calls.get(key)
        if shared is None:
            live = set(ctx.key_names(step.live))
            merged: dict[Any, tuple[dict[str, Any], str | None, list[Weight]]] = {}
            for end, p in found:
                bound = {k: v for k, v in bindings(end, sheet).items() if k in live}
                outcome = end.outcome if spec.inherit else None
                seen = merged.setdefault((tuple(bound.items()), outcome), (bound, outcome, []))
                seen[2].append(p)
            kept = [(b, o, add_all(ps)) for b, o, ps in merged.values()]
            ratios = [p for _, _, p in kept if type(p) is Ratio]
            common = ratios[0].den if ratios and len(ratios) == len(kept) and all(
                p.den == ratios[0].den for p in ratios) else None  # the ends' one denominator, when they share it
            shared = ctx.calls[key] = (found, kept, common, [(b, p.num) for b, _, p in kept] if common else [])
        env, loops, stopped, trace = world.env, world.loops, world.stopped, world.trace
        if spec.inherit:
            out: Worlds = []
            for bound, outcome, p in shared[1]:
                new = {**env, **bound}
                new["outcome"] = 0 if outcome is None else new.get(outcome, 0)
                out.append((World(new, outcome, stopped, trace, loops), weight * p))
            return out
        outcome = world.outcome
        if shared[2] is not None and type(weight) is Ratio:
            num, den = weight.num, den_product(weight.den, shared[2])  # the usual case: one product of denominators
            return [(make(World, ({**env, **bound}, outcome, stopped, trace, loops)), Ratio(num * n, den))
                    for bound, n in shared[3]]
        return [(World({**env, **bound}, outcome, stopped, trace, loops), weight * p) for bound, _, p in shared[1]]

    return each(worlds, one)


def initial_env(ruleset: Ruleset, proc: Procedure, args: Mapping[str, Any], where: Location | None = None) -> dict[str, Any]:
    """The names a procedure starts with: constants and named dice its steps read, its outcomes' ranks, then
    its parameters."""
    env = _base_env(ruleset, proc)
    env.update((name, rank) for rank, name in enumerate(proc.outcomes, start=1))
    env["outcome"] = 0
    env["has_sheet"] = False
    for param in proc.params:
        if param.name in args:
            env[param.name] = args[param.name]
        elif not param.required:
            env[param.name] = param.default
        else:
            raise BadParameter(f"procedure '{proc.name}' needs parameter '{param.name}'", where)
    if proc.sheet == "optional":  # until a sheet is given, a derived value that reads its state has no value
        for derived in ruleset.derived.values():
            if derived.state:
                env[derived.name] = Absent(f"it is a derived value that reads sheet state ({', '.join(sorted(derived.state))})",
                                           "give --sheet FILE", "needs a sheet")
    return env


_BASES: dict[tuple[int, int], tuple[Ruleset, Procedure, dict[str, Any]]] = {}


def _base_env(ruleset: Ruleset, proc: Procedure) -> dict[str, Any]:
    """A new dict of the constants and named dice a procedure reads (every one when that is not known).

    Worlds copy their env whenever a step binds a name, so leaving out what no step reads
    makes every step cheaper. Worked out once per compiled procedure.
    """
    key = (id(ruleset), id(proc))
    known = _BASES.get(key)
    if known is None or known[0] is not ruleset or known[1] is not proc:
        everything = {**ruleset.constants, **ruleset.dice}
        reads = proc.reads  # sheet steps may read any constant
        base = everything if reads is None or SHEET in reads else {k: v for k, v in everything.items() if k in reads}
        if len(_BASES) > 256:
            _BASES.clear()
        known = _BASES[key] = (ruleset, proc, base)
    return dict(known[2])
