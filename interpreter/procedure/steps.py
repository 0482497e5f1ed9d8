"""The step handlers of the procedure language, one per YAML key, shared by rolling and exact odds."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any

from interpreter import limits
from interpreter.errors import BadParameter, LimitExceeded, Location, RulesError, TableMiss, UnknownStepKind
from interpreter.procedure.worlds import FIXED, EvalContext, NoteRecord, RollRecord, Weight, World, Worlds, merge, total
from interpreter.ruleset.model import Procedure, Ruleset
from interpreter.ruleset.specs import (
    BestOf,
    Call,
    Contest,
    Decide,
    If,
    Let,
    Loop,
    Roll,
    RollInto,
    Step,
    Steps,
    Stop,
    TableLookup,
)


def evaluate(formula: Any, world: World, ctx: EvalContext, where: Location) -> Any:
    """A formula's value in a world, with errors placed at the step."""
    try:
        return formula.evaluate(world.env, ctx.functions)
    except RulesError as err:
        raise err.located(where) from None


def run_steps(steps: Steps, worlds: Worlds, ctx: EvalContext) -> Worlds:
    """Run steps in order over worlds; worlds that stopped pass through untouched."""
    for step in steps:
        if all(world.stopped for world, _ in worlds):
            break
        handler = ctx.handlers.get(step.kind)
        if handler is None:
            raise UnknownStepKind(f"unknown step kind '{step.kind}'", step.where)
        ctx.tick(len(worlds), step.where)
        worlds = handler(step, worlds, ctx)
        if ctx.exact:
            worlds = merge(worlds)
    return worlds


def _each(worlds: Worlds, fn: Callable[[World, Weight], Iterator[tuple[World, Weight]]]) -> Worlds:
    """Apply a per-world function to every running world, keeping stopped ones as they are."""
    out: Worlds = []
    for world, weight in worlds:
        if world.stopped:
            out.append((world, weight))
        else:
            out.extend(fn(world, weight))
    return out


def run_let(step: Step[Let], worlds: Worlds, ctx: EvalContext) -> Worlds:
    """`let`: bind names to formula values, in order."""
    def one(world: World, weight: Weight) -> Iterator[tuple[World, Weight]]:
        world = world.but()
        for a in step.spec.assign:
            world.env[a.name] = evaluate(a.formula, world, ctx, a.where)
        yield world, weight
    return _each(worlds, one)


def roll_into(world: World, weight: Weight, rolls: tuple[RollInto, ...], ctx: EvalContext) -> Worlds:
    """Roll dice in order, binding each result; one branch per result for odds."""
    branches = [(world, weight)]
    for r in rolls:
        grown = []
        for w, p in branches:
            if r.reads:
                for values, prob, records in ctx.pool_outcomes(r, w.env, p):
                    new = w.bound(r.name, values[0])
                    for (name, _), value in zip(r.reads, values[1:], strict=True):
                        new.env[name] = value
                    new.trace = w.trace + records
                    grown.append((new, p * prob))
                continue
            for value, prob, record in ctx.outcomes(r.name, r.expr, w.env, p, r.where):
                new = w.bound(r.name, value)
                if record is not None:
                    new.trace = w.trace + (record,)
                grown.append((new, p * prob))
        branches = grown
    return branches


def run_roll(step: Step[Roll], worlds: Worlds, ctx: EvalContext) -> Worlds:
    """`roll`: roll dice expressions and bind their results; branches over every result for odds."""
    def one(world: World, weight: Weight) -> Iterator[tuple[World, Weight]]:
        yield from roll_into(world, weight, step.spec.rolls, ctx)
    return _each(worlds, one)


def run_decide(step: Step[Decide], worlds: Worlds, ctx: EvalContext) -> Worlds:
    """`decide`: the first branch whose condition holds sets the outcome."""
    def one(world: World, weight: Weight) -> Iterator[tuple[World, Weight]]:
        for b in step.spec.branches:
            if b.cond is None or evaluate(b.cond, world, ctx, b.where):
                yield world.with_outcome(b.outcome), weight
                return
        yield world, weight
    return _each(worlds, one)


def run_stop(step: Step[Stop], worlds: Worlds, ctx: EvalContext) -> Worlds:
    """`stop`: end the procedure when a condition holds, optionally setting the outcome."""
    cond, outcome = step.spec.when, step.spec.outcome

    def one(world: World, weight: Weight) -> Iterator[tuple[World, Weight]]:
        if cond is None or evaluate(cond, world, ctx, step.where):
            if outcome is not None:
                world = world.with_outcome(outcome)
            yield world.but(stopped=True), weight
        else:
            yield world, weight
    return _each(worlds, one)


