"""A procedure's parameters as a caller gives them: looked up, converted and checked against their declarations.

The command line gives text (`stat=12`, `advantage=true`, `damage=1d8`); a program gives
Python values (`12`, `True`, a parsed dice expression; see ``param_value``). With a sheet's
names, a number may name sheet values (`stat=STR`, `pool=Dexterity+Firearms`; see
``sheet_sum``), and a trait parameter binds the trait's value and its group flags.
"""

from __future__ import annotations

from collections.abc import Mapping

from interpreter import limits
from interpreter.dice import expr as dice
from interpreter.errors import BadParameter, RulesError
from interpreter.hints import shown, suggest
from interpreter.ruleset.entries import flags
from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset, Param
from interpreter.ruleset.param_values import param_value
from interpreter.ruleset.sheet_sum import looks_like_names, sheet_sum, trait_named
from interpreter.words import value_text

FLAG_WORDS = ("true", "false", "1", "0", "yes", "no")


def find_procedure(ruleset: CompiledRuleset, name: str) -> CompiledProcedure:
    """The named procedure, or an error suggesting the closest names."""
    try:
        return ruleset.procedures[name]
    except KeyError:
        hint = suggest(name, ruleset.procedures) or "procedures: " + ", ".join(ruleset.procedures)
        raise BadParameter(f"ruleset '{ruleset.id}' has no procedure '{name}'", hint=hint) from None


def convert(param: Param, raw: object) -> object:
    """A parameter value from the command line (text) or a program (a Python value), checked against its declaration."""
    value: object = raw
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
            if lowered not in FLAG_WORDS:
                raise BadParameter(f"parameter '{param.name}' is a flag: give true or false, not '{raw}'")
            value = lowered in ("true", "1", "yes")
        elif param.type == "choice":
            options = ", ".join(param.options)
            raise BadParameter(f"parameter '{param.name}' must be one of {options}, not {shown(raw)}",
                               hint=_suggest_option(text, param))
        else:
            try:
                value = limits.whole_number(text)
            except OverflowError:
                raise BadParameter(f"parameter '{param.name}' is {shown(text)}: {limits.OUT_OF_RANGE}") from None
            if value is None:
                words = f" or one of {', '.join(param.options)}" if param.options else ""
                raise BadParameter(f"parameter '{param.name}' must be a whole number{words}, not {shown(raw)}",
                                   hint=_suggest_option(text, param))
    else:
        value = param_value(param, raw)
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


def _suggest_option(text: str, param: Param) -> str | None:
    """A did-you-mean for a word that is close to one the parameter accepts (`Lethal`, `lethl`)."""
    return suggest(text, param.options) if param.options else None


def bind(proc: CompiledProcedure, args: Mapping[str, object], sheet_env: Mapping[str, object] | None = None,
         ruleset: CompiledRuleset | None = None) -> dict[str, object]:
    """Check and convert the given arguments against the procedure's parameters.

    A value of None is a parameter not given (its default applies). With a sheet, a number may
    name sheet values (`stat=STR`, in any letter case, or by the trait's label; `pool=Dexterity+Firearms`),
    and a trait parameter binds the trait's value plus `NAME_in_GROUP` flags. A whole-number
    parameter given one trait's name gets the same flags and `NAME_in_FIELD` for the fields whose
    entries name traits; they are false otherwise (a number, or a sum of several names).
    """
    params = {p.name: p for p in proc.params}
    bound: dict[str, object] = {}
    for name, raw in args.items():
        if name not in params:
            hint = suggest(name, params) or ("it takes " + ", ".join(params) if params else "it takes no parameters")
            raise BadParameter(f"procedure '{proc.name}' has no parameter '{name}'", hint=hint)
        if raw is None:
            continue
        param = params[name]
        text = raw.strip() if isinstance(raw, str) else raw
        if param.type == "trait":
            bound.update(_trait_param(param, text, sheet_env, ruleset))
        elif isinstance(text, str) and param.type in ("int", "flag") and text not in param.options \
                and looks_like_names(text) and not (param.type == "flag" and text.lower() in FLAG_WORDS):
            bound.update(_named(param, text, sheet_env, ruleset))
        else:
            bound[name] = convert(param, raw)
    if sheet_env is not None:
        bound.update(_restated(proc, bound, sheet_env))
    if ruleset is not None:
        for param in proc.params:
            if param.type == "int":
                for key, value in flags(ruleset, param.name, None, sheet_env).items():
                    bound.setdefault(key, value)
    return bound


