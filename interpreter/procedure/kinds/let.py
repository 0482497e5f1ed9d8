"""`let`: bind names to the values of formulas, in order; then the notes whose condition holds go to the trace
(the steps an effect adds to a procedure say so: ruleset.effect_steps)."""

from __future__ import annotations

from typing import Any

from interpreter.procedure.records import NoteRecord
from interpreter.procedure.writing import Writer
from interpreter.ruleset.specs import Let, Step


def write_let(w: Writer, step: Step[Let]) -> None:
    for a in step.spec.assign:
        with w.located(a.where):
            w.set(a.name, w.value(a.formula))
    for condition, text in step.spec.notes:
        with w.located(step.where):
            holds = w.value(condition)
        w.trace_when(holds, NoteRecord(text))


def kind() -> dict[str, Any]:
    return {"let": write_let}
