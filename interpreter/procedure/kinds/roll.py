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
        write_roll_into(w, r, step.live)


def write_roll_into(w: Writer, r: RollInto, live: tuple[str, ...] | None = None) -> None:
    """One `name: dice` (a roll step's, or a value a table row rolls); `live` are the names read after it.

    The thresholds of the statistics a pool's `read` binds are formulas (`count >= hit_face`),
    worked out here; exact odds of a pool leave its own value out when nothing reads it."""
    w.drawing(r.where)
    with w.located(r.where):
        if not r.reads:
            w.set(r.name, w.roll(r.name, r.expr, r.where))
            return
        given = ", ".join("(" + "".join(f"{w.value(f)}, " for f in fs) + ")" for fs in r.thresholds)
        thresholds = f"({given},)" if r.thresholds else "()"
        t = w.temp()
        value_read = live is None or r.name in live
        w.emit(f"{t} = {w.pool(r, thresholds, value_read)}")  # the pool's value, then each statistic it reads
        w.set(r.name, f"{t}[0]")
        for i, (name, _) in enumerate(r.reads, start=1):
            w.set(name, f"{t}[{i}]")


def kind() -> dict[str, Any]:
    return {"roll": write_roll}
