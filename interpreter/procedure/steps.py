"""The step runners of the procedure language, one per step kind, shared by rolling and exact odds."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from interpreter import limits
from interpreter.absent import Absent
from interpreter.dice.expr import DiceExpr
from interpreter.errors import LimitExceeded, Location, RulesError, TableMiss, UnknownStepKind
from interpreter.procedure import batch
from interpreter.procedure.rolling import roll_into
from interpreter.procedure.trace import NoteRecord
from interpreter.procedure.worlds import EvalContext, LoopState, Weight, World, Worlds, merge, total
from interpreter.ruleset.liveness import ALL, SHEET, Liveness, writes
from interpreter.ruleset.model import Procedure, Row, Table
from interpreter.ruleset.specs import (
    BestOf,
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
from interpreter.ruleset.tables import row_name

Each = Callable[[World, Weight], Iterable[tuple[World, Weight]]]


def evaluate(formula: Any, world: World, ctx: EvalContext, where: Location) -> Any:
    """A formula's value in a world, with errors placed at the step."""
    try:
        return formula.evaluate(world.env, ctx.functions)
    except RulesError as err:
        raise err.located(where) from None


# Step kinds that turn each world into one world (or refuse): merging just before one of them saves no
# work, since it costs about what the step does, so exact odds merge before the other kinds and at the end.
ONE_TO_ONE = frozenset({"let", "decide", "stop", "contest", "update", "damage", "heal", "require"})


def run_steps(steps: Steps, worlds: Worlds, ctx: EvalContext, following: Step[Any] | None = None,
              merge_last: bool = True) -> Worlds:
    """Run steps in order over worlds; worlds that stopped pass through untouched.

    For exact odds, worlds that are the same state after a step are merged (see worlds.merge) unless
    the next step (`following` after the last) turns each world into one: then it is merged after that.
    Without `merge_last` the caller merges what the last step gives.
    """
    i = 0
    while i < len(steps):
        step = steps[i]
        if all(world.stopped for world, _ in worlds):
            break
        stretch = batch.stretch(steps, i) if ctx.exact and batch.worth_writing(steps, i, len(worlds)) else None
        end = i + 1 if stretch is None else stretch
        after = following if end == len(steps) else steps[end]
        merging = ctx.exact and (merge_last or end < len(steps)) and (after is None or after.kind not in ONE_TO_ONE)
        names = ctx.key_names(steps[end - 1].live) if merging else None
        run = batch.written(steps[i:end], names) if stretch is not None else None
        if run is not None:
            for s in steps[i:end]:
                ctx.tick(len(worlds), s.where)
            worlds = run(worlds, ctx.functions)  # merged by the names as it goes
        else:
            handler = ctx.handlers.get(step.kind)
            if handler is None:
                raise UnknownStepKind(f"unknown step kind '{step.kind}'", step.where)
            ctx.tick(len(worlds), step.where)
            worlds = handler(step, worlds, ctx)
            if names is not None:
                worlds = merge(worlds, names)
        i = end
    return worlds


def each(worlds: Worlds, fn: Each) -> Worlds:
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
    assign = step.spec.assign
    functions = ctx.functions
    out: Worlds = []
    for world, weight in worlds:
        if world.stopped:
            out.append((world, weight))
            continue
        env = dict(world.env)
        for a in assign:
            try:
                env[a.name] = a.formula.evaluate(env, functions)
            except RulesError as err:
                raise err.located(a.where) from None
        out.append((World(env, world.outcome, world.stopped, world.trace, world.loops), weight))
    return out


def run_roll(step: Step[Roll], worlds: Worlds, ctx: EvalContext) -> Worlds:
    """`roll`: roll dice expressions and bind their results; branches over every result for odds."""
    def one(world: World, weight: Weight) -> Iterator[tuple[World, Weight]]:
        yield from roll_into(world, weight, step.spec.rolls, ctx, step.live)
    return each(worlds, one)


def run_decide(step: Step[Decide], worlds: Worlds, ctx: EvalContext) -> Worlds:
    """`decide`: the first branch whose condition holds sets the outcome."""
    branches = step.spec.branches
    out: Worlds = []
    for world, weight in worlds:
        if not world.stopped:
            for b in branches:
                if b.cond is None or evaluate(b.cond, world, ctx, b.where):
                    world = world.with_outcome(b.outcome)
                    break
        out.append((world, weight))
    return out


def run_stop(step: Step[Stop], worlds: Worlds, ctx: EvalContext) -> Worlds:
    """`stop`: end the procedure when a condition holds, optionally setting the outcome."""
    cond, outcome = step.spec.when, step.spec.outcome
    functions = ctx.functions
    out: Worlds = []
    try:
        for world, weight in worlds:
            if not world.stopped and (cond is None or cond.evaluate(world.env, functions)):
                if outcome is not None:
                    world = world.with_outcome(outcome)
                world = world.stop()
            out.append((world, weight))
    except RulesError as err:
        raise err.located(step.where) from None
    return out


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
    # The worlds of both branches are merged together after this step (see run_steps).
    if yes:
        yes = run_steps(step.spec.then, yes, ctx, merge_last=False)
    if no:
        no = run_steps(step.spec.otherwise, no, ctx, merge_last=False)
    return done + yes + no