def run_if(step: Step[If], worlds: Worlds, ctx: EvalContext) -> Worlds:
    """`if`: run `then` steps in the worlds where the condition holds, `else` steps in the rest."""
    yes: Worlds = []
    no: Worlds = []
    done: Worlds = []
    for world, weight in worlds:
        if world.stopped:
            done.append((world, weight))
        elif evaluate(step.spec.cond, world, ctx, step.where):
            yes.append((world, weight))
        else:
            no.append((world, weight))
    if yes:
        yes = run_steps(step.spec.then, yes, ctx)
    if no:
        no = run_steps(step.spec.otherwise, no, ctx)
    return done + yes + no


def run_repeat(step: Step[Loop], worlds: Worlds, ctx: EvalContext) -> Worlds:
    """`repeat`: run the body a number of times, or while a condition holds, up to a maximum."""
    spec = step.spec
    slot = f"#repeat@{step.where.line}:{step.where.col}"  # not a formula name, so private
    out: Worlds = []
    active: Worlds = []
    for world, weight in worlds:
        if world.stopped:
            out.append((world, weight))
            continue
        world = world.bound(slot, 0)
        if spec.times is not None:
            world.env[slot + "n"] = evaluate(spec.times, world, ctx, step.where)
        if spec.max is not None:
            world.env[slot + "m"] = evaluate(spec.max, world, ctx, step.where)
        active.append((world, weight))
    private = (slot, slot + "n", slot + "m")
    for _ in range(limits.MAX_LOOP_ITERATIONS + 1):
        going: Worlds = []
        for world, weight in active:
            if _continues(step, world, ctx, slot):
                going.append((world, weight))
            else:
                out.append((world, weight))
        if not going:
            break
        if ctx.exact and total(going) < limits.TRUNCATION_MASS:
            ctx.truncated += float(total(going))
            going = []
            break
        counted = []
        for world, weight in going:
            world = world.bound(slot, world.env[slot] + 1)
            if spec.counter:
                world.env[spec.counter] = world.env[slot]
            counted.append((world, weight))
        active = run_steps(spec.steps, counted, ctx)
    else:
        raise LimitExceeded(f"a loop ran more than {limits.MAX_LOOP_ITERATIONS} times", step.where)
    cleaned = []
    for world, weight in out:
        if slot in world.env:
            world = world.but()
            for name in private:
                world.env.pop(name, None)
        cleaned.append((world, weight))
    return cleaned


def _continues(step: Step[Loop], world: World, ctx: EvalContext, slot: str) -> bool:
    if world.stopped:
        return False
    done = world.env[slot]
    if slot + "n" in world.env and done >= world.env[slot + "n"]:
        return False
    if slot + "m" in world.env and done >= world.env[slot + "m"]:
        return False
    cond = step.spec.condition
    return cond is None or bool(evaluate(cond, world, ctx, step.where))


def run_best_of(step: Step[BestOf], worlds: Worlds, ctx: EvalContext) -> Worlds:
    """`best_of`: run the body N times from the same state and keep the best (or worst) result.

    Better means a better outcome tier first (outcomes are listed best first), then a
    larger tiebreak value.
    """
    spec = step.spec
    proc: Procedure = ctx.ruleset.procedures[spec.procedure]

    def one(world: World, weight: Weight) -> Iterator[tuple[World, Weight]]:
        count = evaluate(spec.count, world, ctx, step.where)
        if not 1 <= count <= limits.MAX_LOOP_ITERATIONS:
            raise LimitExceeded(f"best_of count is {count}; it must be 1 to {limits.MAX_LOOP_ITERATIONS}",
                                step.where)
        worst = bool(spec.worst_when is not None and evaluate(spec.worst_when, world, ctx, step.where))
        start = world.but(trace=())
        if ctx.exact:
            once = run_steps(spec.steps, [(start, 1)], ctx)
            runs = [once] * count
        else:
            runs = [run_steps(spec.steps, [(start, 1)], ctx) for _ in range(count)]

        def score(w: World) -> tuple[int, Any]:
            tiebreak = 0 if spec.tiebreak is None else evaluate(spec.tiebreak, w, ctx, step.where)
            return (-proc.rank(w.outcome), tiebreak)

        best = runs[0]
        for run in runs[1:]:
            chosen: Worlds = []
            for a, pa in best:
                for b, pb in run:
                    sa, sb = score(a), score(b)
                    pick = (b if sb < sa else a) if worst else (b if sb > sa else a)
                    if not ctx.exact:
                        pick = pick.but(trace=a.trace + b.trace)
                    chosen.append((pick, pa * pb))
            best = merge(chosen) if ctx.exact else chosen
        for picked, p in best:
            result = picked.but(trace=world.trace + picked.trace)
            if not ctx.exact and count > 1:
                which = "worst" if worst else "best"
                result.trace += (NoteRecord(f"kept the {which} of {count}"),)
            yield result, weight * p
    return _each(worlds, one)


