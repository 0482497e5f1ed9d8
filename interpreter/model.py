"""The compiled, immutable form of a ruleset: every formula parsed, every reference resolved."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, TypeAlias

from .errors import Location

Value: TypeAlias = "int | bool | float"


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of a procedure."""

    name: str
    type: str  # int | flag | dice | choice
    default: Any = None
    required: bool = True
    minimum: int | None = None
    maximum: int | None = None
    options: Mapping[str, int] = field(default_factory=dict)  # words accepted for this parameter
    help: str = ""
    where: Location | None = None


@dataclass(frozen=True, slots=True)
class Step:
    """One compiled step; ``kind`` names its handler and ``spec`` holds its compiled parts."""

    kind: str
    spec: Mapping[str, Any]
    where: Location


@dataclass(frozen=True, slots=True)
class Procedure:
    """A named procedure: parameters, ordered outcomes (best first), values and steps."""

    name: str
    summary: str
    params: tuple[Param, ...]
    outcomes: tuple[str, ...]
    outcome_help: Mapping[str, str]
    values: tuple[str, ...]
    value_help: Mapping[str, str]
    steps: tuple[Step, ...]
    refs: tuple[str, ...]
    where: Location

    def rank(self, outcome: str | None) -> int:
        """How good an outcome is: 0 for the best, larger for worse, and worst of all when unset."""
        if outcome is None:
            return len(self.outcomes)
        return self.outcomes.index(outcome)


@dataclass(frozen=True, slots=True)
class Row:
    """One table row: the keys it covers and what it gives."""

    low: int
    high: int
    value: Any  # compiled formula or None
    outcome: str | None
    values: tuple[tuple[str, Any], ...]  # (name, dice expression)
    text: str
    where: Location


@dataclass(frozen=True, slots=True)
class Table:
    """A lookup table keyed by a die or by a number."""

    name: str
    die: Any  # compiled dice expression, or None for number-keyed tables
    rows: tuple[Row, ...]
    default: Row | None
    summary: str
    refs: tuple[str, ...]
    where: Location

    def row_for(self, key: int) -> Row | None:
        """The row covering a key, or the default row, or None."""
        for row in self.rows:
            if row.low <= key <= row.high:
                return row
        return self.default


@dataclass(frozen=True, slots=True)
class Trait:
    """A character trait with its range."""

    name: str
    label: str
    group: str
    minimum: int | None
    maximum: int | None
    default: int | None


@dataclass(frozen=True, slots=True)
class Derived:
    """A value derived from traits by a formula."""

    name: str
    label: str
    formula: Any
    refs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Note:
    """Descriptive rule data with no dice (turn order, action economy)."""

    name: str
    title: str
    text: str
    data: Mapping[str, Any]
    refs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Example:
    """A worked example from the source text: a procedure, its inputs, given dice and what must come out."""

    name: str
    procedure: str
    params: Mapping[str, Any]
    dice: tuple[int, ...]
    outcome: str | None
    values: Mapping[str, Any]
    refs: tuple[str, ...]
    where: Location


@dataclass(frozen=True, slots=True)
class Ruleset:
    """A whole compiled ruleset."""

    id: str
    title: str
    description: str
    file: str
    constants: Mapping[str, Any]
    dice: Mapping[str, Any]
    traits: Mapping[str, Trait]
    derived: Mapping[str, Derived]
    tables: Mapping[str, Table]
    procedures: Mapping[str, Procedure]
    notes: Mapping[str, Note]
    examples: tuple[Example, ...]
    extra: Mapping[str, Any] = field(default_factory=dict)  # sections other issues add (sheets, tracks)
