"""The state a procedure runs over: weighted worlds, and the context that rolls dice for them.

One compiled procedure has two semantics. Sampling runs it over a single world whose
dice come from a source (a seeded generator or given dice). Exact odds run it over
every possible world at once, each with its probability; worlds that are the same state
are merged after every step, so loops and repeated rolls stay small. Two worlds are the
same state when they agree on the names still live after the step (see
`ruleset.liveness`), their outcome, whether they stopped, and where they are in loops.
Step handlers do not know which semantics they serve: they ask the context for the
outcomes of a roll and get one sampled branch or every branch.

A world never changes: a step that binds a name makes a new world around a new env.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from fractions import Fraction
from operator import itemgetter
from typing import Any, NamedTuple

from interpreter import budget, limits
from interpreter.dice.atleast import AtLeast
from interpreter.dice.pool import RESULT, bind
from interpreter.dice.reading import read_odds, read_rolled
from interpreter.errors import LimitExceeded, Location, RulesError
from interpreter.procedure.trace import NoteRecord, Record, RollRecord, Trace
from interpreter.procedure.weights import Ratio, add_all
from interpreter.ruleset.liveness import SHEET
from interpreter.ruleset.model import Ruleset
from interpreter.ruleset.specs import RollInto, Step

Weight = Ratio | Fraction | float | int  # exact odds keep Ratio (see procedure.weights), sampling 1
Env = Mapping[str, Any]


class LoopState(NamedTuple):
    """How far one running loop has got: iterations done, and its `repeat` count and `max` when given."""

    done: int
    times: int | None
    most: int | None


class World(NamedTuple):
    """One possible state of a running procedure; immutable.

    ``env`` is every name the procedure can read; it is never changed once a world holds
    it. ``loops`` is the state of each loop the world is inside, innermost last.
    """

    env: Env
    outcome: str | None = None
    stopped: bool = False
    trace: Trace = ()
    loops: tuple[LoopState, ...] = ()

    def bound(self, name: str, value: Any) -> World:
        """This world with one name bound."""
        env = dict(self.env)
        env[name] = value
        return World(env, self.outcome, self.stopped, self.trace, self.loops)

    def with_env(self, env: Env) -> World:
        """This world around another env (a new dict the caller gives up)."""
        return World(env, self.outcome, self.stopped, self.trace, self.loops)

    def with_outcome(self, outcome: str | None) -> World:
        """This world with its outcome set, visible to formulas as ``outcome`` (its rank, 1 for the best)."""
        env = dict(self.env)
        env["outcome"] = 0 if outcome is None else env.get(outcome, 0)
        return World(env, outcome, self.stopped, self.trace, self.loops)

    def stop(self) -> World:
        return World(self.env, self.outcome, True, self.trace, self.loops)

    def with_trace(self, trace: Trace) -> World:
        return World(self.env, self.outcome, self.stopped, trace, self.loops)

    def noted(self, record: Record) -> World:
        return World(self.env, self.outcome, self.stopped, self.trace + (record,), self.loops)

    def with_loops(self, loops: tuple[LoopState, ...]) -> World:
        return World(self.env, self.outcome, self.stopped, self.trace, loops)


Worlds = list[tuple[World, Weight]]
Handler = Callable[[Step[Any], Worlds, "EvalContext"], Worlds]
_MISSING = object()


class EvalContext:
    """Per-run state: the mode, the step runners, the dice source, the table functions and the work done."""

    __slots__ = ("_keys", "calls", "cap_hint", "dice", "exact", "functions", "handlers", "ruleset", "saturate",
                 "settled", "sheet_names", "source", "truncated", "work")

    def __init__(self, ruleset: Ruleset, exact: bool, handlers: Mapping[str, Handler], source: Any = None,
                 functions: Mapping[str, Callable[..., Any]] | None = None, sheet_names: tuple[str, ...] = (),
                 saturate: bool = False, cap_hint: int = 0) -> None:
        self.ruleset = ruleset
        self.exact = exact
        self.handlers = handlers  # step kind -> runner (see procedure.kinds)
        self.source = source
        self.functions: Mapping[str, Callable[..., Any]] = {} if functions is None else functions
        self.truncated = 0.0
        self.work = 0
        self.dice = 0  # dice a sampled run has rolled
        self.calls: dict[Any, Any] = {}  # exact mode: a callee's ends by its arguments
        self.sheet_names = sheet_names  # the names a bound sheet gives, passed on to called sheet procedures
        self.saturate = saturate  # exact mode: lump an exploding roll's tail into one AtLeast value
        self.cap_hint = cap_hint  # the least cap for that, asked for by a comparison in an earlier attempt
        self.settled: frozenset[str] = frozenset()  # the run's reported values already added up (see runner.odds)
        self._keys: dict[tuple[frozenset[str], tuple[str, ...]], tuple[str, ...]] = {}

    def tick(self, amount: int = 1, where: Location | None = None) -> None:
        """Count work, and stop with a clear error before it becomes a hang."""
        before = self.work
        self.work += amount
        limit = limits.MAX_ODDS_STEPS if self.exact else limits.MAX_STEPS
        if self.work > limit:
            what = "exact odds need" if self.exact else "the procedure needs"
            raise LimitExceeded(f"{what} more than {limit} steps; {self.advice()}", where)
        if self.exact and (before ^ self.work) >> 8:  # the clock is read about every 256 steps of work
            budget.check("exact odds", self.advice(), where)

    def advice(self) -> str:
        """What to do when the work is too much."""
        if self.exact:
            return f"use fewer dice or repeats, or sample it with `rules run {self.ruleset.id} ... --seed N`"
        return "a loop or repeat runs too long, or rolls too many dice"

    def key_names(self, live: tuple[str, ...]) -> tuple[str, ...]:
        """The names that tell worlds apart, given a step's live names: the sheet marker becomes the sheet's names."""
        cache = (self.settled, live)
        names = self._keys.get(cache)
        if names is None:
            expanded = [n for n in live if n != SHEET]
            if SHEET in live:
                expanded += [n for n in self.sheet_names if n not in expanded]
            names = self._keys[cache] = tuple(n for n in expanded if n not in self.settled)
        return names

    def rolled(self, roll: Any, where: Location | None) -> None:
        """Count the dice of a sampled roll against the run's dice limit."""
        self.dice += sum(len(term.dice) for term in roll.terms)
        if self.dice > limits.MAX_RUN_DICE:
            raise LimitExceeded(f"the procedure rolls more than {limits.MAX_RUN_DICE} dice; {self.advice()}", where)

    def outcomes(self, name: str, expr: Any, env: Env, weight: Weight,
                 where: Location) -> Iterator[tuple[Any, Weight, RollRecord | None]]:
        """Each possible result of a roll with its probability and its trace record."""
        try:
            if not self.exact:
                roll = expr.roll(env, self.source)
                self.rolled(roll, where)
                yield roll.value, 1, RollRecord(name, expr, dict(env), roll)
                return
            sat = expr.saturated(env, self.cap_hint) if self.saturate else None
            if sat is not None:
                dist, cap = sat
                self.tick(len(dist.probs), where)
                for value, prob in _weights(dist):
                    yield (AtLeast(value) if value == cap else value), prob, None
                return
            dist = expr.distribution(env)
        except RulesError as err:
            raise err.located(where) from None
        self.tick(len(dist.probs), where)  # every result becomes a world to build and merge
        if dist.truncated:
            self.truncated += float(weight) * dist.truncated
        for value, prob in _weights(dist):
            yield value, prob, None


    def pool_outcomes(self, r: RollInto, env: Mapping[str, Any], weight: Weight,
                      value_read: bool = True) -> Iterator[tuple[tuple[Any, ...], Weight, tuple[Any, ...]]]:
        """Each combination of a pool's result and the statistics it reads, with its probability (exact odds
        leave the result out, as None, when `value_read` is false: no later step reads it)."""
        try:
            stats = [RESULT, *bind([s for _, s in r.reads],
                                   [[f.evaluate(env, self.functions) for f in fs] for fs in r.thresholds])]
            if self.exact and not value_read:
                joint, den = read_odds(r.expr, env, stats[1:], self.saturate)
                joint = {(None, *key): x for key, x in joint.items()}
                yield from self._pool_weights(joint, den, weight, r)
                return
            if not self.exact:
                roll = r.expr.roll(env, self.source)
                self.rolled(roll, r.where)
                got = read_rolled(r.expr, env, roll, stats)
                note = NoteRecord(f"{r.name}: " + ", ".join(
                    f"{name} = {'true' if v is True else 'false' if v is False else v} ({s.text})"
                    for (name, s), v in zip(r.reads, got[1:], strict=True)))
                yield got, 1, (RollRecord(r.name, r.expr, dict(env), roll), note)
                return
            joint, den = read_odds(r.expr, env, stats, self.saturate)
        except RulesError as err:
            raise err.located(r.where) from None
        yield from self._pool_weights(joint, den, weight, r)

    def _pool_weights(self, joint: Mapping[tuple[Any, ...], int], den: int, weight: Weight,
                      r: RollInto) -> Iterator[tuple[tuple[Any, ...], Weight, tuple[Any, ...]]]:
        """The combinations of a pool's joint odds as branches, counting the work and any mass cut off."""
        self.tick(len(joint), r.where)
        cut = den - sum(joint.values())
        if cut:
            self.truncated += float(weight) * cut / den
        for key, x in joint.items():
            yield key, (x / den if cut else Ratio(x, den)), ()


