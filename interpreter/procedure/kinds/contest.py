"""`contest`: compare two sides; the declared side wins ties; bind the margin and whether it was a tie."""

from __future__ import annotations

from typing import Any

from interpreter import limits
from interpreter.procedure.writing import Writer
from interpreter.ruleset.specs import Contest, Step


def write_contest(w: Writer, step: Step[Contest]) -> None:
    spec = step.spec
    actor, defender = w.temp(), w.temp()
    with w.located(step.where):
        w.emit(f"{actor} = {w.value(spec.actor)}")
        w.emit(f"{defender} = {w.value(spec.defender)}")
    won = f"{actor} >= {defender}" if spec.ties == "actor" else f"{actor} > {defender}"
    with w.under(f"if {won}:"):
        w.outcome(spec.win)
    with w.under("else:"):
        w.outcome(spec.lose)
    if spec.margin:  # a difference of two 64-bit values can leave 64 bits: checked as every formula result is
        margin = w.temp()
        info = w.keep((f"{spec.actor.text} - {spec.defender.text}", step.where))
        w.emit(f"{margin} = {actor} - {defender}")
        w.emit(f"if not {limits.INT_MIN} <= {margin} <= {limits.INT_MAX}: _oor({margin}, {info})")
        w.set(spec.margin, margin)
    if spec.tied:
        w.set(spec.tied, f"{actor} == {defender}")


def kind() -> dict[str, Any]:
    return {"contest": write_contest}
