"""`let`: bind names to the values of formulas, in order."""

from __future__ import annotations

from typing import Any

from interpreter.procedure.writing import Writer
from interpreter.ruleset.specs import Let, Step


def write_let(w: Writer, step: Step[Let]) -> None:
    for a in step.spec.assign:
        with w.located(a.where):
            w.set(a.name, w.value(a.formula))


def kind() -> dict[str, Any]:
    return {"let": write_let}