def run_repeat(step: Step[Loop], worlds: Worlds, ctx: EvalContext) -> Worlds:
    """`repeat`: run the body a number of times, or while a condition holds, up to a maximum.

    Each world inside the loop carries the loop's state (iterations done, count, maximum)
    as the last entry of its `loops`; it is taken off when the world leaves the loop.
    """
    spec = step.spec
    out: Worlds = []
    active: Worlds = []
    for world, weight in worlds:
        if world.stopped:
            out.append((world, weight))
            continue
        times = evaluate(spec.times, world, ctx, step.where) if spec.times is not None else None
        most = evaluate(spec.max, world, ctx, step.where) if spec.max is not None else None
        active.append((world.with_loops(world.loops + (LoopState(0, times, most),)), weight))
    for _ in range(limits.MAX_LOOP_ITERATIONS + 1):
        going: Worlds = []
        for world, weight in active:
            if _continues(step, world, ctx):
                going.append((world, weight))
            else:
                out.append((world, weight))
        if not going:
            break
        if ctx.exact and total(going) < limits.TRUNCATION_MASS:
            ctx.truncated += float(total(going))
            going = []
            break
        counted: Worlds = []
        for world, weight in going:
            state = world.loops[-1]
            state = LoopState(state.done + 1, state.times, state.most)
            world = world.with_loops(world.loops[:-1] + (state,))
            if spec.counter:
                world = world.bound(spec.counter, state.done)
            counted.append((world, weight))
        active = run_steps(spec.steps, counted, ctx)
    else:
        raise LimitExceeded(f"a loop ran more than {limits.MAX_LOOP_ITERATIONS} times", step.where)
    depth = len(worlds[0][0].loops) if worlds else 0  # every world enters at the same depth
    return [(w.with_loops(w.loops[:depth]) if len(w.loops) > depth else w, p) for w, p in out]


def _continues(step: Step[Loop], world: World, ctx: EvalContext) -> bool:
    if world.stopped:
        return False
    state = world.loops[-1]
    if state.times is not None and state.done >= state.times:
        return False
    if state.most is not None and state.done >= state.most:
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
    # While runs are compared, the tiebreak's names matter as well as what is live after the step.
    names = ctx.key_names(step.live) + (tuple(sorted(spec.tiebreak.names)) if spec.tiebreak is not None else ())

    def score(w: World) -> tuple[int, Any]:
        tiebreak = 0 if spec.tiebreak is None else evaluate(spec.tiebreak, w, ctx, step.where)
        return (-proc.rank(w.outcome), tiebreak)

    def one(world: World, weight: Weight) -> Iterator[tuple[World, Weight]]:
        count = evaluate(spec.count, world, ctx, step.where)
        if not 1 <= count <= limits.MAX_LOOP_ITERATIONS:
            raise LimitExceeded(f"best_of count is {count}; it must be 1 to {limits.MAX_LOOP_ITERATIONS}",
                                step.where)
        worst = bool(spec.worst_when is not None and evaluate(spec.worst_when, world, ctx, step.where))
        shared = _shared_runs(step, world, ctx, (count, worst)) if ctx.exact else None
        if shared is not None and shared[1] is not None:
            yield from _transplanted(world, weight, shared[1], shared[0])
            return
        start = world.with_trace(())
        if ctx.exact:
            once = run_steps(spec.steps, [(start, 1)], ctx)
            runs = [once] * count
        else:
            runs = [run_steps(spec.steps, [(start, 1)], ctx) for _ in range(count)]
        best = runs[0]
        for run in runs[1:]:
            ctx.tick(len(best) * len(run), step.where)  # every pair of results is compared
            chosen: Worlds = []
            for a, pa in best:
                sa = score(a)
                for b, pb in run:
                    sb = score(b)
                    pick = (b if sb < sa else a) if worst else (b if sb > sa else a)
                    if not ctx.exact:
                        pick = pick.with_trace(a.trace + b.trace)
                    chosen.append((pick, pa * pb))
            best = merge(chosen, names) if ctx.exact else chosen
        if shared is not None:
            ctx.calls[shared[2]] = best
        for picked, p in best:
            trace = world.trace + picked.trace
            if not ctx.exact and count > 1:
                trace += (NoteRecord(f"kept the {'worst' if worst else 'best'} of {count}"),)
            yield picked.with_trace(trace), weight * p
    return each(worlds, one)


