"""Exact odds: a procedure's program run over every possible world at once, each with its probability.

The blocks of a program (procedure.program) are run in order of their number, all the worlds
waiting at a block at once: a loop's body returns its worlds to the loop's head, whose number
is lower, so every world of a loop goes round it together. Before a block runs, the worlds
waiting there that are the same state (by the block's key) are merged. A block's code is run
once for each combination of the results its rolls (and calls, and best_of steps) can have: a
`Path` answers each roll with one result after another and keeps the product of their
probabilities, which is how the same code that rolls one die in a sampled run gives every
world here. A world that finishes (or stops) waits at the end.

Nothing here knows a step kind: what a step does is its code, and what exact odds add is only
how results are enumerated, merged and cut off:
- a loop's head whose worlds going round again are less likely than limits.TRUNCATION_MASS
  together drops them (the mass is reported), unless it has no bound and settles (procedure.settle);
- a called procedure's ends are worked out once per set of arguments (and sheet);
- a best_of's runs are worked out once for the worlds that agree on what its body reads;
- a reported value no later step reads or writes is added up as soon as it is final, and worlds
  are no longer told apart by it (procedure.odds).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from interpreter import budget, limits
from interpreter.dice.atleast import AtLeast
from interpreter.errors import LimitExceeded, Location, RulesError
from interpreter.procedure.kinds import program_of
from interpreter.procedure.merging import Merger, Weight, Worlds, total
from interpreter.procedure.program import Program
from interpreter.procedure.settle import SETTLE_AFTER, Lumping, settle
from interpreter.procedure.state import END, State
from interpreter.procedure.weights import Ratio
from interpreter.ruleset.liveness import SHEET
from interpreter.ruleset.model import CompiledRuleset
from interpreter.ruleset.specs import RollInto

if TYPE_CHECKING:
    from interpreter.dice.expr import DiceExpr
    from interpreter.procedure.context import Block
    from interpreter.procedure.kinds.best_of import Runs
    from interpreter.procedure.kinds.call import End, Site

Outcomes = list[tuple[Any, Any]]  # (a result, its probability)


class Exact:
    """One exact-odds computation: its worlds' context, the work done, what was cut off, what it keeps."""

    def __init__(self, ruleset: CompiledRuleset, functions: Mapping[str, Callable[..., Any]], sheet_names: tuple[str, ...],
                 saturate: bool, cap_hint: int = 0, settle: bool = True) -> None:
        self.ruleset = ruleset
        self.functions = functions
        self.sheet_names = sheet_names  # the names a bound sheet gives (what SHEET stands for in a key)
        self.saturate = saturate  # lump an exploding roll's endless tail into one AtLeast value
        self.cap_hint = cap_hint  # the least cap for that, asked for by a comparison in an earlier attempt
        self.truncated = 0.0  # the probability cut off at endless explosions and loops
        self.lumping = Lumping(cap_hint, settle)  # loops with no bound (procedure.settle)
        self.work = 0
        self.settled: frozenset[str] = frozenset()  # reported values already added up (see procedure.odds)
        self.merger = Merger()
        self._keys: dict[tuple[frozenset[str], tuple[str, ...]], tuple[str, ...]] = {}
        self._ends: dict[tuple[Any, ...], Outcomes] = {}  # a callee's ends by its arguments
        self._kept: dict[tuple[Any, ...], Outcomes] = {}  # a best_of's kept runs by what its body reads
        self._pools: dict[tuple[object, ...], tuple[Outcomes, float]] = {}  # a pool's reads by its dice, and the cut
        self.at_block: Callable[[Program, int, dict[int, Worlds], Worlds], None] | None = None

    # -- running a program ---------------------------------------------------------------------------
    def run(self, program: Program, worlds: Worlds) -> Worlds:
        """Every end of a program (each with its probability) from these starting worlds."""
        return self._run(program, {0: worlds}, None)[0]

    def _run(self, program: Program, pending: dict[int, Worlds], until: int | None) -> tuple[Worlds, Worlds]:
        """The ends of a program from worlds waiting at blocks, and the worlds that arrive at block `until`
        (which is not run)."""
        todo = list(pending)
        heapq.heapify(todo)
        ends: Worlds = []
        back: Worlds = []
        keys = program.keys
        passes: dict[int, int] = {}
        while todo:
            pc = heapq.heappop(todo)
            here = pending.pop(pc)
            if self.at_block is not None:
                self.at_block(program, pc, pending, ends + here)
            key = keys[pc]
            if key is not None and len(here) > 1:
                here = self.merger.merge(here, self.key_names(key))
            going: dict[int, Worlds] | None = None
            endless = program.endless[pc]
            if endless is not None and self.saturate and key is not None:
                going = self._settled(program, pc, here, endless, passes)
            if going is None:
                going = self._block(program, pc, here)
            for nxt, arrived in going.items():
                if nxt == END:
                    ends.extend(arrived)
                elif nxt == until:
                    back.extend(arrived)
                elif nxt in pending:
                    pending[nxt].extend(arrived)
                else:
                    pending[nxt] = arrived
                    heapq.heappush(todo, nxt)
        return ends, back

    def _block(self, program: Program, pc: int, here: Worlds) -> dict[int, Worlds]:
        """The worlds a block sends on, by the block they go to (a loop's unlikely worlds going on cut off)."""
        self.tick(len(here) * program.costs[pc], program.places[pc])
        going: dict[int, Worlds] = {}
        block = program.blocks[pc]
        for world, weight in here:
            self._paths(block, world, weight, going)
        body = program.loop_bodies[pc]
        if body is not None and body in going:
            mass = total(going[body])
            if mass < limits.TRUNCATION_MASS:  # the loop goes on only this unlikely: cut off, and said
                self.truncated += float(mass)
                del going[body]
        return going

    def _settled(self, program: Program, head: int, here: Worlds, loop: tuple[str, frozenset[str]],
                 passes: dict[int, int]) -> dict[int, Worlds] | None:
        """At the head of a loop with no bound, after a few passes: its worlds lumped, and every way out of the
        loop solved at once where it settles (procedure.settle); None to run the head as it is."""
        count = passes[head] = passes.get(head, 0) + 1
        if count <= SETTLE_AFTER or not self.lumping.enabled or not here:
            return None
        self.lumping.used = True
        names = self.key_names(cast("tuple[str, ...]", program.keys[head]))
        held = here[0][0].env.get(loop[0])  # the passes done, the same for every world at the head now
        here[:] = self.merger.merge(self.lumping.lumped(here, loop, held), names)
        if count > SETTLE_AFTER + 1:  # tried once: a loop that did not settle goes on pass by pass
            return None
        body = cast("int", program.loop_bodies[head])

        def one_pass(world: State) -> tuple[dict[int, Worlds], Worlds]:
            going: dict[int, Worlds] = {}
            self._paths(program.blocks[head], world, Ratio(1, 1), going)
            self.tick(program.costs[head], program.places[head])
            going_on = going.pop(body, None)
            if not going_on:
                return going, []
            watch, self.at_block = self.at_block, None
            try:
                ends, back = self._run(program, {body: going_on}, head)
            finally:
                self.at_block = watch
            if ends:
                going.setdefault(END, []).extend(ends)
            return going, self.lumping.lumped(back, loop, held)

        return settle(here, names, one_pass, self.lumping, program.places[head])

    def _paths(self, block: Block, world: State, weight: Weight,
               going: dict[int, Worlds]) -> None:
        """Run a block's code over one world once for each combination of results its draws can have."""
        path = Path(self)
        stack = path.stack
        env, outcome = world.env, world.outcome
        while True:
            path.at = 0
            path.weight = weight
            s = State(dict(env), outcome)
            nxt = block(s, path)
            arrived = going.get(nxt)
            if arrived is None:
                going[nxt] = [(s, path.weight)]
            else:
                arrived.append((s, path.weight))
            while stack and stack[-1].at + 1 >= len(stack[-1].results):
                stack.pop()
            if not stack:
                return
            stack[-1].at += 1

    def tick(self, amount: int, where: Location | None = None) -> None:
        """Count work, and stop with a clear error before it becomes a hang."""
        before = self.work
        self.work += amount
        if self.work > limits.MAX_ODDS_STEPS:
            raise LimitExceeded(f"exact odds need more than {limits.MAX_ODDS_STEPS} steps; {self.advice()}", where)
        if (before ^ self.work) >> 8:  # the clock is read about every 256 steps of work
            budget.check("exact odds", self.advice(), where)

    def advice(self) -> str:
        return budget.advice(f"use fewer dice or repeats, or sample it with `rules run {self.ruleset.id} ... --times N`")

    def key_names(self, key: tuple[str, ...]) -> tuple[str, ...]:
        """The names that tell worlds apart for a key: the sheet marker becomes the sheet's names, and values
        already added up drop out."""
        cache = (self.settled, key)
        names = self._keys.get(cache)
        if names is None:
            expanded = [n for n in key if n != SHEET]
            if SHEET in key:
                expanded += [n for n in self.sheet_names if n not in expanded]
            names = self._keys[cache] = tuple(n for n in expanded if n not in self.settled)
        return names

    # -- the results of draws --------------------------------------------------------------------------
    def outcomes(self, expr: DiceExpr, env: Mapping[str, object], where: Location, weight: Weight = 1) -> Outcomes:
        """Each result of a roll with its probability (an exploding tail lumped, when saturating)."""
        try:
            sat = expr.saturated(env, self.cap_hint) if self.saturate else None
            if sat is not None:
                dist, cap = sat
                self.tick(len(dist.probs), where)
                return [((AtLeast(v) if v == cap else v), p) for v, p in _weights(dist)]
            dist = expr.distribution(env)
        except RulesError as err:
            raise err.located(where) from None
        self.tick(len(dist.probs), where)  # every result becomes a world to build and merge
        if dist.truncated:
            self.truncated += float(weight) * dist.truncated
        return _weights(dist)

    def pool_outcomes(self, r: RollInto, env: Mapping[str, object], thresholds: Sequence[Sequence[int]],
                      value_read: bool, weight: Weight = 1) -> Outcomes:
        """Each combination of a pool's result and the statistics it reads, with its probability (the result
        left out, as None, when nothing reads it); worked out once per computation for the same dice."""
        try:
            key: tuple[object, ...] | None = (id(r), r.expr.env_key(env), tuple(map(tuple, thresholds)), value_read)
            hash(key)
        except (TypeError, RulesError):
            key = None
        found = self._pools.get(key) if key is not None else None
        if found is not None:
            outcomes, cut = found
            if cut:
                self.truncated += float(weight) * cut
            self.tick(len(outcomes), r.where)
            return outcomes
        from interpreter.dice.pool import RESULT, bind  # (the reading of pools: loaded by odds that read one)
        from interpreter.dice.reading import read_odds
        try:
            stats = bind([stat for _, stat in r.reads], thresholds)
            if value_read:
                joint, den = read_odds(r.expr, env, [RESULT, *stats], self.saturate)
            else:
                part, den = read_odds(r.expr, env, stats, self.saturate)
                joint = {(None, *key): x for key, x in part.items()}
        except RulesError as err:
            raise err.located(r.where) from None
        self.tick(len(joint), r.where)
        cut = den - sum(joint.values())
        if cut:
            self.truncated += float(weight) * cut / den
        outcomes = [(read, (x / den if cut else Ratio(x, den))) for read, x in joint.items()]
        if key is not None:
            self._pools[key] = (outcomes, cut / den)
        return outcomes

    def ends(self, site: Site, args: dict[str, object], sheet: dict[str, object], weight: Weight = 1) -> Outcomes:
        """Every end of a called procedure with these arguments (see kinds.call), worked out once per computation."""
        key = (site.callee.name, tuple(args.items()), tuple(sheet.items()))
        found = self._ends.get(key)
        if found is None:
            start = State(site.start(self.ruleset, args, sheet))
            settled, self.settled = self.settled, frozenset()  # the caller's settled values are not the callee's
            watch, self.at_block = self.at_block, None
            try:
                worlds = self.run(program_of(self.ruleset, site.callee, site.bound), [(start, Ratio(1, 1))])
            finally:
                self.settled = settled
                self.at_block = watch
            found = self._ends[key] = [(site.end(w.outcome, w.env, sheet), p) for w, p in worlds]
        self.tick(len(found), site.where)  # every end of the callee becomes a world of the caller
        return found

    def ends_from(self, site: Site, args: dict[str, object], env: Mapping[str, object], weight: Weight = 1) -> Outcomes:
        """`ends`, with the sheet the caller's names give the callee."""
        return self.ends(site, args, site.sheet(env, self.sheet_names))

    def kept(self, s: State, runs: Runs, count: int, worst: bool, weight: Weight = 1) -> Outcomes:
        """The runs a best_of keeps from this state, each with its probability."""
        reads = runs.program.reads
        key = None
        if reads is not None and not any(isinstance(s.env.get(n), _dice_type()) and self.ruleset.dice.get(n)
                                         is not s.env.get(n) for n in reads):
            key = (id(runs), count, worst, s.outcome, tuple(s.env.get(n, _MISSING) for n in sorted(reads)))
            found = self._kept.get(key)
            if found is not None:
                return _transplanted(s, found, runs.program.written)
        watch, self.at_block = self.at_block, None
        try:
            once = self.run(runs.program, [(s.fork(), Ratio(1, 1))])
        finally:
            self.at_block = watch
        best = once
        names = self.key_names(runs.keys)
        for _ in range(count - 1):
            self.tick(len(best) * len(once), runs.where)  # every pair of results is compared
            chosen = [(runs.pick(a, b, worst, self.functions), pa * pb) for a, pa in best for b, pb in once]
            best = self.merger.merge(chosen, names)
        if key is not None:
            self._kept[key] = best
        return best


