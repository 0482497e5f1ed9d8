"""`roll`: roll dice expressions and bind their results; with `read`, statistics of one pool too.

What a roll gives is the context's to say (procedure.run_context rolls the dice; procedure.exact
gives each result in turn with its probability), so this code is the same for both.
"""

from __future__ import annotations

from collections.abc import Mapping

from interpreter.dice.expr import DiceExpr
from interpreter.dice.statistic import Statistic, parse_statistic
from interpreter.errors import RulesError, SchemaViolation
from interpreter.procedure.records import NoteRecord
from interpreter.procedure.writing import Writer
from interpreter.record import replace
from interpreter.ruleset.context import CompileContext, P, ProcContext, Scope, Spec, bind, formula_at, not_sheet
from interpreter.ruleset.effects import one_dice_term, reaches_roll, refuse_many, roll_variants
from interpreter.ruleset.kind import Instances, RawStep, StepKind
from interpreter.ruleset.liveness import Liveness, Names, names
from interpreter.ruleset.specs import RollInto, RollStep, Step


def compile_roll(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> RollStep:
    rolls = []
    for name, value in spec["roll"].items():
        at = path + ("roll", name)
        not_sheet(c, name, at, ctx)
        expr = c.dice_expr(value, at, scope)
        if expr is not None:
            scope.refuse_absent(c, None, expr.names, c.where(at))
        rolls.append(_with_effects(c, RollInto(name, expr, c.where(at)), value, spec, at, scope, ctx))
        bind(scope, ctx, name)
    if "read" in spec:
        reads, thresholds = _pool_reads(c, spec, path, rolls[-1].expr, scope)
        rolls[-1] = replace(rolls[-1], reads=reads, thresholds=thresholds)
        for name in spec["read"]:
            not_sheet(c, name, path + ("read", name), ctx)
            bind(scope, ctx, name)
    return RollStep(tuple(rolls))


def _with_effects(c: CompileContext, r: RollInto, text: object, spec: Spec, at: P, scope: Scope,
                  ctx: ProcContext) -> RollInto:
    """The roll with the effects that reach it: the expression for each set of them that is on."""
    effects = ctx.sections.effects
    if not effects or r.expr is None or "read" in spec:  # a pool read for statistics is left as it is
        return r
    raw = ctx.sections.procedures.get(ctx.name) or {}
    reaching = tuple(e for e in effects.values() if reaches_roll(e, ctx.name, raw, at[2:], text, ctx.kinds))
    if not reaching or not refuse_many(c, reaching, c.where(at)):
        return r
    one_term = one_dice_term(r.expr.text, ctx.sections.dice)
    if one_term is None and any(e.reroll is not None for e in reaching):
        c.problem(SchemaViolation(f"effect '{next(e.name for e in reaching if e.reroll is not None)}' rerolls dice, "
                                  f"and '{r.expr.text}' is not one dice term without a reroll of its own", c.where(at),
                                  "narrow the effect's reaches to rolls of one dice term"))
        return r
    variants = []
    better = spec.get("better", "high")
    for changed in roll_variants(r.expr.text, reaching, better, one_term):
        expr = c.dice_expr(changed, at, scope)
        if expr is None:
            return r
        variants.append(expr)
    flags = tuple(c.formula(e.switch_in(raw), at, scope.formulas) for e in reaching)
    if any(f is None for f in flags):
        return r
    rolled = _rolled(one_term, r.expr.text)
    return replace(r, effects=reaching, switches=flags, variants=tuple(variants),
                   changes=tuple(e.change(rolled, better) for e in reaching))


def _rolled(one_term: str | None, text: str) -> str:
    """What a roll rolls, in the words of an advantage die (`two d20`): its one die, or its expression."""
    if one_term is not None and one_term.startswith("1d") and one_term[2:].isdigit():
        return one_term[1:]
    return f"rolls of {one_term or text}"


def _pool_reads(c: CompileContext, spec: Spec, path: P, expr: DiceExpr | None,
                scope: Scope) -> tuple[tuple[tuple[str, Statistic], ...], tuple[tuple[object, ...], ...]]:
    """`read`: statistics of the pool of a roll step's one dice term or dice group, with the thresholds
    written as formulas compiled (`count >= hit_face`)."""
    from interpreter.dice.reading import pool_problem  # (the reading of pools: loaded by a ruleset that reads one)

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
        thresholds.append(tuple(formula_at(c, formula, at, scope) for formula in stat.texts))
    return tuple(reads), tuple(thresholds)


def reads(lv: Liveness, spec: RollStep, out: Names) -> tuple[RollStep, set[str]]:
    live_in = set(out)
    for r in reversed(spec.rolls):
        live_in.discard(r.name)
        live_in -= {name for name, _ in r.reads}
        live_in |= lv.dice_reads(r.expr)
        live_in.update(*(names(f) for fs in r.thresholds for f in fs))
        live_in.update(*(names(f) for f in r.switches))
    return spec, live_in


def writes(spec: RollStep, *_: object) -> set[str]:
    return {r.name for r in spec.rolls} | {name for r in spec.rolls for name, _ in r.reads}


def write_roll(w: Writer, step: Step[RollStep]) -> None:
    for r in step.spec.rolls:
        write_roll_into(w, r, step.live)


def write_roll_into(w: Writer, r: RollInto, live: tuple[str, ...] | None = None) -> None:
    """One `name: dice` (a roll step's, or a value a table row rolls); `live` are the names read after it.

    The thresholds of the statistics a pool's `read` binds are formulas (`count >= hit_face`),
    worked out here; exact odds of a pool leave its own value out when nothing reads it."""
    w.drawing(r.where)
    with w.located(r.where):
        if r.effects:
            write_effects(w, r)
            return
        if not r.reads:
            w.set(r.name, w.roll(r.name, r.expr, r.where))
            return
        given = ", ".join("(" + "".join(f"{w.value(f)}, " for f in fs) + ")" for fs in r.thresholds)
        thresholds = f"({given},)" if r.thresholds else "()"
        t = w.temp()
        value_read = live is None or r.name in live
        w.emit(f"{t} = {w.pool(r, thresholds, value_read)}")  # the pool's value, then each statistic it reads
        w.set(r.name, f"{t}[0]")
        for i, (name, _) in enumerate(r.reads, start=1):
            w.set(name, f"{t}[{i}]")


def write_effects(w: Writer, r: RollInto) -> None:
    """A roll that effects reach: each effect that is on sets its bit of the pick, the expression of that set of
    effects is rolled, and the trace says which effects applied and why."""
    bits, value = [], 0
    for i, flag in enumerate(r.switches):
        on = w.value(flag)
        fixed, holds = w.known(on)
        if not fixed:
            bits.append(f"({1 << i} if {on} else 0)")
        elif holds:
            value |= 1 << i
    known = not bits
    pick = " + ".join([*bits, str(value)])
    if known:  # every flag is fixed in the code written: the one expression is rolled
        w.set(r.name, w.roll(r.name, r.variants[value], r.where))
    else:
        t = w.temp()
        w.emit(f"{t} = {pick}")
        w.set(r.name, w.roll_among(r.name, r.variants, t, r.where))
        pick = t
    for i, effect in enumerate(r.effects):
        why = effect.why()
        note = NoteRecord(f"effect {effect.name} ({why}): {r.changes[i]} on {r.name}"
                          + (f": {effect.summary}" if effect.summary else ""))
        w.trace_when(f"({bool(value >> i & 1)})" if known else f"{pick} & {1 << i}", note)


def rolls(step: RawStep) -> list[tuple[str, str, object]]:
    """The rolls of a step as written that effects may change: all of a roll step's, unless it reads a pool."""
    into = step.get("roll")
    if not isinstance(into, Mapping) or "read" in step:
        return []
    return [("roll", str(name), text) for name, text in into.items()]


def describe(step: Step[RollStep]) -> str:
    parts = []
    for r in step.spec.rolls:
        text = f"`{r.expr.text}` into `{r.name}`"
        if r.reads:
            text += " (reading " + ", ".join(f"`{name}` = {stat.text}" for name, stat in r.reads) + ")"
        parts.append(text)
    return "Roll " + "; ".join(parts) + "."


def sample(g: Instances, times: float, depth: int) -> list[RawStep]:
    """A roll into a name, one time in four of a pool with a statistic read into another name."""
    name = g.name()
    pool = g.rng.random() < 0.25
    before, expr, cost = g.dice(pool)
    if not g.afford(cost, times):
        return []
    step: RawStep = {"roll": {name: expr}}
    if pool:
        other = name
        while other == name:
            other = g.name()
        step["read"] = {other: g.rng.choice(("highest", "count == 2", "dice", "lowest"))}
    return [*before, step]


KIND = StepKind(
    keys=("roll",), specs=(RollStep,), compile=compile_roll, reads=reads, writes=writes, draws=True, jumps=False,
    goes_on=True, write=write_roll, describe=describe, sample=sample, rolls=rolls
)
