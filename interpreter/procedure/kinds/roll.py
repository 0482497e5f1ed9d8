"""`roll`: roll dice expressions and bind their results; with `read`, statistics of one pool too.

What a roll gives is the context's to say (procedure.sampling rolls the dice; procedure.exact
gives each result in turn with its probability), so this code is the same for both.
"""

from __future__ import annotations

from typing import Any

from interpreter.procedure.writing import Writer
from interpreter.ruleset.specs import Roll, RollInto, Step


def write_roll(w: Writer, step: Step[Roll]) -> None:
    for r in step.spec.rolls:
        write_roll_into(w, r)


def write_roll_into(w: Writer, r: RollInto) -> None:
    """One `name: dice` (a roll step's, or a value a table row rolls)."""
    w.drawing(r.where)
    with w.located(r.where):
        if not r.reads:
            w.set(r.name, w.roll(r.name, r.expr, r.where))
            return
        t = w.temp()
        w.emit(f"{t} = {w.pool(r)}")  # the pool's value, then each statistic it reads
        w.set(r.name, f"{t}[0]")
        for i, (name, _) in enumerate(r.reads, start=1):
            w.set(name, f"{t}[{i}]")


def kind() -> dict[str, Any]:
    return {"roll": write_roll}
