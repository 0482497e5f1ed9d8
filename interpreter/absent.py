"""Absent names: a name some rows of a table bind, after a row that did not bind it.

A world where the name is absent holds an `Absent` value under it, which says which row
left it unbound. Reporting shows it as no value; a formula or dice expression that reads
it fails with a located error naming the name and that row.
"""

from __future__ import annotations

from interpreter.errors import EvaluationError, Location
from interpreter.record import record

HINT = "bind it before the table step, or read it only where a row that binds it was applied"


@record
class Absent:
    """The value of a name that has none here: ``why`` says why (``row 1 of table 'x' (on 1) binds no 'n'``)."""

    why: str
    hint: str = HINT
    what: str = "is absent"

    def error(self, name: str, where: Location | None = None) -> EvaluationError:
        return EvaluationError(f"'{name}' {self.what}: {self.why}", where, self.hint)


def reported(value: object) -> object:
    """A value as a run reports it: an absent name has no value."""
    return None if isinstance(value, Absent) else value


__all__ = ["HINT", "Absent", "reported"]
