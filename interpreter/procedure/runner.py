"""Running a compiled procedure: once with dice from a source, or over every world for exact odds."""

from __future__ import annotations

import gc
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from interpreter import budget, limits
from interpreter.absent import Absent, reported
from interpreter.dice import expr as dice
from interpreter.dice.atleast import AtLeast, Undecided
from interpreter.errors import BadParameter, EvaluationError, RulesError
from interpreter.hints import shown, suggest
from interpreter.procedure.call import initial_env
from interpreter.procedure.kinds import RUNNERS
from interpreter.procedure.steps import run_steps
from interpreter.procedure.weights import Ratio, add_all, exact, forget_products
from interpreter.procedure.worlds import EvalContext, World, Worlds, merge
from interpreter.record import field, record
from interpreter.ruleset.liveness import SHEET
from interpreter.ruleset.model import Param, Procedure, Ruleset
from interpreter.ruleset.tables import table_functions
from interpreter.sheet.entries import flags

if TYPE_CHECKING:
    from fractions import Fraction


@record
class Result:
    """What one run of a procedure gave: the outcome, the values, the trace of every roll, sheet changes."""

    ruleset: str
    procedure: str
    outcome: str
    values: Mapping[str, Any]
    trace: tuple[Any, ...]
    changes: tuple[tuple[tuple[Any, ...], Any, Any], ...] = ()


@record
class Odds:
    """The exact probability of every outcome and the distribution of every value."""

    ruleset: str
    procedure: str
    outcomes: Mapping[str, Fraction | float]
    values: Mapping[str, Mapping[Any, Fraction | float]]
    truncated: float
    values_cut: Mapping[str, float] = field(default_factory=dict)  # value -> tail left out of it (see odds)

    @property
    def exact(self) -> bool:
        """True when every probability is an exact fraction and nothing was cut off."""
        from fractions import Fraction

        return not self.truncated and all(isinstance(p, Fraction) for p in self.outcomes.values())


def find_procedure(ruleset: Ruleset, name: str) -> Procedure:
    """The named procedure, or an error suggesting the closest names."""
    try:
        return ruleset.procedures[name]
    except KeyError:
        hint = suggest(name, ruleset.procedures) or "procedures: " + ", ".join(ruleset.procedures)
        raise BadParameter(f"ruleset '{ruleset.id}' has no procedure '{name}'", hint=hint) from None


def convert(param: Param, raw: Any) -> Any:
    """A parameter value from the command line or a caller, checked against its declaration."""
    value: Any = raw
    if isinstance(raw, str):
        text = raw.strip()
        if text in param.options:
            value = param.options[text]
        elif param.type == "dice":
            try:
                value = dice.parse_parameter(text)  # (dice separated by commas are one group)
            except RulesError as err:
                raise BadParameter(f"parameter '{param.name}' ({shown(text)}): {err.message}") from None
        elif param.type == "flag":
            lowered = text.lower()
            if lowered not in ("true", "false", "1", "0", "yes", "no"):
                raise BadParameter(f"parameter '{param.name}' is a flag: give true or false, not '{raw}'")
            value = lowered in ("true", "1", "yes")
        elif param.type == "choice":
            options = ", ".join(param.options)
            raise BadParameter(f"parameter '{param.name}' must be one of {options}, not '{raw}'")
        else:
            try:
                value = limits.whole_number(text)
            except OverflowError:
                raise BadParameter(f"parameter '{param.name}' is {shown(text)}: {limits.OUT_OF_RANGE}") from None
            if value is None:
                words = f" or one of {', '.join(param.options)}" if param.options else ""
                raise BadParameter(f"parameter '{param.name}' must be a whole number{words}, not {shown(raw)}")
    if param.type == "flag":
        value = bool(value)
    if param.type in ("int", "choice") and not isinstance(value, bool) and isinstance(value, int):
        if param.minimum is not None and value < param.minimum:
            raise BadParameter(f"parameter '{param.name}' is {value}; the least allowed is {param.minimum}")
        if param.maximum is not None and value > param.maximum:
            raise BadParameter(f"parameter '{param.name}' is {value}; the most allowed is {param.maximum}")
        if param.one_of is not None and value not in param.one_of:
            raise BadParameter(f"parameter '{param.name}' is {value}; it must be one of "
                               + ", ".join(map(str, param.one_of)))
    return value


