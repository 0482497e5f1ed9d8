"""`call`: run another procedure with formula arguments, and bind its values and outcomes under a prefix.

A procedure that works on a sheet gets the caller's sheet, and its changes come back. What the
callee gives is the context's to say: a run with dice from a source runs it once; exact odds
work out its every end once per set of arguments and give each with its probability. An end is
`(outcome, its values in the callee's order, its sheet names)`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from interpreter.errors import BadParameter, Location, SchemaViolation
from interpreter.procedure.records import Record, RollRecord
from interpreter.procedure.start import base_env, initial_env
from interpreter.procedure.writing import Writer
from interpreter.record import replace
from interpreter.ruleset.context import CompileContext, P, ProcContext, Scope, Spec, bind, outcome_declared
from interpreter.ruleset.effects import handles, own_rolls
from interpreter.ruleset.kind import Instances, RawStep, StepKind
from interpreter.ruleset.liveness import SHEET, Liveness, Names, names
from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset
from interpreter.ruleset.specs import Arg, Call, Step

End = tuple[str | None, tuple[Any, ...], dict[str, Any]]


class Site:
    """One call step as it runs: the callee, what it is given, and how its trace shows in the caller's."""

    __slots__ = ("bound", "callee", "function", "prefix", "quick", "required", "where")

    def __init__(self, callee: CompiledProcedure, prefix: str | None, where: Location,
                 bound: Mapping[str, Any] | None = None) -> None:
        self.callee = callee
        self.prefix = prefix
        self.where = where
        self.bound = dict(bound or {})  # what the callee starts with whatever the run: its code is written with it
        self.function: Any = None  # a run's: the callee's function for these start values (procedure.function)
        self.quick: dict[str, Any] | None = None  # what that function reads at its start, besides the arguments
        self.required = tuple(p.name for p in callee.params if p.required)

    def sheet(self, env: Mapping[str, Any], sheet_names: tuple[str, ...]) -> dict[str, Any]:
        """The caller's sheet names the callee works on (none when it works on no sheet or there is none)."""
        if self.callee.sheet != "none" and env.get("has_sheet"):
            return {k: env[k] for k in sheet_names if k in env}
        if self.callee.sheet == "required":
            raise BadParameter(f"procedure '{self.callee.name}' works on a character sheet, and this call has "
                               "none to give", self.where)
        return {}

    def start(self, ruleset: CompiledRuleset, args: Mapping[str, Any], sheet: Mapping[str, Any]) -> dict[str, Any]:
        """The callee's starting names: its own start with these arguments, and the sheet."""
        env = initial_env(ruleset, self.callee, args, self.where)
        if sheet:
            env.update(sheet)
            env["has_sheet"] = True
        return env

    def light_start(self, ruleset: CompiledRuleset, function: Any, args: Mapping[str, Any]) -> dict[str, Any]:
        """The callee's starting names for a function that reads nothing of them but what it loads at its
        start: those names alone (the same values `start` gives them)."""
        quick = self.quick
        if quick is None:
            whole = {**base_env(ruleset, self.callee), **{p.name: p.default for p in self.callee.params}}
            quick = self.quick = {n: whole[n] for n in function.loads if n in whole}
        for name in self.required:
            if name not in args:
                initial_env(ruleset, self.callee, args, self.where)  # (its error)
        return {**quick, **args}

    def end(self, outcome: str | None, env: Mapping[str, Any], sheet: Mapping[str, Any]) -> End:
        """An end of the callee from its final names."""
        return outcome, tuple(env.get(name) for name in self.callee.values), {k: env[k] for k in sheet}

    def traced(self, records: list[Record]) -> list[Record]:
        """The callee's trace as the caller's shows it: its rolls named under the prefix, as formulas name them."""
        if not self.prefix:
            return records
        return [replace(r, name=f"{self.prefix}_{r.name}") if isinstance(r, RollRecord) else r for r in records]


