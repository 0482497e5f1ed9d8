"""A procedure's parameters as a caller gives them: looked up, converted and checked against their declarations.

The command line gives text (`stat=12`, `advantage=true`, `damage=1d8`); a program may give
numbers and flags. With a sheet's names, a value may name a sheet value (`stat=STR`), and a
trait parameter binds the trait's value and its group flags.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from interpreter import limits
from interpreter.dice import expr as dice
from interpreter.errors import BadParameter, RulesError
from interpreter.hints import shown, suggest
from interpreter.ruleset.entries import flags
from interpreter.ruleset.model import Param, Procedure, Ruleset


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



__all__ = ["bind", "convert", "find_procedure"]
