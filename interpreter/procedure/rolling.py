"""Rolling dice into worlds: one branch per result of each roll for exact odds, the one rolled for a sample."""

from __future__ import annotations

from typing import Any

from interpreter.procedure.weights import Ratio, den_product
from interpreter.procedure.worlds import EvalContext, Weight, World, Worlds
from interpreter.ruleset.specs import RollInto

make = tuple.__new__  # a World without its Python-level constructor, where many are made


def roll_into(world: World, weight: Weight, rolls: tuple[RollInto, ...], ctx: EvalContext,
              live: tuple[str, ...] | None = None) -> Worlds:
    """Roll dice in order, binding each result; one branch per result for odds.

    ``live`` (the names later steps read, when known) lets exact odds of a pool leave out the pool's own
    value when nothing reads it, only the statistics `read` binds."""
    branches = [(world, weight)]
    for r in rolls:
        grown: Worlds = []
        for w, p in branches:
            if r.reads:
                for values, prob, records in ctx.pool_outcomes(r, w.env, p, live is None or r.name in live):
                    env = dict(w.env)
                    env[r.name] = values[0]
                    for (name, _), value in zip(r.reads, values[1:], strict=True):
                        env[name] = value
                    grown.append((World(env, w.outcome, w.stopped, w.trace + records, w.loops), p * prob))
                continue
            outcomes: Any = ctx.outcomes(r.name, r.expr, w.env, p, r.where)
            if ctx.exact and type(p) is Ratio:
                outcomes = list(outcomes)
                if _spread(w, p, r.name, outcomes, grown):
                    continue
            for value, prob, record in outcomes:
                new = w.bound(r.name, value)
                if record is not None:
                    new = new.noted(record)
                grown.append((new, p * prob))
        branches = grown
    return branches


def _spread(world: World, weight: Ratio, name: str, outcomes: list[Any], grown: Worlds) -> bool:
    """Exact odds: a world for each result of a roll whose probabilities share one denominator (the usual
    case), the product of denominators taken once; False, adding nothing, when they do not share it."""
    if not outcomes:
        return False
    first = outcomes[0][1]
    if type(first) is not Ratio or not all(type(q) is Ratio and q.den is first.den and record is None
                                           for _, q, record in outcomes):
        return False
    den, num = den_product(weight.den, first.den), weight.num
    env0, outcome, stopped, trace, loops = world.env, world.outcome, world.stopped, world.trace, world.loops
    for value, q, _ in outcomes:
        env = dict(env0)
        env[name] = value
        grown.append((make(World, (env, outcome, stopped, trace, loops)), Ratio(num * q.num, den)))
    return True