def compile_call(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> Call:
    callee = spec["call"]
    target = ctx.sections.procedures.get(callee)
    args = []
    for pname, value in (spec.get("with") or {}).items():
        at = path + ("with", pname)
        f = c.formula(value, at, scope.formulas | scope.dice_only)
        scope.refuse_absent(c, f)
        passes = handed_dice(c, value, f, at, scope, callee, pname, target)
        args.append(Arg(pname, f, c.where(at, key=True), passes))
    given = set(spec.get("with") or {})
    caller = ctx.sections.procedures.get(ctx.name) or {}
    for effect in ctx.sections.takes.get(callee, ()):  # an effect's flag goes on to the procedures called
        if effect.param is not None and effect.param not in given and effect.param in scope.formulas \
                and not handles(effect, caller) \
                and not (effect.first and own_rolls(effect, ctx.name, caller, ctx.kinds)):
            given.add(effect.param)
            f = c.formula(effect.param, path + ("call",), scope.formulas)
            if f is not None:
                args.append(Arg(effect.param, f, c.where(path + ("call",))))
    prefix = spec.get("as")
    if prefix and target is not None:
        for name in list(target.get("values") or {}) + list(target.get("outcomes") or {}):
            bind(scope, ctx, f"{prefix}_{name}")
    elif prefix:  # the unknown callee is reported at the call; what it would have bound is not reported again
        c.broken_prefixes.add(f"{prefix}_")
    if spec.get("inherit_outcome") and target is not None:
        for o in target.get("outcomes") or {}:
            outcome_declared(c, o, path + ("call",), ctx)
    return Call(callee, tuple(args), prefix, bool(spec.get("inherit_outcome")), c.where(path + ("call",)))


def handed_dice(c: CompileContext, value: object, f: Any, at: P, scope: Scope, callee: str, pname: str,
                target: Spec | None) -> str | None:
    """The dice a `with` value hands on whole (`damage: damage` to a dice parameter), or None for a formula.

    Dice go on only whole and only to a dice parameter: in a formula, or to a number parameter,
    they are refused here rather than when a run reaches the call.
    """
    if f is None:
        return None
    dice_names = sorted(f.names & (scope.dice_only - scope.formulas))
    if not dice_names:
        return None
    params = (target or {}).get("params") or {}
    kind = params.get(pname, {}).get("type") if isinstance(params.get(pname), Mapping) else None
    name: str = dice_names[0]
    if isinstance(value, str) and value.strip() == name and kind == "dice":
        return name
    if kind == "dice":
        c.problem(SchemaViolation(f"'{name}' is dice: hand it on whole ({pname}: {name}), not in a formula",
                                  c.where(at), "roll it first (- roll: {rolled: " + name + "}) to compute with it"))
    elif target is not None and pname in params:
        c.problem(SchemaViolation(f"'{name}' is dice, and parameter '{pname}' of '{callee}' takes a number",
                                  c.where(at), "roll it first (- roll: {rolled: " + name + "}) and give the roll"))
    return None


def call_writes(call: Call, procedures: Mapping[str, CompiledProcedure]) -> Names:
    """The names a call binds in the caller: the callee's values and outcomes under the prefix, and its sheet."""
    callee = procedures.get(call.procedure)
    if callee is None:
        return frozenset()
    out = {f"{call.prefix}_{n}" for n in callee.values + callee.outcomes} if call.prefix else set()
    if callee.sheet != "none":
        out.add(SHEET)
    return frozenset(out)


def reads(lv: Liveness, spec: Call, out: Names) -> tuple[Call, set[str]]:
    written = call_writes(spec, lv.procedures)
    live_in = set(out) - written
    for arg in spec.args:
        live_in |= names(arg.formula)
    if SHEET in written:
        live_in.add(SHEET)
    return spec, live_in


def writes(spec: Call, procedures: Mapping[str, CompiledProcedure], tables: object) -> Names:
    return call_writes(spec, procedures)


def write_call(w: Writer, step: Step[Call]) -> None:
    spec = step.spec
    callee = w.ruleset.procedures[spec.procedure]
    args = []
    w.drawing(step.where)
    with w.located(step.where):
        for a in spec.args:  # dice handed on whole are the caller's value as it is (the callee rolls them)
            args.append((a.name, w.value_of(a.passes) if a.passes else w.value(a.formula)))
    bound: dict[str, Any] = {}
    for name, code in args:
        known, value = w.known(code)
        if known and type(value) in (int, bool):
            bound[name] = value
    given = {name for name, _ in args}
    bound.update((p.name, p.default) for p in callee.params
                 if p.name not in given and not p.required and type(p.default) in (int, bool))
    if "has_sheet" in w.fixed:  # whether the callee gets a sheet is known too
        bound["has_sheet"] = bool(w.fixed["has_sheet"]) and callee.sheet != "none"
    end = w.call(Site(callee, spec.prefix, step.where, bound), args)
    if spec.prefix:  # (a name no later step reads and the procedure does not report is not bound)
        live = set(step.live)
        for i, name in enumerate(callee.values):
            if f"{spec.prefix}_{name}" in live:
                w.set(f"{spec.prefix}_{name}", f"{end}[1][{i}]")
        for name in callee.outcomes:
            if f"{spec.prefix}_{name}" in live:
                w.set(f"{spec.prefix}_{name}", f"{end}[0] == {name!r}")
    w.emit(f"if {end}[2]: {w.names()}.update({end}[2])")  # the sheet as the callee left it
    if spec.inherit:
        w.outcome_of(f"{end}[0]")


def describe(step: Step[Call]) -> str:
    spec = step.spec
    text = f"Run `{spec.procedure}`"
    if spec.args:
        text += " with " + ", ".join(f"{a.name} = `{a.formula.text}`" for a in spec.args)
    if spec.prefix:
        text += f", its values as `{spec.prefix}_NAME` and its outcomes as flags `{spec.prefix}_OUTCOME`"
    if spec.inherit:
        text += ", and take its outcome"
    return text + "."


def sample(g: Instances, times: float, depth: int) -> list[RawStep]:
    """A call with a random argument, what it gives read afterwards, its outcome taken one time in two."""
    if not g.afford(math.log(3), times):
        return []
    callee, param, gives = g.callee()
    step: RawStep = {"call": callee, "with": {param: g.number()}, "as": "h"}
    if g.rng.random() < 0.5:
        step["inherit_outcome"] = True
    return [step, g.keep(" + ".join(f"h_{name}" for name in gives))]


KIND = StepKind(
    keys=("call",), specs=(Call,), compile=compile_call, reads=reads, writes=writes, draws=True, jumps=False,
    goes_on=False, write=write_call, describe=describe, sample=sample, refers={"call": "procedure"}, sets_outcome=True
)