_MISSING = object()


def _dice_type() -> type:
    from interpreter.dice.expr import DiceExpr

    return DiceExpr


def _transplanted(s: State, kept: Outcomes, written: tuple[str, ...]) -> Outcomes:
    """Runs kept from another world that agrees on what the body reads, carried over to this one."""
    out = []
    for run, p in kept:
        env = dict(s.env)
        got = run.env
        for name in written:
            if name in got:
                env[name] = got[name]
        out.append((State(env, run.outcome, run.stopped), p))
    return out


def _weights(dist: Any) -> Outcomes:
    """A distribution's (value, probability) pairs; exact ones as counts over its one denominator."""
    counts = dist.counts()
    if counts is None:
        return list(dist.probs)
    pairs, den = counts
    return [(value, Ratio(count, den)) for value, count in pairs]


class _Draw:
    """One draw of a block's code over one world: its results, the one given now, and the weights they give."""

    __slots__ = ("at", "den", "nums", "prior", "results")

    def __init__(self, results: Outcomes, prior: Weight) -> None:
        self.results = results
        self.at = 0
        self.prior = prior  # the world's weight times the draws before this one
        self.den = 0  # results over one denominator after a prior Ratio: its product with the prior's, once
        self.nums: list[int] = []
        if type(prior) is Ratio and results and all(type(p) is Ratio and p.den == results[0][1].den
                                                    for _, p in results):
            self.den = prior.den * results[0][1].den
            self.nums = [prior.num * p.num for _, p in results]

    def weight(self) -> Weight:
        if self.den:
            return Ratio(self.nums[self.at], self.den)
        return self.prior * self.results[self.at][1]


