"""What the effects a procedure takes add to it when it is compiled: their flags and the steps that switch them.

Every procedure an effect reaches (or that calls one it reaches) takes the effect's flag as a
parameter, unless it declares one of that name itself. Its steps start with the effect's switches:
the flag is on also `when` the sheet says so, and a procedure that handles the change with its own
steps (`handled_by`) has its own flag turned on by the effect's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from interpreter.ruleset.context import Checker, Scope
from interpreter.ruleset.effects import Effect, handles
from interpreter.ruleset.model import Param
from interpreter.ruleset.specs import Assign, Let, Step


def effect_params(effects: tuple[Effect, ...], declared: tuple[Param, ...]) -> tuple[Param, ...]:
    """The flags of these effects that the procedure does not declare itself."""
    names = {p.name for p in declared}
    out: list[Param] = []
    for effect in effects:
        if effect.param not in names:
            names.add(effect.param)
            out.append(Param(effect.param, "flag", False, False,
                             help=f"effect {effect.name}: {effect.summary}".rstrip(": "), where=effect.where))
    return tuple(out)


def switches(c: Checker, effects: tuple[Effect, ...], spec: Mapping[str, Any], scope: Scope,
             reads_sheet: bool) -> tuple[Step[Any], ...]:
    """The `let` steps a procedure starts with for the effects it takes."""
    out: list[Step[Any]] = []
    for effect in effects:
        path = ("effects", effect.name)
        assign = []
        if effect.when is not None and reads_sheet:
            text = effect.when if isinstance(effect.when, str) else ("true" if effect.when else "false")
            f = c.formula(f"{effect.param} or (has_sheet and ({text}))", path + ("when",), scope.formulas)
            if f is not None:
                assign.append(Assign(effect.param, f, c.where(path + ("when",))))
        if handles(effect, spec) and effect.handled_by != effect.param:
            f = c.formula(f"{effect.handled_by} or {effect.param}", path + ("handled_by",), scope.formulas)
            if f is not None:
                assign.append(Assign(str(effect.handled_by), f, c.where(path + ("handled_by",))))
        if assign:
            out.append(Step("let", Let(tuple(assign)), effect.where))
    return tuple(out)
