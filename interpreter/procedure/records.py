"""What the trace of a run records: each dice roll a step made, and each remark (a table row, a best-of choice)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from interpreter.record import record


@record
class RollRecord:
    """One dice roll made by a step: the name it was bound to, the expression, the names it saw, the roll."""

    name: str
    expr: Any
    env: Mapping[str, object]
    roll: Any


@record
class NoteRecord:
    """A step's remark in the trace (a table row matched, a best-of choice made)."""

    text: str


Record = RollRecord | NoteRecord
Trace = tuple[Record, ...]
