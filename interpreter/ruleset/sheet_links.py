"""What a procedure says about the sheets it runs on: the final states it may act on, and the
parameters that restate a sheet value (with a sheet, the sheet's value wins)."""

from __future__ import annotations

from typing import Any

from interpreter.errors import SchemaViolation, UnknownName
from interpreter.hints import suggest
from interpreter.load.document import Path
from interpreter.record import replace
from interpreter.ruleset.context import CompileContext
from interpreter.ruleset.model import Param, SheetSpec

P = Path


def acts_on_final(c: CompileContext, spec: dict[str, Any], path: P, sheet: SheetSpec | None) -> tuple[str, ...]:
    """The final states named under `acts_on_final`, each one the sheet section declares."""
    names = tuple(spec.get("acts_on_final") or ())
    known = list(sheet.final) if sheet is not None else []
    for i, name in enumerate(names):
        if name not in known:
            c.problem(UnknownName(f"unknown final state '{name}'", c.where(path + ("acts_on_final", i)),
                                  suggest(name, known) or ("declare it under sheet.final" if sheet is not None
                                                           else "the procedure works on no sheet (sheet: none)")))
    return names


def restated(c: CompileContext, params: tuple[Param, ...], specs: dict[str, Any], path: P,
             readable: set[str]) -> tuple[Param, ...]:
    """The parameters with their `sheet_value`, each naming a sheet value the procedure reads."""
    out = []
    for p in params:
        value = (specs.get(p.name) or {}).get("sheet_value")
        if value is None:
            out.append(p)
            continue
        at = path + ("params", p.name, "sheet_value")
        if value not in readable:
            c.problem(UnknownName(f"parameter '{p.name}' restates '{value}', which is no sheet value", c.where(at),
                                  suggest(value, sorted(readable)) or "the procedure needs sheet: optional"))
        elif p.type not in ("int", "flag", "choice"):
            c.problem(SchemaViolation(f"parameter '{p.name}' is a {p.type}; only a number or flag restates a sheet value",
                                      c.where(at, key=True)))
        out.append(replace(p, sheet_value=value))
    return tuple(out)