def _shared_runs(step: Step[BestOf], world: World, ctx: EvalContext,
                 how: tuple[Any, ...]) -> tuple[tuple[str, ...], Worlds | None, Any] | None:
    """Exact odds: worlds that agree on every name a best_of's runs read or write get the same kept
    results, so they are worked out once. The names the runs write, the results when known, and their
    cache key; None when what the runs read cannot be known (a sheet, a dice parameter)."""
    spec = step.spec
    plan_key = ("best_of names", id(step))
    if plan_key not in ctx.calls:
        liveness = Liveness(ctx.ruleset.dice, ctx.ruleset.tables, (), ctx.ruleset.procedures)
        tiebreak = spec.tiebreak.names if spec.tiebreak is not None else frozenset()
        _, reads = liveness.steps(spec.steps, frozenset(tiebreak))
        written = writes(spec.steps, ctx.ruleset.procedures, ctx.ruleset.tables) | {"outcome"}
        unknown = {ALL, SHEET} & (reads | written)
        ctx.calls[plan_key] = None if unknown else (tuple(sorted(reads | written)), tuple(sorted(written)))
    plan = ctx.calls[plan_key]
    if plan is None:
        return None
    values = tuple(map(world.env.get, plan[0]))
    named = ctx.ruleset.dice
    if any(isinstance(v, DiceExpr) and named.get(n) is not v for n, v in zip(plan[0], values, strict=True)):
        return None  # dice given as a parameter: what they read is known only now
    key = ("best_of", id(step), how, world.outcome, world.loops, values)
    return plan[1], ctx.calls.get(key), key


def _transplanted(world: World, weight: Weight, kept: Worlds, written: tuple[str, ...]) -> Iterator[tuple[World, Weight]]:
    """Results kept from another world that agrees on what the runs read and write, carried over to this one."""
    for picked, p in kept:
        env = dict(world.env)
        got = picked.env
        for name in written:
            if name in got:
                env[name] = got[name]
        yield World(env, picked.outcome, picked.stopped, world.trace, picked.loops), weight * p


def run_contest(step: Step[Contest], worlds: Worlds, ctx: EvalContext) -> Worlds:
    """`contest`: compare two sides; the declared side wins ties; bind the margin."""
    spec = step.spec

    def one(world: World, weight: Weight) -> Iterator[tuple[World, Weight]]:
        actor = evaluate(spec.actor, world, ctx, step.where)
        defender = evaluate(spec.defender, world, ctx, step.where)
        won = actor > defender or (actor == defender and spec.ties == "actor")
        world = world.with_outcome(spec.win if won else spec.lose)
        if spec.margin or spec.tied:
            env = dict(world.env)
            if spec.margin:
                env[spec.margin] = actor - defender
            if spec.tied:
                env[spec.tied] = actor == defender
            world = world.with_env(env)
        yield world, weight
    return each(worlds, one)


def _row_name(table: Table, row: Row) -> str:
    index = table.rows.index(row) if row is not table.default else 0
    return row_name(table.name, index, row.low, row.high, row is table.default)


def run_table(step: Step[TableLookup], worlds: Worlds, ctx: EvalContext) -> Worlds:
    """`table`: roll a table's die (or look up a key) and apply the matching row."""
    spec = step.spec
    table = ctx.ruleset.tables[spec.table]
    rows = table.rows + ((table.default,) if table.default is not None else ())
    every = {name for row in rows for name, _ in row.values}
    unbound = {id(row): tuple(sorted(every - {name for name, _ in row.values})) for row in rows}

    def apply(world: World, weight: Weight, key: int) -> Iterator[tuple[World, Weight]]:
        row = table.row_for(key)
        if row is None:
            raise TableMiss(f"table '{table.name}' has no row for {key}", step.where)
        if spec.roll_as:
            world = world.bound(spec.roll_as, key)
        if row.outcome is not None:
            world = world.with_outcome(row.outcome)
        if spec.value_as:
            value = (Absent(f"{_row_name(table, row)} has no value") if row.value is None
                     else evaluate(row.value, world, ctx, row.where))
            world = world.bound(spec.value_as, value)
        for name in unbound[id(row)]:  # a name other rows bind: absent, unless bound before
            if name not in world.env:
                world = world.bound(name, Absent(f"{_row_name(table, row)} binds no '{name}'"))
        if not ctx.exact:
            world = world.noted(NoteRecord(f"{table.name}: {key} → {row.text}"))
        yield from roll_into(world, weight, tuple(RollInto(name, expr, row.where) for name, expr in row.values), ctx)

    def one(world: World, weight: Weight) -> Iterator[tuple[World, Weight]]:
        if spec.key is not None:
            yield from apply(world, weight, evaluate(spec.key, world, ctx, step.where))
            return
        for key, prob, record in ctx.outcomes(table.name, table.die, world.env, weight, step.where):
            w = world if record is None else world.noted(record)
            yield from apply(w, weight * prob, key)
    return each(worlds, one)