def bind(proc: Procedure, args: Mapping[str, Any], sheet_env: Mapping[str, Any] | None = None,
         ruleset: Ruleset | None = None) -> dict[str, Any]:
    """Check and convert the given arguments against the procedure's parameters.

    With a sheet, a value may name a sheet value (`stat=STR`), and a trait parameter
    binds the trait's value plus `NAME_in_GROUP` flags. A whole-number parameter given a
    trait's name gets the same flags and `NAME_in_FIELD` for the fields whose entries name
    traits; they are false otherwise.
    """
    params = {p.name: p for p in proc.params}
    bound: dict[str, Any] = {}
    for name, raw in args.items():
        if name not in params:
            hint = suggest(name, params) or ("it takes " + ", ".join(params) if params else "it takes no parameters")
            raise BadParameter(f"procedure '{proc.name}' has no parameter '{name}'", hint=hint)
        param = params[name]
        text = raw.strip() if isinstance(raw, str) else raw
        if param.type == "trait":
            bound.update(_trait_param(param, text, sheet_env, ruleset))
        elif (sheet_env is not None and isinstance(text, str) and text in sheet_env
              and text not in param.options and param.type in ("int", "flag")):
            bound[name] = convert(param, sheet_env[text])
            if ruleset is not None and param.type == "int" and text in ruleset.traits:
                bound.update(flags(ruleset, name, text, sheet_env))
        else:
            bound[name] = convert(param, raw)
    if ruleset is not None:
        for param in proc.params:
            if param.type == "int":
                for key, value in flags(ruleset, param.name, None, sheet_env).items():
                    bound.setdefault(key, value)
    return bound


def _trait_param(param: Param, text: Any, sheet_env: Mapping[str, Any] | None, ruleset: Ruleset | None) -> dict[str, Any]:
    if ruleset is None or sheet_env is None:
        raise BadParameter(f"parameter '{param.name}' names a trait of a character sheet: give --sheet FILE")
    if text not in ruleset.traits:
        raise BadParameter(f"parameter '{param.name}': '{text}' is not a trait of {ruleset.id}",
                           hint=suggest(str(text), ruleset.traits))
    out: dict[str, Any] = {param.name: sheet_env[text]}
    out.update(flags(ruleset, param.name, text, sheet_env))
    return out


def _finish(proc: Procedure, world: World) -> None:
    if world.outcome is None:
        raise EvaluationError(f"procedure '{proc.name}' ended without an outcome", proc.where)