def _weights(dist: Any) -> Any:
    """A distribution's (value, probability) pairs; exact ones as counts over its one denominator."""
    counts = dist.counts()
    if counts is None:
        return dist.probs
    pairs, den = counts
    return [(value, Ratio(count, den)) for value, count in pairs]


Merged = dict[tuple[Any, ...], list[Any]]  # a key -> [its first world, the weight, numerators over its denominator to add]
_TOO_MANY = "use fewer dice or repeats, or sample it with `rules run ... --seed N`"


def merge(worlds: Iterable[tuple[World, Weight]], names: tuple[str, ...]) -> Worlds:
    """Add up the weights of worlds that are the same state by these names, keeping the first one's trace.

    A world's key is its values of the names (a missing one told apart from None), its outcome, whether
    it stopped, and its loops; procedure.batch builds the same keys in the functions it writes."""
    merged: Merged = {}
    missing = (_MISSING,) * len(names)
    many = values_of(names) if len(names) > FEW else None
    fetch = many[0] if many is not None else tuple
    for world, weight in worlds:
        env = world.env
        if many is not None:
            try:
                key: tuple[Any, ...] = (fetch(env), world.outcome, world.stopped, world.loops)
            except KeyError:  # a name is missing: the markers from now on
                fetch = many[1]
                key = (fetch(env), world.outcome, world.stopped, world.loops)
        else:
            key = (*map(env.get, names, missing), world.outcome, world.stopped, world.loops)
        seen = merged.get(key)
        if seen is None:
            merged[key] = [world, weight, 0]
            if len(merged) > limits.MAX_WORLDS or not len(merged) % 4096:
                counted(merged)
        elif type(weight) is Ratio and type(seen[1]) is Ratio and seen[1].den == weight.den:
            seen[2] += weight.num  # after the same rolls: the usual case, one integer sum
        else:
            added(seen, weight)
    return merged_worlds(merged)


