"""`update`, `damage` and `heal`: change a character sheet's values, then keep what follows from them fresh.

They change names in the state like any step, so exact odds work for them too; the sheet layer
writes the changed names back to the sheet file after a run (sheet.session).
"""

from __future__ import annotations

from typing import Any

from interpreter.errors import Location, Refused
from interpreter.procedure.writing import Writer
from interpreter.ruleset.derived import refresh
from interpreter.ruleset.model import Ruleset, Track
from interpreter.ruleset.specs import BoxChange, Step, Update
from interpreter.ruleset.tracks import MARKS, box_numbers, damage_marks, heal_marks


def write_update(w: Writer, step: Step[Update]) -> None:
    for a in step.spec.assign:
        with w.located(a.where):
            w.set(a.name, w.value(a.formula))
    w.emit(f"_refresh({w.keep(w.ruleset)}, {w.names()})")


class Boxes:
    """A damage or heal step on a box track: marks boxes worst type first, or clears boxes of one type."""

    __slots__ = ("kind", "ruleset", "track", "where")

    def __init__(self, kind: str, track: Track, ruleset: Ruleset, where: Location) -> None:
        self.kind = kind
        self.track = track
        self.ruleset = ruleset
        self.where = where

    def change(self, env: dict[str, Any], amount: Any, severity: Any) -> None:
        track = self.track
        if amount < 0:
            raise Refused(f"{self.kind} amount is {amount}; it cannot be negative", self.where)
        if not 1 <= severity <= len(track.types):
            raise Refused(f"damage type {severity} is not 1 to {len(track.types)} ({', '.join(track.types)})",
                          self.where)
        marks = env[MARKS + track.name]
        if self.kind == "damage":
            temporary = env.get(track.temporary, 0) if track.temporary else 0
            marks, left = damage_marks(track, marks, amount, severity, temporary)
            if track.temporary:
                env[track.temporary] = left
        else:
            marks = heal_marks(marks, amount, severity)
        env[MARKS + track.name] = marks
        env.update(box_numbers(track, marks))
        refresh(self.ruleset, env)


def _write_box(w: Writer, step: Step[BoxChange]) -> None:
    sheet = w.ruleset.sheet
    assert sheet is not None  # the step compiles only in a ruleset with a sheet
    boxes = Boxes(step.kind, sheet.tracks[step.spec.track], w.ruleset, step.where)
    amount, severity = w.temp(), w.temp()
    with w.located(step.where):
        w.emit(f"{amount} = {w.value(step.spec.amount)}")
        w.emit(f"{severity} = {w.value(step.spec.type)}")
    w.emit(f"{w.keep(boxes)}.change({w.names()}, {amount}, {severity})")


def kind() -> dict[str, Any]:
    return {"update": write_update, "damage": _write_box, "heal": _write_box}


HELPERS = {"_refresh": refresh}
