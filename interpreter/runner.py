"""Running a compiled procedure: once with dice from a source, or over every world for exact odds."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

from . import dice
from .errors import BadParameter, EvaluationError, RulesError
from .model import Param, Procedure, Ruleset
from .procedures import initial_env, run_steps
from .worlds import EvalContext, World


@dataclass(frozen=True, slots=True)
class Result:
    """What one run of a procedure gave: the outcome, the values and the trace of every roll."""

    ruleset: str
    procedure: str
    outcome: str
    values: Mapping[str, Any]
    trace: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Odds:
    """The exact probability of every outcome and the distribution of every value."""

    ruleset: str
    procedure: str
    outcomes: Mapping[str, Fraction | float]
    values: Mapping[str, Mapping[Any, Fraction | float]]
    truncated: float

    @property
    def exact(self) -> bool:
        """True when every probability is an exact fraction and nothing was cut off."""
        return not self.truncated and all(isinstance(p, Fraction) for p in self.outcomes.values())


def find_procedure(ruleset: Ruleset, name: str) -> Procedure:
    """The named procedure, or an error suggesting the closest names."""
    try:
        return ruleset.procedures[name]
    except KeyError:
        close = difflib.get_close_matches(name, list(ruleset.procedures), n=1)
        hint = f"did you mean '{close[0]}'?" if close else "procedures: " + ", ".join(ruleset.procedures)
        raise BadParameter(f"ruleset '{ruleset.id}' has no procedure '{name}'", hint=hint) from None


def table_functions(ruleset: Ruleset) -> dict[str, Any]:
    """Number-keyed tables as one-argument functions for formulas."""
    functions = {}
    for table in ruleset.tables.values():
        if table.die is None:
            functions[table.name] = _lookup(ruleset, table)
    return functions


def _lookup(ruleset: Ruleset, table: Any) -> Any:
    def lookup(key: Any) -> Any:
        row = table.row_for(int(key))
        if row is None:
            raise EvaluationError(f"table '{table.name}' has no row for {key}", table.where)
        if row.value is None:
            raise EvaluationError(f"table '{table.name}' row for {key} has no value", row.where)
        return row.value.evaluate(ruleset.constants, {})
    return lookup


def convert(param: Param, raw: Any) -> Any:
    """A parameter value from the command line or a caller, checked against its declaration."""
    value: Any = raw
    if isinstance(raw, str):
        text = raw.strip()
        if text in param.options:
            value = param.options[text]
        elif param.type == "dice":
            value = dice.parse(text)
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
                value = int(text)
            except ValueError:
                words = f" or one of {', '.join(param.options)}" if param.options else ""
                raise BadParameter(f"parameter '{param.name}' must be a whole number{words}, not '{raw}'") from None
    if param.type == "flag":
        value = bool(value)
    if param.type in ("int", "choice") and not isinstance(value, bool) and isinstance(value, int):
        if param.minimum is not None and value < param.minimum:
            raise BadParameter(f"parameter '{param.name}' is {value}; the least allowed is {param.minimum}")
        if param.maximum is not None and value > param.maximum:
            raise BadParameter(f"parameter '{param.name}' is {value}; the most allowed is {param.maximum}")
    return value


def bind(proc: Procedure, args: Mapping[str, Any]) -> dict[str, Any]:
    """Check and convert the given arguments against the procedure's parameters."""
    params = {p.name: p for p in proc.params}
    bound = {}
    for name, raw in args.items():
        if name not in params:
            close = difflib.get_close_matches(name, list(params), n=1)
            hint = f"did you mean '{close[0]}'?" if close else (
                "it takes " + ", ".join(params) if params else "it takes no parameters")
            raise BadParameter(f"procedure '{proc.name}' has no parameter '{name}'", hint=hint)
        bound[name] = convert(params[name], raw)
    return bound


def _finish(proc: Procedure, world: World) -> None:
    if world.outcome is None:
        raise EvaluationError(f"procedure '{proc.name}' ended without an outcome", proc.where)


def run(ruleset: Ruleset, name: str, args: Mapping[str, Any], source: Any) -> Result:
    """Run a procedure once, drawing dice from the source."""
    proc = find_procedure(ruleset, name)
    env = initial_env(ruleset, proc, bind(proc, args))
    ctx = EvalContext(ruleset, exact=False, source=source, functions=table_functions(ruleset))
    [(world, _)] = run_steps(proc.steps, [(World(env), 1)], ctx)
    _finish(proc, world)
    values = {v: world.env.get(v) for v in proc.values}
    return Result(ruleset.id, proc.name, world.outcome or "", values, world.trace)


def odds(ruleset: Ruleset, name: str, args: Mapping[str, Any]) -> Odds:
    """The exact distribution of a procedure's outcomes and values."""
    proc = find_procedure(ruleset, name)
    env = initial_env(ruleset, proc, bind(proc, args))
    ctx = EvalContext(ruleset, exact=True, functions=table_functions(ruleset))
    worlds = run_steps(proc.steps, [(World(env), Fraction(1))], ctx)
    outcomes: dict[str, Any] = {o: Fraction(0) for o in proc.outcomes}
    values: dict[str, dict[Any, Any]] = {v: {} for v in proc.values}
    mass: Any = Fraction(0)
    for world, weight in worlds:
        _finish(proc, world)
        mass += weight
        outcomes[world.outcome] = outcomes.get(world.outcome, 0) + weight  # type: ignore[index]
        for v in proc.values:
            value = world.env.get(v)
            values[v][value] = values[v].get(value, 0) + weight
    truncated = ctx.truncated
    if truncated:
        # What was cut off is reported, and the rest is renormalised so probabilities sum to 1.
        outcomes = {k: float(p) / float(mass) for k, p in outcomes.items()}
        values = {k: {x: float(p) / float(mass) for x, p in d.items()} for k, d in values.items()}
    return Odds(ruleset.id, proc.name, outcomes, {k: dict(sorted(d.items(), key=_order)) for k, d in values.items()},
                truncated)


def _order(item: tuple[Any, Any]) -> tuple[int, Any]:
    value = item[0]
    if value is None:
        return (0, 0)
    return (1, value)


__all__ = ["Result", "Odds", "run", "odds", "bind", "find_procedure", "RulesError"]
