"""Exact odds of a compiled procedure: every possible world at once, each with its probability."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from interpreter import budget, limits
from interpreter.absent import Absent, reported
from interpreter.dice.atleast import AtLeast, Undecided
from interpreter.errors import RulesError
from interpreter.procedure.events import conditions, fixed, holds
from interpreter.procedure.exact import Exact
from interpreter.procedure.kinds import program_of
from interpreter.procedure.merging import Worlds
from interpreter.procedure.program import Program
from interpreter.procedure.start import finished, sheet_names, start_env, worded
from interpreter.procedure.state import State
from interpreter.procedure.weights import Ratio, add_all, exact
from interpreter.procedure.writing import unchanged
from interpreter.record import field, record, replace
from interpreter.ruleset.liveness import SHEET
from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset
from interpreter.ruleset.params import find_procedure
from interpreter.ruleset.specs import Loop, walk
from interpreter.ruleset.tables import table_functions

if TYPE_CHECKING:
    from fractions import Fraction

    from interpreter.formula.compile import Formula
    from interpreter.procedure.events import Conditions


@record
class ExactOdds:
    """The exact probability of every outcome and the distribution of every value."""

    ruleset: str
    procedure: str
    outcomes: Mapping[str, Fraction | float]
    values: Mapping[str, Mapping[Any, Fraction | float]]
    truncated: float
    values_cut: Mapping[str, float] = field(default_factory=dict)  # value -> tail left out of it (see odds)
    events: Mapping[str, Fraction | float] = field(default_factory=dict)  # declared event -> its chance
    where: Fraction | float | None = None  # the chance of the condition asked for (`--where`), if one was
    inexact: str = ""  # why the odds were cut off where explosions would have been lumped exactly (see odds)

    @property
    def exact(self) -> bool:
        """True when every probability is an exact fraction and nothing was cut off."""
        from fractions import Fraction

        return not self.truncated and all(isinstance(p, Fraction) for p in self.outcomes.values())


def odds(ruleset: CompiledRuleset, name: str, args: Mapping[str, object], sheet: Mapping[str, object] | None = None,
         where: Formula | None = None) -> ExactOdds:
    """The exact distribution of a procedure's outcomes and values; `sheet` is a sheet bound to names (sheet.bind);
    with the chance of each of its events, and of `where` (a condition compiled by events.compile_where).

    Exploding rolls are first saturated (their tail lumped into one AtLeast value with its exact
    probability); when a formula needs more of such a total than "at least", the odds are
    computed again with the tail cut off. A procedure found to need that is remembered, on the
    procedure, so that later questions go straight to the second way (the answer is the same).
    """
    proc = find_procedure(ruleset, name)
    asked = conditions(proc, where)
    with budget.odds_budget(remedy(ruleset, proc, args)):  # one time budget for the whole computation
        hint, tries, settle = 0, 0, True
        while not proc.memo.unsaturable:
            try:
                found, settled = _odds(ruleset, proc, args, sheet, asked, saturate=True, cap_hint=hint,
                                       settle=settle)
            except Undecided as undecided:
                tries += 1
                need = undecided.need
                if undecided.lumped and (need is None or need <= hint or tries > 2):  # a loop's numbers do not
                    hint, tries, settle = 0, 0, False  # settle (they fall, say): followed pass by pass instead
                elif need is None or need <= hint or tries > 4:  # the tail must be cut off
                    proc.memo.unsaturable = str(undecided) if need is None else \
                        f"a formula compares an exploding total with ever larger numbers (up to {need})"
                else:  # a total was compared with a number above its cap: saturate up to that number
                    hint = need
                continue
            lumped = [v for v, cut in found.values_cut.items() if cut > 16 * limits.TRUNCATION_MASS]
            if not lumped:
                return found
            if settled:  # a loop was solved at once: its values are told apart further the same way
                return _widened(ruleset, proc, args, sheet, hint, found, lumped)
            # a total was told apart only up to the number it is compared with: its own distribution comes
            # from the same procedure with the dice cut off where they grow too unlikely instead
            try:
                plain = _odds(ruleset, proc, args, sheet, (), saturate=False)[0]
            except RulesError:  # too much work cut off that way: the values stay told apart up to the number
                return found
            values, cut = dict(found.values), dict(found.values_cut)
            for v in lumped:
                values[v], cut[v] = plain.values[v], plain.truncated
            return replace(found, values=values, values_cut=cut)
        found = _odds(ruleset, proc, args, sheet, asked, saturate=False)[0]
        return replace(found, inexact=proc.memo.unsaturable) if found.truncated else found


def remedy(ruleset: CompiledRuleset, proc: CompiledProcedure, args: Mapping[str, object]) -> str:
    """What to do when these odds are refused: end a loop with a condition once the outcome is settled; else
    count sampled runs."""
    given = "".join(f" {k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in args.items())
    sample = f"count sampled runs instead: `rules run {ruleset.id} {proc.name}{given} --times 10000`"
    if any(isinstance(step.spec, Loop) and step.spec.condition is not None for step in walk(proc.steps)):
        return ("where a loop goes on after the outcome is settled, end it there (put what decides the outcome "
                f"into its `while`: `while: doubles and total < target`), or give it fewer passes (`max`); or {sample}")
    return sample


WIDE = 64  # the least cap up to which a settled loop's reported values are told apart, grown fourfold at a time


def _widened(ruleset: CompiledRuleset, proc: CompiledProcedure, args: Mapping[str, object],
             sheet: Mapping[str, object] | None, hint: int, found: ExactOdds, lumped: list[str]) -> ExactOdds:
    """Odds whose values lumped in a settled loop are told apart up to larger caps, until what is left above
    is negligible (or a cap takes too much work: the values then stay as told apart so far)."""
    values, cut = dict(found.values), dict(found.values_cut)
    cap = max(WIDE, 4 * hint)
    for _ in range(3):
        try:
            wide = _odds(ruleset, proc, args, sheet, (), saturate=True, cap_hint=hint,
                         wide=(frozenset(lumped), cap))[0]
        except (RulesError, Undecided):
            break
        for v in lumped:
            values[v], cut[v] = wide.values[v], wide.values_cut.get(v, 0.0)
        if all(cut[v] <= 16 * limits.TRUNCATION_MASS for v in lumped):
            break
        cap *= 4
    return replace(found, values=values, values_cut=cut)


def _odds(ruleset: CompiledRuleset, proc: CompiledProcedure, args: Mapping[str, object], sheet: Mapping[str, object] | None,
          asked: Conditions, saturate: bool, cap_hint: int = 0, wide: tuple[frozenset[str], int] | None = None,
          settle: bool = True) -> tuple[ExactOdds, bool]:
    """The odds, with or without saturated explosions, and whether a loop with no bound was solved at once;
    `wide`: names a settling loop tells apart up to a larger cap, which it must settle with."""
    env = start_env(ruleset, proc, args, sheet)
    start = fixed(ruleset, proc, env) if asked else {}
    sheet_env = sheet or {}
    if proc.reads is not None and not (SHEET in proc.reads and sheet_env):
        # Every world copies its env: leave out what no step reads (the trait flags of parameters mostly).
        keep = proc.reads | set(proc.outcomes) | {"outcome", "has_sheet"}
        if SHEET in proc.reads:  # sheet steps that a run without a sheet cannot take: constants stay
            keep = keep | set(ruleset.constants) | set(ruleset.dice)
        env = {k: v for k, v in env.items() if k in keep}
    ctx = Exact(ruleset, table_functions(ruleset), sheet_names(ruleset, sheet), saturate, cap_hint, settle)
    if wide is not None:
        ctx.lumping.wide, ctx.lumping.wide_cap, ctx.lumping.must_settle = wide[0], wide[1], True
    # A value that is final (no later step reads or writes it) is added up as soon as it is,
    # with the mass of the worlds then; worlds are then no longer told apart by it.
    retired: dict[str, tuple[dict[Any, Any], Any]] = {}
    read = {n for _, f in asked for n in f.names}  # values a condition reads stay in the final worlds


    def retire(program: Program, pc: int, pending: dict[int, Worlds], here: Worlds) -> None:
        done = [v for v in program.retire[pc] if v not in retired and v not in ctx.sheet_names and v not in read]
        if done:
            _retire(here + [w for waiting in pending.values() for w in waiting], done, retired)
            ctx.settled = ctx.settled | frozenset(done)  # no longer part of what tells worlds apart

    ctx.at_block = retire
    program = program_of(ruleset, proc, unchanged(ruleset, proc, env))  # written for these parameters
    try:
        worlds = ctx.run(program, [(State(env), Ratio(1, 1))])
    except Undecided as undecided:
        undecided.lumped = ctx.lumping.used
        raise
    by_outcome: dict[str, list[object]] = {o: [] for o in proc.outcomes}
    for world, weight in worlds:
        by_outcome.setdefault(finished(proc, world.outcome), []).append(weight)
    mass = exact(add_all(p for _, p in worlds))
    outcomes: dict[str, Any] = {o: exact(add_all(ws)) for o, ws in by_outcome.items()}
    values = _sums(worlds, [v for v in proc.values if v not in retired])
    chances = [_chance(proc, f, worlds, start, ctx.functions) for _, f in asked]
    truncated = ctx.truncated
    if truncated:
        # What was cut off is reported, and the rest is renormalised so probabilities sum to 1.
        outcomes = {k: float(p) / float(mass) for k, p in outcomes.items()}
        values = {k: {x: float(p) / float(mass) for x, p in d.items()} for k, d in values.items()}
        chances = [float(p) / float(mass) for p in chances]
    for v, (counts, then) in retired.items():
        values[v] = {x: float(p) / float(then) for x, p in counts.items()} if truncated else counts
    values = {v: values[v] for v in proc.values}
    values_cut: dict[str, float] = {}
    for v, dist in values.items():
        tail = sum((p for x, p in dist.items() if isinstance(x, AtLeast)), 0)
        if tail:  # a value with endless possible values: shown without its tail, which is reported
            values_cut[v] = float(tail)
            values[v] = {x: float(p) / float(1 - tail) for x, p in dist.items() if not isinstance(x, AtLeast)}
    events = {name: p for (name, _), p in zip(asked, chances, strict=True) if name is not None}
    where = next((p for (name, _), p in zip(asked, chances, strict=True) if name is None), None)
    return ExactOdds(ruleset.id, proc.name, outcomes,
                     {k: _worded_keys(proc, k, dict(sorted(d.items(), key=_order))) for k, d in values.items()},
                     truncated, values_cut, events, where), ctx.lumping.settled


def _chance(proc: CompiledProcedure, condition: Formula, worlds: Worlds, start: Mapping[str, object],
            functions: Mapping[str, Any]) -> Any:
    """The exact sum of the weights of the final worlds where a condition holds."""
    return exact(add_all(p for world, p in worlds
                         if holds(condition, proc, world.env, finished(proc, world.outcome), start, functions)))


def _retire(worlds: Worlds, names: list[str], retired: dict[str, tuple[dict[object, object], object]]) -> None:
    """Add up the distribution of values that are final, with the mass of the worlds then."""
    mass = exact(add_all(p for _, p in worlds))
    for v, dist in _sums(worlds, names).items():
        retired[v] = (dist, mass)


def _sums(worlds: Worlds, names: list[str]) -> dict[str, dict[Any, Any]]:
    """Each name's distribution over the worlds: its value as reported -> the exact sum of their weights."""
    out: dict[str, dict[object, object]] = {}
    for v in names:
        by_value: dict[object, list[object]] = {}
        for world, weight in worlds:
            value = world.env.get(v)
            seen = by_value.get(value)
            if seen is None:
                by_value[value] = [weight]
            else:
                seen.append(weight)
        if any(isinstance(x, Absent) for x in by_value):  # absent values are all reported as None: in world order
            by_value = {}
            for world, weight in worlds:
                by_value.setdefault(reported(world.env.get(v)), []).append(weight)
        out[v] = {x: exact(add_all(ws)) for x, ws in by_value.items()}
    return out


def _worded_keys(proc: CompiledProcedure, name: str, dist: dict[Any, Any]) -> dict[Any, Any]:
    """A value's distribution with its numbers shown as their declared words."""
    if name not in proc.value_words:
        return dist
    out: dict[object, object] = {}
    for value, p in dist.items():
        key = worded(proc, name, value)
        out[key] = out.get(key, 0) + p
    return out


def _order(item: tuple[object, object]) -> tuple[int, object]:
    value = item[0]
    if value is None:
        return (0, 0)
    return (1, value)



__all__ = ["ExactOdds", "odds"]
