"""What the effects a procedure takes add to it when it is compiled: their flags and the steps that switch them.

Every procedure an effect reaches (or that calls one it reaches) takes the effect's flag as a
parameter, unless it declares one of that name itself. Its steps start with the effect's switches:
the flag is on also `when` the sheet says so, and a procedure that handles the change with its own
steps (`handled_by`) has its own flag turned on by the effect's. A number an effect adds to a value
the procedure reports (its total) is a `let` after each step that sets the value (`value_adds`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from interpreter.formula.compile import Formula
from interpreter.ruleset.context import CompileContext, P, Scope, Spec
from interpreter.ruleset.effects import Effect, handles, when_text
from interpreter.ruleset.kind import Kinds, key_of
from interpreter.ruleset.model import Param
from interpreter.ruleset.specs import Assign, Let, Step, Steps


def effect_params(effects: tuple[Effect, ...], declared: tuple[Param, ...]) -> tuple[Param, ...]:
    """The flags of these effects that the procedure does not declare itself."""
    names = {p.name for p in declared}
    out: list[Param] = []
    for effect in effects:
        if effect.param is not None and effect.param not in names:
            names.add(effect.param)
            out.append(Param(effect.param, "flag", False, False,
                             help=f"effect {effect.name}: {effect.summary}".rstrip(": "), where=effect.where))
    return tuple(out)


def switches(c: CompileContext, effects: tuple[Effect, ...], spec: Spec, scope: Scope,
             reads_sheet: bool, kinds: Kinds) -> Steps:
    """The `let` steps a procedure starts with for the effects it takes (of the kind of `Let` in `kinds`)."""
    out: list[Step[Let]] = []
    for effect in effects:
        path = ("effects", effect.name)
        assign: list[Assign] = []
        if effect.when is not None and reads_sheet and effect.param is not None:
            _assign(c, assign, effect.param, f"{effect.param} or (has_sheet and ({when_text(effect.when)}))",
                    path + ("when",), scope)
        on = effect.switch_in(spec)
        done = []  # what it does to this procedure, for the trace
        if handles(effect, spec) and effect.handled_by != effect.param:
            _assign(c, assign, str(effect.handled_by), f"{effect.handled_by} or ({on})", path + ("handled_by",), scope)
            done.append(f"{effect.handled_by} on")
        params = spec.get("params") or {}
        for name, number in effect.adds.items():
            if name in params:
                _assign(c, assign, name, f"{name} + ({number} if {on} else 0)", path + ("change", "adds", name), scope)
                done.append(f"{name} {number:+d}")
        for name in effect.flags:
            if name in params:
                _assign(c, assign, name, f"{name} or ({on})", path + ("change", "flags"), scope)
                done.append(f"{name} on")
        if assign:
            condition = c.formula(on, path, scope.formulas) if done else None
            why = effect.why()
            note = f"effect {effect.name} ({why}): {', '.join(done)}" + (f": {effect.summary}" if effect.summary else "")
            notes = ((condition, note),) if condition is not None else ()
            out.append(Step(key_of(kinds, Let), Let(tuple(assign), notes), effect.where))
    return tuple(out)


def _assign(c: CompileContext, assign: list[Assign], name: str, text: str, path: P, scope: Scope) -> None:
    f = c.formula(text, path, scope.formulas)
    if f is not None:
        assign.append(Assign(name, f, c.where(path)))


def value_adds(effects: tuple[Effect, ...], proc: Spec, kinds: Kinds, c: CompileContext, step: Spec,
               path: P, scope: Scope, names: tuple[str, ...]) -> Steps:
    """The `let` steps that follow a step of a procedure (as written: `proc`) which sets `names`: each number an
    effect adds to a value the procedure reports, added when the effect is on. The dice the value was worked
    out from are left as rolled, so what reads them (a natural 20) reads the die."""
    params = proc.get("params") or {}
    values = proc.get("values") or {}
    out: list[Step[Let]] = []
    for effect in effects:
        for name, number in effect.adds.items():
            if name not in names or name in params or name not in values:
                continue
            at = ("effects", effect.name, "change", "adds", name)
            on = effect.switch_in(proc, _names_in(step, name))
            assign: list[Assign] = []
            _assign(c, assign, name, f"{name} + ({number} if {on} else 0)", at, scope)
            condition = c.formula(on, at, scope.formulas)
            if not assign or condition is None:
                continue
            note = f"effect {effect.name} ({effect.why()}): {name} {number:+d}" + (
                f": {effect.summary}" if effect.summary else "")
            notes: tuple[tuple[Formula, str], ...] = ((condition, note),)
            if on != effect.switch():  # on, but the run is on no trait it reaches: say so rather than stay silent
                off = c.formula(f"({effect.switch()}) and not ({on})", at, scope.formulas)
                traits = ", ".join((*(effect.traits or ()), *(effect.groups or ())))
                text = (f"effect {effect.name} ({effect.why()}): {name} unchanged, as the run is on no trait of "
                        f"{traits} (give a parameter the trait's name, with --sheet)")
                notes += ((off, text),) if off is not None else ()
            out.append(Step(key_of(kinds, Let), Let(tuple(assign), notes), c.where(path)))
    return tuple(out)


def _names_in(step: Spec, name: str) -> set[str]:
    """The names a step (as written) works `name` out from: the text it gives that name, or all of it."""
    text = next((str(v[name]) for v in step.values() if isinstance(v, Mapping) and name in v), str(step))
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
