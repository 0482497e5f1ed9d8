"""How a run begins and ends: its starting names from the parameters (and a bound sheet), and its outcome;
the starting names of a procedure a call runs too (procedure.kinds.call)."""

from __future__ import annotations

from collections.abc import Mapping

from interpreter.absent import Absent
from interpreter.dice import expr as dice
from interpreter.errors import BadParameter, EvaluationError, Location
from interpreter.hints import shown
from interpreter.procedure.writing import fixed_names
from interpreter.ruleset.liveness import SHEET
from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset
from interpreter.ruleset.params import bind


def start_env(ruleset: CompiledRuleset, proc: CompiledProcedure, args: Mapping[str, object],
              sheet: Mapping[str, object] | None = None) -> dict[str, object]:
    """The starting env of a run: parameters checked and bound, constants, outcome ranks, and the sheet's names.

    `sheet` is a sheet already bound to names (see sheet.bind); a procedure that works on no sheet
    reads none of them, but its parameters may still name sheet values (`stat=STR`).
    """
    if proc.sheet == "required" and sheet is None:
        raise BadParameter(f"procedure '{proc.name}' works on a character sheet: give --sheet FILE")
    params = bind(proc, args, sheet, ruleset)
    env = initial_env(ruleset, proc, params)
    env.update({k: v for k, v in params.items() if k not in env})  # a trait parameter's name and group flags
    env["has_sheet"] = sheet is not None
    if proc.sheet != "none" and sheet is not None:
        for key, value in sheet.items():
            if key not in env or isinstance(env[key], Absent):  # a parameter's name stays the parameter's
                env[key] = value
    _check_dice_params(proc, params, env)
    return env


def _check_dice_params(proc: CompiledProcedure, params: Mapping[str, object], env: Mapping[str, object]) -> None:
    """A dice expression given for a parameter names only what the run knows, whatever branch it takes."""
    for param in proc.params:
        value = params.get(param.name)
        if param.type == "dice" and isinstance(value, dice.DiceExpr):
            unknown = sorted(set(value.names) - set(env))
            if unknown:
                raise BadParameter(f"parameter '{param.name}' ({shown(value.text)}): unknown name '{unknown[0]}'",
                                   hint="give dice such as 1d8, or a whole number")


def sheet_names(ruleset: CompiledRuleset, sheet: Mapping[str, object] | None) -> tuple[str, ...]:
    """The names a bound sheet adds to the constants."""
    return tuple(k for k in sheet or () if k not in ruleset.constants)


def finished(proc: CompiledProcedure, outcome: str | None) -> str:
    """A run's outcome; a run that ended without one is an error in the procedure."""
    if outcome is None:
        raise EvaluationError(f"procedure '{proc.name}' ended without an outcome", proc.where)
    return outcome


def worded(proc: CompiledProcedure, name: str, value: object) -> object:
    """A reported value as its declared word, when it has one (formulas keep the number)."""
    return worded_value(proc.value_words.get(name), value)


def worded_value(words: Mapping[int, str] | None, value: object) -> object:
    """A value as one of these words, when it is a number that has one."""
    if words is None or isinstance(value, bool) or not isinstance(value, int):
        return value
    return words.get(value, value)


def initial_env(ruleset: CompiledRuleset, proc: CompiledProcedure, args: Mapping[str, object], where: Location | None = None) -> dict[str, object]:
    """The names a procedure starts with: constants and named dice its steps read, its outcomes' ranks, then
    its parameters."""
    env = dict(base_env(ruleset, proc))
    for param in proc.params:
        if param.name in args:
            env[param.name] = args[param.name]
        elif not param.required:
            env[param.name] = param.default
        else:
            raise BadParameter(f"procedure '{proc.name}' needs parameter '{param.name}'", where)
    return env


def base_env(ruleset: CompiledRuleset, proc: CompiledProcedure) -> Mapping[str, object]:
    """The constants and named dice a procedure reads (every one when that is not known), its outcomes'
    ranks, and the names a run without a sheet gives; worked out once, kept on the procedure."""
    found = proc.memo.base
    if found is not None and found[0] is proc.steps:
        return found[1]
    everything = {**ruleset.constants, **ruleset.dice}
    reads = proc.reads
    if reads is None or SHEET in reads:  # a dice parameter, or a sheet's formulas, may read any constant
        base = dict(everything)
    else:  # the names its code reads from its start: fixed ones are written into the code (see writing)
        fixed = fixed_names(ruleset, proc)
        base = {k: v for k, v in everything.items() if k in reads and k not in fixed}
    base.update((name, rank) for rank, name in enumerate(proc.outcomes, start=1))
    base["outcome"] = 0
    base["has_sheet"] = False
    if proc.sheet == "optional":  # until a sheet is given, a derived value that reads its state has no value
        for derived in ruleset.derived.values():
            if derived.state:
                base[derived.name] = Absent(
                    f"it is a derived value that reads sheet state ({', '.join(sorted(derived.state))})",
                    "give --sheet FILE", "needs a sheet")
    proc.memo.base = (proc.steps, base)
    return base