class Path:
    """The context of a block's code run over one world: each draw gives one of its results in turn."""

    __slots__ = ("at", "exact", "functions", "stack", "weight")

    def __init__(self, exact: Exact) -> None:
        self.exact = exact
        self.functions = exact.functions
        self.stack: list[_Draw] = []  # the draws of this run of the code
        self.at = 0  # the draw the code makes next
        self.weight: Weight = 1  # the world's weight times the probability of each result given so far

    def _draw(self, make: Callable[..., Outcomes], *args: Any) -> Any:
        at = self.at
        self.at = at + 1
        stack = self.stack
        if at == len(stack):
            stack.append(_Draw(make(*args, self.weight), self.weight))
        draw = stack[at]
        self.weight = draw.weight()
        return draw.results[draw.at][0]

    def roll(self, name: str, expr: DiceExpr, where: Location, env: Mapping[str, object]) -> object:
        return self._draw(self.exact.outcomes, expr, env, where)

    def pool(self, r: RollInto, env: Mapping[str, object], thresholds: Sequence[Sequence[int]],
             value_read: bool) -> tuple[object, ...]:
        got: tuple[object, ...] = self._draw(self.exact.pool_outcomes, r, env, thresholds, value_read)
        return got

    def call(self, site: Site, args: dict[str, object], env: Mapping[str, object]) -> End:
        """Every end of a call from this world (its sheet comes from the world's names, which `env` is)."""
        end: End = self._draw(self.exact.ends_from, site, args, env)
        return end

    def best(self, s: State, runs: Runs, count: int, worst: bool) -> None:
        kept: State = self._draw(self.exact.kept, s, runs, count, worst)
        s.env = dict(kept.env)
        s.outcome = kept.outcome
        s.stopped = kept.stopped


__all__ = ["Exact", "Path"]
