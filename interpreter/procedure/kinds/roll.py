"""`roll`: roll dice expressions and bind their results; with `read`, statistics of one pool too.

What a roll gives is the context's to say (procedure.sampling rolls the dice; procedure.exact
gives each result in turn with its probability), so this code is the same for both.
"""

from __future__ import annotations

from typing import Any

from interpreter.procedure.records import NoteRecord
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
        if r.effects:
            write_effects(w, r)
            return
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


def write_effects(w: Writer, r: RollInto) -> None:
    """A roll that effects reach: each effect that is on sets its bit of the pick, the expression of that set of
    effects is rolled, and the trace says which effects applied and why."""
    bits, value = [], 0
    for i, flag in enumerate(r.switches):
        on = w.value(flag)
        fixed, holds = w.known(on)
        if not fixed:
            bits.append(f"({1 << i} if {on} else 0)")
        elif holds:
            value |= 1 << i
    known = not bits
    pick = " + ".join([*bits, str(value)])
    if known:  # every flag is fixed in the code written: the one expression is rolled
        w.set(r.name, w.roll(r.name, r.variants[value], r.where))
    else:
        t = w.temp()
        w.emit(f"{t} = {pick}")
        w.set(r.name, w.roll_among(r.name, r.variants, t, r.where))
        pick = t
    for i, effect in enumerate(r.effects):
        why = effect.why()
        note = NoteRecord(f"effect {effect.name} ({why}): {effect.change()} on {r.name}"
                          + (f": {effect.summary}" if effect.summary else ""))
        w.trace_when(f"({bool(value >> i & 1)})" if known else f"{pick} & {1 << i}", note)


def kind() -> dict[str, Any]:
    return {"roll": write_roll}
