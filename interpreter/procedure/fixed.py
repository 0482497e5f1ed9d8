"""The names whose value a procedure's code may be written with: those no run of it changes.

A ruleset's constants are fixed once it is loaded (an overlay is another ruleset), and so are its
named dice and the ranks of a procedure's outcomes, unless a step or a parameter of the procedure
binds the name; a set of parameters no step changes can be written into the code of one run too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset


def fixed_names(ruleset: CompiledRuleset, proc: CompiledProcedure) -> Mapping[str, object]:
    """The names whose value is the same in every run of a procedure, from its start to its end: constants,
    named dice and the ranks of its outcomes that no parameter and no step of it binds. Their values are
    written into its code (a ruleset's constants are fixed once it is loaded; an overlay is another one)."""
    found = proc.memo.fixed
    if found is not None and found[0] is proc.steps:
        fixed: Mapping[str, object] = found[1][0]
        return fixed
    changed = _changed(ruleset, proc)
    taken = changed | {p.name for p in proc.params}
    out: dict[str, object] = {n: v for n, v in ruleset.constants.items() if type(v) in (int, bool) and n not in taken}
    out.update((n, v) for n, v in ruleset.dice.items() if n not in taken)
    out.update((name, rank) for rank, name in enumerate(proc.outcomes, start=1) if name not in taken)
    proc.memo.fixed = (proc.steps, (out, changed))
    return out


def _changed(ruleset: CompiledRuleset, proc: CompiledProcedure) -> frozenset[str]:
    """The names a run of the procedure may change: those its steps bind, and a character sheet's."""
    from interpreter.ruleset.liveness import writes

    written = writes(proc.steps, ruleset.procedures, ruleset.tables, ruleset.kinds)
    changed = written | {"outcome"} | set(ruleset.traits) | set(ruleset.derived)
    if ruleset.sheet is not None:
        changed |= ruleset.sheet.names(ruleset.traits, ruleset.derived)
    return frozenset(changed)


def unchanged(ruleset: CompiledRuleset, proc: CompiledProcedure, start: Mapping[str, object]) -> dict[str, object]:
    """Of the names a run starts with, those no step changes and no sheet gives (its parameters, mostly):
    the code of one set of parameters can be written with their values in it."""
    fixed_names(ruleset, proc)
    assert proc.memo.fixed is not None
    changed: frozenset[str] = proc.memo.fixed[1][1]
    return {n: v for n, v in start.items() if n not in changed and not n.startswith("#")
            and (type(v) in (int, bool) or getattr(v, "tree", None) is not None)}


__all__ = ["fixed_names", "unchanged"]