def run_contest(step: Step[Contest], worlds: Worlds, ctx: EvalContext) -> Worlds:
    """`contest`: compare two sides; the declared side wins ties; bind the margin."""
    spec = step.spec

    def one(world: World, weight: Weight) -> Iterator[tuple[World, Weight]]:
        actor = evaluate(spec.actor, world, ctx, step.where)
        defender = evaluate(spec.defender, world, ctx, step.where)
        won = actor > defender or (actor == defender and spec.ties == "actor")
        world = world.with_outcome(spec.win if won else spec.lose)
        if spec.margin:
            world.env[spec.margin] = actor - defender
        if spec.tied:
            world.env[spec.tied] = actor == defender
        yield world, weight
    return _each(worlds, one)


def run_table(step: Step[TableLookup], worlds: Worlds, ctx: EvalContext) -> Worlds:
    """`table`: roll a table's die (or look up a key) and apply the matching row."""
    spec = step.spec
    table = ctx.ruleset.tables[spec.table]

    def apply(world: World, weight: Weight, key: int) -> Iterator[tuple[World, Weight]]:
        row = table.row_for(key)
        if row is None:
            raise TableMiss(f"table '{table.name}' has no row for {key}", step.where)
        if spec.roll_as:
            world = world.bound(spec.roll_as, key)
        if row.outcome is not None:
            world = world.with_outcome(row.outcome)
        if spec.value_as:
            value = None if row.value is None else evaluate(row.value, world, ctx, row.where)
            world = world.bound(spec.value_as, value)
        if not ctx.exact:
            world = world.but(trace=world.trace + (NoteRecord(f"{table.name}: {key} → {row.text}"),))
        yield from roll_into(world, weight, tuple(RollInto(name, expr, row.where) for name, expr in row.values), ctx)

    def one(world: World, weight: Weight) -> Iterator[tuple[World, Weight]]:
        if spec.key is not None:
            yield from apply(world, weight, evaluate(spec.key, world, ctx, step.where))
            return
        for key, prob, record in ctx.outcomes(table.name, table.die, world.env, weight, step.where):
            w = world if record is None else world.but(trace=world.trace + (record,))
            yield from apply(w, weight * prob, key)
    return _each(worlds, one)


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
            cached = ctx.calls[key] = run_steps(callee.steps, [(start(args, sheet), 1)], ctx)
        return cached

    def one(world: World, weight: Weight) -> Iterator[tuple[World, Weight]]:
        args = {a.name: evaluate(a.formula, world, ctx, step.where) for a in spec.args}
        prefix = spec.prefix
        # A procedure that works on a sheet gets the caller's sheet, and its changes come back.
        sheet: dict[str, Any] = {}
        if callee.sheet != "none" and world.env.get("has_sheet"):
            sheet = {k: world.env[k] for k in ctx.sheet_names if k in world.env}
        elif callee.sheet == "required":
            raise BadParameter(f"procedure '{callee.name}' works on a character sheet, and this call has none to give",
                               step.where)
        for end, p in ends(args, sheet):
            trace = end.trace
            if prefix and not ctx.exact:
                trace = tuple(replace(r, name=f"{prefix}.{r.name}") if isinstance(r, RollRecord) else r for r in trace)
            new = world.but(trace=world.trace + trace)
            if prefix:
                for name in callee.values:
                    new.env[f"{prefix}_{name}"] = end.env.get(name)
                for name in callee.outcomes:
                    new.env[f"{prefix}_{name}"] = end.outcome == name
            for name in sheet:
                new.env[name] = end.env[name]
            if spec.inherit:
                new = new.with_outcome(end.outcome)
            yield new, weight * p
    return _each(worlds, one)


def initial_env(ruleset: Ruleset, proc: Procedure, args: Mapping[str, Any], where: Location | None = None) -> dict[str, Any]:
    """The names a procedure starts with: constants, named dice, its outcomes, then its parameters."""
    # Names no step binds come first, so a world's key can skip them (see World.key).
    ranks = {name: rank for rank, name in enumerate(proc.outcomes, start=1)}
    everything = {**ruleset.constants, **ruleset.dice, **ranks}
    env: dict[str, Any] = {k: v for k, v in everything.items() if k in ruleset.static}
    env[FIXED] = len(env) + 1
    env.update((k, v) for k, v in everything.items() if k not in ruleset.static)
    env["outcome"] = 0
    env["has_sheet"] = False
    for param in proc.params:
        if param.name in args:
            env[param.name] = args[param.name]
        elif not param.required:
            env[param.name] = param.default
        else:
            raise BadParameter(f"procedure '{proc.name}' needs parameter '{param.name}'", where)
    return env