def _start(ruleset: Ruleset, proc: Procedure, args: Mapping[str, Any], sheet: Mapping[str, Any] | None,
           doc: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The starting env of a run, and the sheet's names alone (empty without a sheet).

    A trait parameter (`stat=STR`) binds the trait's value under the parameter's name,
    and a flag for each trait group.
    """
    from interpreter.sheet import bind as sheets

    if proc.sheet == "required" and sheet is None:
        raise BadParameter(f"procedure '{proc.name}' works on a character sheet: give --sheet FILE")
    if sheet is not None and not sheets.names_ruleset(sheet.get("ruleset"), ruleset, doc.file if doc is not None else None):
        raise BadParameter(f"the sheet is for ruleset '{sheet.get('ruleset')}', not '{ruleset.id}'",
                           doc.where(("ruleset",)) if doc is not None else None)
    if sheet is not None:
        from interpreter.sheet.creation import refuse_broken

        refuse_broken(ruleset, sheet, doc)
    sheet_env = sheets.bind(ruleset, sheet, doc) if sheet is not None else None
    params = bind(proc, args, sheet_env, ruleset)
    env = initial_env(ruleset, proc, params)
    env.update({k: v for k, v in params.items() if k not in env})  # a trait parameter's name and group flags
    env["has_sheet"] = sheet_env is not None
    if proc.sheet != "none" and sheet_env is not None:
        for key, value in sheet_env.items():
            if key not in env or isinstance(env[key], Absent):  # a parameter's name stays the parameter's
                env[key] = value
    _check_dice_params(proc, params, env)
    return env, sheet_env or {}


def start_env(ruleset: Ruleset, proc: Procedure, args: Mapping[str, Any]) -> dict[str, Any]:
    """The starting env of a run without a sheet: parameters checked and bound, constants, outcome ranks."""
    return _start(ruleset, proc, args, None, None)[0]


def _check_dice_params(proc: Procedure, params: Mapping[str, Any], env: Mapping[str, Any]) -> None:
    """A dice expression given for a parameter names only what the run knows, whatever branch it takes."""
    for param in proc.params:
        value = params.get(param.name)
        if param.type == "dice" and isinstance(value, dice.DiceExpr):
            unknown = sorted(set(value.names) - set(env))
            if unknown:
                raise BadParameter(f"parameter '{param.name}' ({shown(value.text)}): unknown name '{unknown[0]}'",
                                   hint="give dice such as 1d8, or a whole number")


def _traits_named(proc: Procedure, args: Mapping[str, Any]) -> dict[str, str]:
    """The trait each trait parameter names (`stat=STR` gives {'stat': 'STR'})."""
    return {p.name: str(args[p.name]).strip() for p in proc.params if p.type == "trait" and p.name in args}


def _sheet_names(ruleset: Ruleset, sheet_env: Mapping[str, Any]) -> tuple[str, ...]:
    """The names a bound sheet adds to the constants."""
    return tuple(k for k in sheet_env if k not in ruleset.constants)


def run(ruleset: Ruleset, name: str, args: Mapping[str, Any], source: Any,
        sheet: Mapping[str, Any] | None = None, doc: Any = None) -> Result:
    """Run a procedure once, drawing dice from the source; with a sheet, report what it changed."""
    from interpreter.sheet import bind as sheets

    proc = find_procedure(ruleset, name)
    env, sheet_env = _start(ruleset, proc, args, sheet, doc)
    ctx = EvalContext(ruleset, exact=False, handlers=RUNNERS, source=source, functions=table_functions(ruleset),
                      sheet_names=_sheet_names(ruleset, sheet_env))
    [(world, _)] = run_steps(proc.steps, [(World(env), 1)], ctx)
    _finish(proc, world)
    values = {v: worded(proc, v, reported(world.env.get(v))) for v in proc.values}
    changes: tuple[Any, ...] = ()
    if proc.sheet != "none" and sheet is not None:
        final = dict(world.env)
        for param, trait in _traits_named(proc, args).items():
            final[trait] = final[param]  # a trait parameter's new value is the trait's
        if ruleset.sheet is not None:
            sheets.refresh(ruleset, final)
        changes = tuple(sheets.changed_paths(ruleset, sheet_env, final, sheet))
    return Result(ruleset.id, proc.name, world.outcome or "", values, world.trace, changes)


def odds(ruleset: Ruleset, name: str, args: Mapping[str, Any], sheet: Mapping[str, Any] | None = None,
         doc: Any = None) -> Odds:
    """The exact distribution of a procedure's outcomes and values.

    Exploding rolls are first saturated (their tail lumped into one AtLeast value with its exact
    probability); when a formula needs more of such a total than "at least", the odds are
    computed again with the tail cut off.
    """
    key = (ruleset.id, id(ruleset), name)
    hint, tries = 0, 0
    while key not in _UNSATURABLE:
        try:
            found = _odds(ruleset, name, args, sheet, doc, saturate=True, cap_hint=hint)
            lumped = [v for v, cut in found.values_cut.items() if cut > 16 * limits.TRUNCATION_MASS]
            if not lumped:
                return found
            # a total was told apart only up to the number it is compared with: its own distribution comes
            # from the same procedure with the dice cut off where they grow too unlikely instead
            try:
                plain = _odds(ruleset, name, args, sheet, doc, saturate=False)
            except RulesError:  # too much work cut off that way: the values stay told apart up to the number
                return found
            values, cut = dict(found.values), dict(found.values_cut)
            for v in lumped:
                values[v], cut[v] = plain.values[v], plain.truncated
            return Odds(found.ruleset, found.procedure, found.outcomes, values, found.truncated, cut)
        except Undecided as undecided:
            tries += 1
            if undecided.need is None or undecided.need <= hint or tries > 4:
                _UNSATURABLE.add(key)  # this procedure compares totals with each other: don't try again
            else:  # a total was compared with a number above its cap: saturate up to that number
                hint = undecided.need
    return _odds(ruleset, name, args, sheet, doc, saturate=False)


_UNSATURABLE: set[tuple[str, int, str]] = set()


def _odds(ruleset: Ruleset, name: str, args: Mapping[str, Any], sheet: Mapping[str, Any] | None, doc: Any,
          saturate: bool, cap_hint: int = 0) -> Odds:
    """The odds, with or without saturated explosions."""
    proc = find_procedure(ruleset, name)
    env, sheet_env = _start(ruleset, proc, args, sheet, doc)
    if proc.reads is not None and not (SHEET in proc.reads and sheet_env):
        # Every world copies its env: leave out what no step reads (the trait flags of parameters mostly).
        keep = proc.reads | set(proc.outcomes) | {"outcome", "has_sheet"}
        if SHEET in proc.reads:  # sheet steps that a run without a sheet cannot take: constants stay
            keep = keep | set(ruleset.constants) | set(ruleset.dice)
        env = {k: v for k, v in env.items() if k in keep}
    ctx = EvalContext(ruleset, exact=True, handlers=RUNNERS, functions=table_functions(ruleset),
                      sheet_names=_sheet_names(ruleset, sheet_env), saturate=saturate, cap_hint=cap_hint)
    paused = gc.isenabled()
    gc.disable()  # worlds are many short-lived objects without cycles: collecting finds nothing to free
    clock = budget.start()  # one time budget for the whole computation
    try:
        worlds: Worlds = [(World(env), Ratio(1, 1))]
        # A value that is final (no later step reads or writes it) is added up as soon as it is,
        # with the mass of the worlds then; worlds are then no longer told apart by it.
        retired: dict[str, tuple[dict[Any, Any], Any]] = {}
        for i, step in enumerate(proc.steps):
            worlds = run_steps((step,), worlds, ctx, proc.steps[i + 1] if i + 1 < len(proc.steps) else None)
            done = [v for v in step.done if v not in ctx.sheet_names]
            if done:
                _retire(worlds, done, retired)
                ctx.settled = ctx.settled | frozenset(done)  # no longer part of what tells worlds apart
                worlds = merge(worlds, ctx.key_names(step.live))
        by_outcome: dict[str, list[Any]] = {o: [] for o in proc.outcomes}
        for world, weight in worlds:
            _finish(proc, world)
            assert world.outcome is not None  # _finish refuses a world without an outcome
            by_outcome.setdefault(world.outcome, []).append(weight)
        mass = exact(add_all(p for _, p in worlds))
        outcomes: dict[str, Any] = {o: exact(add_all(ws)) for o, ws in by_outcome.items()}
        values = _sums(worlds, [v for v in proc.values if v not in retired])
    finally:
        budget.stop(clock)
        forget_products()
        if paused:
            gc.enable()
    truncated = ctx.truncated
    if truncated:
        # What was cut off is reported, and the rest is renormalised so probabilities sum to 1.
        outcomes = {k: float(p) / float(mass) for k, p in outcomes.items()}
        values = {k: {x: float(p) / float(mass) for x, p in d.items()} for k, d in values.items()}
    for v, (counts, then) in retired.items():
        values[v] = {x: float(p) / float(then) for x, p in counts.items()} if truncated else counts
    values = {v: values[v] for v in proc.values}
    values_cut: dict[str, float] = {}
    for v, dist in values.items():
        tail = sum((p for x, p in dist.items() if isinstance(x, AtLeast)), 0)
        if tail:  # a value with endless possible values: shown without its tail, which is reported
            values_cut[v] = float(tail)
            values[v] = {x: float(p) / float(1 - tail) for x, p in dist.items() if not isinstance(x, AtLeast)}
    return Odds(ruleset.id, proc.name, outcomes,
                {k: _worded_keys(proc, k, dict(sorted(d.items(), key=_order))) for k, d in values.items()},
                truncated, values_cut)


def _retire(worlds: Worlds, names: list[str], retired: dict[str, tuple[dict[Any, Any], Any]]) -> None:
    """Add up the distribution of values that are final, with the mass of the worlds then."""
    mass = exact(add_all(p for _, p in worlds))
    for v, dist in _sums(worlds, names).items():
        retired[v] = (dist, mass)


def _sums(worlds: Worlds, names: list[str]) -> dict[str, dict[Any, Any]]:
    """Each name's distribution over the worlds: its value as reported -> the exact sum of their weights."""
    out: dict[str, dict[Any, Any]] = {}
    for v in names:
        by_value: dict[Any, list[Any]] = {}
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


def worded(proc: Procedure, name: str, value: Any) -> Any:
    """A reported value as its declared word, when it has one (formulas keep the number)."""
    words = proc.value_words.get(name)
    if words is None or isinstance(value, bool) or not isinstance(value, int):
        return value
    return words.get(value, value)


def _worded_keys(proc: Procedure, name: str, dist: dict[Any, Any]) -> dict[Any, Any]:
    """A value's distribution with its numbers shown as their declared words."""
    if name not in proc.value_words:
        return dist
    out: dict[Any, Any] = {}
    for value, p in dist.items():
        key = worded(proc, name, value)
        out[key] = out.get(key, 0) + p
    return out


def _order(item: tuple[Any, Any]) -> tuple[int, Any]:
    value = item[0]
    if value is None:
        return (0, 0)
    return (1, value)


__all__ = ["Odds", "Result", "bind", "find_procedure", "odds", "run", "start_env", "table_functions"]