def _restated(proc: CompiledProcedure, bound: Mapping[str, object], sheet_env: Mapping[str, object]) -> dict[str, object]:
    """The parameters that restate a sheet value, read from the sheet: a given value must be the sheet's."""
    out: dict[str, object] = {}
    for param in proc.params:
        if param.sheet_value is None or param.sheet_value not in sheet_env:
            continue
        held = sheet_env[param.sheet_value]
        if param.name in bound and bound[param.name] != held:
            raise BadParameter(f"parameter '{param.name}' is {_plain(bound[param.name])}, but the sheet's "
                               f"{param.sheet_value} is {_plain(held)}: with --sheet the sheet's value counts",
                               hint=f"leave {param.name} out, or change {param.sheet_value} on the sheet")
        out[param.name] = held
    return out


def _plain(value: object) -> str:
    return shown(value) if isinstance(value, str) else value_text(value)


def _named(param: Param, text: str, sheet_env: Mapping[str, object] | None, ruleset: CompiledRuleset | None) -> dict[str, object]:
    """A number or flag parameter given sheet names (`STR`, `str`, `Dexterity+Firearms`), with its trait flags."""
    if sheet_env is None:
        try:
            return {param.name: convert(param, text)}
        except BadParameter as err:
            trait = trait_named(ruleset, text) if ruleset is not None else None
            if trait is not None:
                err.hint = f"'{trait}' is a trait: give --sheet FILE to read it from a character sheet"
            raise
    total, single = sheet_sum(param, text, sheet_env, ruleset)
    try:
        out: dict[str, object] = {param.name: convert(param, total)}
    except BadParameter as err:
        if ruleset is not None and single is not None:
            err.hint = _why(ruleset, single, sheet_env) or err.hint
        raise
    if ruleset is not None and param.type == "int" and single is not None and single in ruleset.traits:
        out.update(flags(ruleset, param.name, single, sheet_env))
    return out


def _why(ruleset: CompiledRuleset, name: str, sheet_env: Mapping[str, object]) -> str | None:
    """Why a sheet's derived value is what it is: its formula and the flags it reads, each field flag with
    the entry it tells of (`healing` is 0: `... if healer else 0`, and no entry of advantages is Healing)."""
    derived = ruleset.derived.get(name)
    if derived is None or derived.formula is None:
        return None
    told = {flag: (f.name, entry) for f in (ruleset.sheet.fields.values() if ruleset.sheet else ())
            for flag, entry in f.flags.items()}
    parts = []
    for used in sorted(derived.formula.names):
        value = sheet_env.get(used)
        if not isinstance(value, bool):
            continue
        if used in told:
            field, entry = told[used]
            parts.append(f"{used} is {value_text(value)}: " + (
                f"{field} holds {shown(entry)}" if value else f"no entry of {field} is {shown(entry)}"))
        else:
            parts.append(f"{used} is {value_text(value)}")
    return f"the sheet's {name} is {derived.formula.text}" + (f", and {'; '.join(parts)}" if parts else "")


def _trait_param(param: Param, text: object, sheet_env: Mapping[str, object] | None, ruleset: CompiledRuleset | None) -> dict[str, object]:
    if ruleset is None or sheet_env is None:
        raise BadParameter(f"parameter '{param.name}' names a trait of a character sheet: give --sheet FILE")
    found = trait_named(ruleset, text) if isinstance(text, str) else None
    if found is None:
        raise BadParameter(f"parameter '{param.name}': {shown(str(text))} is not a trait of {ruleset.id}",
                           hint=suggest(str(text), ruleset.traits))
    out: dict[str, object] = {param.name: sheet_env[found]}
    out.update(flags(ruleset, param.name, found, sheet_env))
    return out


def trait_argument(ruleset: CompiledRuleset, text: object) -> str | None:
    """The trait a trait parameter's value names (`Firearms`, `firearms`), or None."""
    return trait_named(ruleset, text) if isinstance(text, str) else None


__all__ = ["bind", "convert", "find_procedure", "trait_argument"]
