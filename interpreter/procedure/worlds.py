"""The state a procedure runs over: weighted worlds, and the context that rolls dice for them.

One compiled procedure has two semantics. Sampling runs it over a single world whose
dice come from a source (a seeded generator or given dice). Exact odds run it over
every possible world at once, each with its probability; identical worlds are merged
after every step, so loops and repeated rolls stay small. Step handlers do not know
which semantics they serve: they ask the context for the outcomes of a roll and get
one sampled branch or every branch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from interpreter import limits
from interpreter.dice.pool import RESULT, pool_odds, read_pool
from interpreter.errors import LimitExceeded, Location, RulesError
from interpreter.ruleset.model import Ruleset
from interpreter.ruleset.specs import RollInto, Step

Weight = Fraction | float
FIXED = "#fixed"  # env entry: how many leading entries never change during a run


@dataclass(slots=True)
class World:
    """One possible state of a running procedure."""

    env: dict[str, Any]
    outcome: str | None = None
    stopped: bool = False
    trace: tuple[Any, ...] = ()

    def key(self) -> tuple[Any, ...]:
        """What makes two worlds the same state (the trace is not part of it).

        The env starts with the names no step ever binds, then the FIXED entry counting them
        (itself included); those are equal in every world of a run, so they are skipped.
        """
        return (tuple(list(self.env.items())[self.env.get(FIXED, 0):]), self.outcome, self.stopped)

    def but(self, **changes: Any) -> World:
        """A copy with a new env (copied), and the given fields changed."""
        world = World(dict(self.env), self.outcome, self.stopped, self.trace)
        for name, value in changes.items():
            setattr(world, name, value)
        return world

    def bound(self, name: str, value: Any) -> World:
        """A copy with one more name bound."""
        world = World(dict(self.env), self.outcome, self.stopped, self.trace)
        world.env[name] = value
        return world

    def with_outcome(self, outcome: str | None) -> World:
        """A copy whose outcome is set, visible to formulas as ``outcome``."""
        world = self.but(outcome=outcome)
        world.env["outcome"] = 0 if outcome is None else world.env.get(outcome, 0)
        return world


Worlds = list[tuple[World, Weight]]


@dataclass(frozen=True, slots=True)
class RollRecord:
    """One dice roll made by a step, for the trace."""

    name: str
    expr: Any
    env: Mapping[str, Any]
    roll: Any


@dataclass(frozen=True, slots=True)
class NoteRecord:
    """A step's remark in the trace (a table row matched, a best-of choice made)."""

    text: str


Handler = Callable[[Step[Any], Worlds, "EvalContext"], Worlds]


@dataclass(slots=True)
class EvalContext:
    """Per-run state: the mode, the step runners, the dice source, the table functions and the work done."""

    ruleset: Ruleset
    exact: bool
    handlers: Mapping[str, Handler]  # step kind -> runner (see procedure.kinds)
    source: Any = None
    functions: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    truncated: float = 0.0
    work: int = 0
    calls: dict[Any, Any] = field(default_factory=dict)  # exact mode: a callee's ends by its arguments
    sheet_names: tuple[str, ...] = ()  # the names a bound sheet gives, passed on to called sheet procedures

    def tick(self, amount: int = 1, where: Location | None = None) -> None:
        """Count work, and stop with a clear error before it becomes a hang."""
        self.work += amount
        limit = limits.MAX_ODDS_STEPS if self.exact else limits.MAX_STEPS
        if self.work > limit:
            what = "exact odds need" if self.exact else "the procedure needs"
            raise LimitExceeded(f"{what} more than {limit} steps", where)

    def outcomes(self, name: str, expr: Any, env: Mapping[str, Any], weight: Weight,
                 where: Location) -> Iterator[tuple[Any, Weight, Any]]:
        """Each possible result of a roll with its probability and its trace record."""
        try:
            if not self.exact:
                roll = expr.roll(env, self.source)
                yield roll.value, 1, RollRecord(name, expr, dict(env), roll)
                return
            dist = expr.distribution(env)
        except RulesError as err:
            raise err.located(where) from None
        self.tick(len(dist.probs), where)  # every result becomes a world to build and merge
        if dist.truncated:
            self.truncated += float(weight) * dist.truncated
        for value, prob in dist.probs:
            yield value, prob, None


    def pool_outcomes(self, r: RollInto, env: Mapping[str, Any],
                      weight: Weight) -> Iterator[tuple[tuple[Any, ...], Weight, tuple[Any, ...]]]:
        """Each combination of a pool's result and the statistics it reads, with its probability."""
        stats = [RESULT, *(s for _, s in r.reads)]
        try:
            if not self.exact:
                roll = r.expr.roll(env, self.source)
                kept = [d.value for t in roll.terms for d in t.dice if d.kept]
                got = read_pool(kept, roll.value, stats)
                note = NoteRecord(f"{r.name}: " + ", ".join(
                    f"{name} = {'true' if v is True else 'false' if v is False else v} ({s.text})"
                    for (name, s), v in zip(r.reads, got[1:], strict=True)))
                yield got, 1, (RollRecord(r.name, r.expr, dict(env), roll), note)
                return
            joint, den = pool_odds(r.expr.pool_spec(env), stats)
        except RulesError as err:
            raise err.located(r.where) from None
        self.tick(len(joint), r.where)
        cut = den - sum(joint.values())
        if cut:
            self.truncated += float(weight) * cut / den
        for key, x in joint.items():
            yield key, (x / den if cut else Fraction(x, den)), ()


def merge(worlds: Iterable[tuple[World, Weight]]) -> Worlds:
    """Add up the weights of identical worlds, keeping the first one's trace."""
    merged: dict[tuple[Any, ...], list[Any]] = {}
    for world, weight in worlds:
        key = world.key()
        seen = merged.get(key)
        if seen is None:
            merged[key] = [world, weight]
        else:
            seen[1] += weight
    if len(merged) > limits.MAX_WORLDS:
        raise LimitExceeded(f"exact odds need more than {limits.MAX_WORLDS} distinct states")
    return [(w, p) for w, p in merged.values()]


def total(worlds: Worlds) -> Weight:
    """The probability mass of some worlds."""
    return sum((p for _, p in worlds), Fraction(0))
