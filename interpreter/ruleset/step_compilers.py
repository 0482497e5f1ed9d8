"""Compiling procedure steps: one small function per step key, each checking names and references.

Each returns the step kind's frozen spec (see `specs`); the registry of step kinds
(`ruleset.kinds`) names each step key's compiler, and `procedure.kinds` what each does when it runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from interpreter.dice.reading import pool_problem
from interpreter.dice.statistic import Statistic, parse_statistic
from interpreter.errors import RulesError, SchemaViolation, UnknownName
from interpreter.hints import suggest
from interpreter.record import replace
from interpreter.ruleset.context import CompileContext, ProcContext, Scope, compile_steps
from interpreter.ruleset.effects import handles, one_dice_term, own_rolls, reaches_roll, refuse_many, roll_variants
from interpreter.ruleset.specs import (
    Arg,
    Assign,
    BestOf,
    Branch,
    Call,
    Contest,
    Decide,
    If,
    Let,
    Loop,
    Roll,
    RollInto,
    Stop,
    TableLookup,
)
from interpreter.ruleset.tables import row_name

P = tuple[Any, ...]
Spec = Mapping[str, Any]


def _outcome(c: CompileContext, name: str | None, path: P, ctx: ProcContext) -> None:
    if name is not None and name not in ctx.outcomes:
        c.problem(UnknownName(f"procedure '{ctx.name}' has no outcome '{name}'", c.where(path),
                              suggest(name, list(ctx.outcomes)) or "declare it under outcomes"))


def _f(c: CompileContext, value: Any, path: P, scope: Scope) -> Any:
    f = c.formula(value, path, scope.formulas)
    scope.refuse_absent(c, f)
    return f


def _not_sheet(c: CompileContext, name: str, path: P, ctx: ProcContext) -> None:
    """Sheet values change only through `update` (and the other sheet steps), never by rebinding."""
    if name in ctx.sheet_writable:
        c.problem(SchemaViolation(f"'{name}' is a sheet value; change it with an update step",
                                  c.where(path, key=True)))


def _bind(scope: Scope, ctx: ProcContext, *names: str | None) -> None:
    for name in names:
        if name:
            scope.define(name)
            ctx.bound.add(name)


def compile_let(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> Let:
    assign = []
    for name, value in spec["let"].items():
        at = path + ("let", name)
        _not_sheet(c, name, at, ctx)
        assign.append(Assign(name, _f(c, value, at, scope), c.where(at)))
        _bind(scope, ctx, name)
    return Let(tuple(assign))


def compile_roll(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> Roll:
    rolls = []
    for name, value in spec["roll"].items():
        at = path + ("roll", name)
        _not_sheet(c, name, at, ctx)
        expr = c.dice_expr(value, at, scope)
        if expr is not None:
            scope.refuse_absent(c, None, expr.names, c.where(at))
        rolls.append(_with_effects(c, RollInto(name, expr, c.where(at)), value, spec, at, scope, ctx))
        _bind(scope, ctx, name)
    if "read" in spec:
        reads, thresholds = _pool_reads(c, spec, path, rolls[-1].expr, scope)
        rolls[-1] = replace(rolls[-1], reads=reads, thresholds=thresholds)
        for name in spec["read"]:
            _not_sheet(c, name, path + ("read", name), ctx)
            _bind(scope, ctx, name)
    return Roll(tuple(rolls))


def _with_effects(c: CompileContext, r: RollInto, text: Any, spec: Spec, at: P, scope: Scope, ctx: ProcContext) -> RollInto:
    """The roll with the effects that reach it: the expression for each set of them that is on."""
    effects = ctx.sections.effects
    if not effects or r.expr is None or "read" in spec:  # a pool read for statistics is left as it is
        return r
    raw = ctx.sections.procedures.get(ctx.name) or {}
    reaching = tuple(e for e in effects.values() if reaches_roll(e, ctx.name, raw, at[2:], text))
    if not reaching or not refuse_many(c, reaching, c.where(at)):
        return r
    one_term = one_dice_term(r.expr.text, ctx.sections.dice)
    if one_term is None and any(e.reroll is not None for e in reaching):
        c.problem(SchemaViolation(f"effect '{next(e.name for e in reaching if e.reroll is not None)}' rerolls dice, "
                                  f"and '{r.expr.text}' is not one dice term without a reroll of its own", c.where(at),
                                  "narrow the effect's reaches to rolls of one dice term"))
        return r
    variants = []
    for changed in roll_variants(r.expr.text, reaching, spec.get("better", "high"), one_term):
        expr = c.dice_expr(changed, at, scope)
        if expr is None:
            return r
        variants.append(expr)
    flags = tuple(c.formula(e.switch_in(raw), at, scope.formulas) for e in reaching)
    if any(f is None for f in flags):
        return r
    return replace(r, effects=reaching, switches=flags, variants=tuple(variants))


def _pool_reads(c: CompileContext, spec: Spec, path: P, expr: Any,
                scope: Scope) -> tuple[tuple[tuple[str, Statistic], ...], tuple[tuple[Any, ...], ...]]:
    """`read`: statistics of the pool of a roll step's one dice term or dice group, with the thresholds
    written as formulas compiled (`count >= hit_face`)."""
    if len(spec["roll"]) != 1:
        c.problem(SchemaViolation("a roll step with 'read' rolls one pool: give 'roll' one name",
                                  c.where(path + ("read",), key=True)))
    elif expr is not None and (problem := pool_problem(expr.tree)) is not None:
        c.problem(SchemaViolation(f"'{expr.text}' {problem}", c.where(path + ("roll", next(iter(spec["roll"]))))))
    reads = []
    thresholds = []
    for name, text in spec["read"].items():
        at = path + ("read", name)
        try:
            stat = parse_statistic(text)
        except RulesError as err:
            err.where = c.where(at)
            c.problem(err)
            continue
        reads.append((name, stat))
        thresholds.append(tuple(_f(c, formula, at, scope) for formula in stat.texts))
    return tuple(reads), tuple(thresholds)


def compile_decide(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> Decide:
    branches = []
    later = scope.copy(weak=True)  # a branch's condition is read only when the ones before it fail
    for i, branch in enumerate(spec["decide"]):
        bpath = path + ("decide", i)
        cond = _f(c, branch["when"], bpath + ("when",), later if i else scope) if "when" in branch else None
        _outcome(c, branch["outcome"], bpath + ("outcome",), ctx)
        branches.append(Branch(cond, branch["outcome"], c.where(bpath)))
    return Decide(tuple(branches))


def compile_stop(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> Stop:
    _outcome(c, spec.get("outcome"), path + ("outcome",), ctx)
    return Stop(_f(c, spec["stop"], path + ("stop",), scope), spec.get("outcome"))


def compile_if(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> If:
    cond = _f(c, spec["if"], path + ("if",), scope)
    then_scope, else_scope = scope.copy(weak=True), scope.copy(weak=True)
    then = compile_steps(c, spec["then"], path + ("then",), then_scope, ctx)
    other = compile_steps(c, spec.get("else") or [], path + ("else",), else_scope, ctx)
    scope.join(then_scope, else_scope)
    return If(cond, then, other)


def compile_loop(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> Loop:
    inner = scope.copy(weak=True)
    counter = spec.get("counter")
    inner.define(counter)
    times = _f(c, spec["repeat"], path + ("repeat",), scope) if "repeat" in spec else None
    condition = _f(c, spec["while"], path + ("while",), inner) if "while" in spec else None
    most = _f(c, spec["max"], path + ("max",), scope) if "max" in spec else None
    steps = compile_steps(c, spec["steps"], path + ("steps",), inner, ctx)
    if counter:
        ctx.bound.add(counter)
    return Loop(times, condition, most, counter, steps)


def compile_best_of(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> BestOf:
    count = _f(c, spec["best_of"], path + ("best_of",), scope)
    worst = _f(c, spec["worst_when"], path + ("worst_when",), scope) if "worst_when" in spec else None
    scope.weaken()
    steps = compile_steps(c, spec["steps"], path + ("steps",), scope, ctx)
    tiebreak = _f(c, spec["tiebreak"], path + ("tiebreak",), scope) if "tiebreak" in spec else None
    return BestOf(count, worst, tiebreak, steps, ctx.name)


def compile_contest(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> Contest:
    body = spec["contest"]
    cpath = path + ("contest",)
    _outcome(c, body["win"], cpath + ("win",), ctx)
    _outcome(c, body["lose"], cpath + ("lose",), ctx)
    contest = Contest(_f(c, body["actor"], cpath + ("actor",), scope),
                      _f(c, body["defender"], cpath + ("defender",), scope),
                      body["ties"], body["win"], body["lose"], body.get("margin"), body.get("tied"))
    _bind(scope, ctx, contest.margin, contest.tied)
    return contest


def compile_table_step(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> TableLookup:
    name = spec["table"]
    tables = ctx.sections.tables
    table = tables.get(name)
    if table is None:
        c.problem(UnknownName(f"unknown table '{name}'", c.where(path + ("table",)), suggest(name, list(tables))))
    key = _f(c, spec["key"], path + ("key",), scope) if "key" in spec else None
    if table is not None and key is None and "die" not in table:
        c.problem(SchemaViolation(f"table '{name}' has no die, so this step needs a key",
                                  c.where(path, key=False)))
    defined = [spec.get("roll_as"), spec.get("value_as")]
    maybe: dict[str, str] = {}
    if table is not None:
        rows = list(table.get("rows") or []) + ([table["default"]] if "default" in table else [])
        for i, row in enumerate(table.get("rows") or []):
            _outcome(c, row.get("outcome"), ("tables", name, "rows", i, "outcome"), ctx)
        every = {n for row in rows for n in row.get("values") or {}}
        for i, row in enumerate(rows):
            for missing in sorted(every - set(row.get("values") or {})):
                maybe.setdefault(missing, f"{_row_named(name, table, i)} binds no '{missing}'")
        ctx.bound.update(every)
        defined += sorted(every - set(maybe))
        no_value = next((i for i, row in enumerate(rows) if "value" not in row), None)
        if spec.get("value_as") and no_value is not None:  # such a row leaves it absent, whatever it held
            defined.remove(spec["value_as"])
            ctx.bound.add(spec["value_as"])
            scope.maybe(spec["value_as"], f"{_row_named(name, table, no_value)} has no value", rebound=True)
    _bind(scope, ctx, *defined)
    for missing, why in maybe.items():
        scope.maybe(missing, why)
    return TableLookup(name, key, spec.get("roll_as"), spec.get("value_as"))


def _row_named(name: str, table: Mapping[str, Any], index: int) -> str:
    """A row of a table as written (its default row last), as messages name it."""
    rows = list(table.get("rows") or [])
    if index == len(rows):
        return row_name(name, index, 0, 0, default=True)
    on = rows[index].get("on", 0)
    low, high = (on, on) if isinstance(on, int) else (on[0], on[1])
    return row_name(name, index, low, high, default=False)


def handed_dice(c: CompileContext, value: Any, f: Any, at: P, scope: Scope, callee: str, pname: str,
                target: Mapping[str, Any] | None) -> str | None:
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
                and not handles(effect, caller) and not (effect.first and own_rolls(effect, ctx.name, caller)):
            given.add(effect.param)
            f = c.formula(effect.param, path + ("call",), scope.formulas)
            if f is not None:
                args.append(Arg(effect.param, f, c.where(path + ("call",))))
    prefix = spec.get("as")
    if prefix and target is not None:
        for name in list(target.get("values") or {}) + list(target.get("outcomes") or {}):
            _bind(scope, ctx, f"{prefix}_{name}")
    elif prefix:  # the unknown callee is reported at the call; what it would have bound is not reported again
        c.broken_prefixes.add(f"{prefix}_")
    if spec.get("inherit_outcome") and target is not None:
        for o in target.get("outcomes") or {}:
            _outcome(c, o, path + ("call",), ctx)
    return Call(callee, tuple(args), prefix, bool(spec.get("inherit_outcome")), c.where(path + ("call",)))