FEW = 12  # keys of more names than this read them in one call (see values_of): a sheet's names, mostly


def values_of(names: tuple[str, ...]) -> tuple[Callable[[Env], Any], Callable[[Env], tuple[Any, ...]]]:
    """Two functions giving an env's values of the names as a tuple: one lookup of them all, which raises
    KeyError when one is missing, and one that gives a marker for a missing name."""
    known = _GETTERS.get(names)
    if known is None:
        missing = (_MISSING,) * len(names)
        known = _GETTERS[names] = (itemgetter(*names), lambda env: tuple(map(env.get, names, missing)))
        if len(_GETTERS) >= 256:
            _GETTERS.clear()
    return known


_GETTERS: dict[tuple[str, ...], tuple[Callable[[Env], Any], Callable[[Env], tuple[Any, ...]]]] = {}


def counted(merged: Merged) -> None:
    """Refuse too many distinct states, and check the time budget now and then."""
    if len(merged) > limits.MAX_WORLDS:
        raise LimitExceeded(f"exact odds need more than {limits.MAX_WORLDS} distinct states; {_TOO_MANY}")
    budget.check("exact odds", _TOO_MANY)


def added(seen: list[Any], weight: Weight) -> None:
    """Add a weight to a merged world's that is not a ratio over the same denominator."""
    before = seen[1]
    seen[1] = (Ratio(before.num + seen[2], before.den) if seen[2] else before) + weight
    seen[2] = 0


def merged_worlds(merged: Merged) -> Worlds:
    """The merged worlds with their weights."""
    return [(w, Ratio(p.num + more, p.den) if more else p) for w, p, more in merged.values()]


def total(worlds: Worlds) -> Any:
    """The probability mass of some worlds."""
    return add_all(p for _, p in worlds)
