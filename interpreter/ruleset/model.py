"""The compiled, immutable form of a ruleset: every formula parsed, every reference resolved."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from interpreter.errors import Location
from interpreter.record import field, record
from interpreter.ruleset.specs import Step, Steps

if TYPE_CHECKING:
    from interpreter.dice.expr import DiceExpr
    from interpreter.formula.compile import Formula
    from interpreter.ruleset.kind import Kinds


@record
class Param:
    """One parameter of a procedure."""

    name: str
    type: str  # int | flag | dice | choice
    default: Any = None
    required: bool = True
    minimum: int | None = None
    maximum: int | None = None
    options: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))  # words for this parameter
    help: str = ""
    where: Location | None = None
    one_of: tuple[int, ...] | None = None  # the only numbers an int parameter may take
    sheet_value: str | None = None  # with a sheet, the sheet name this parameter restates (the sheet's value wins)


class Memo:
    """What running a procedure works out once and keeps: not part of its value (a copy of the procedure
    with other steps shares it, so each thing is kept with the steps it was worked out from)."""

    __slots__ = ("base", "fixed", "unsaturable", "written")

    def __init__(self) -> None:
        # (kind, start values it was written with) -> (steps, its blocks for exact odds or the function running
        # it once: procedure.program, procedure.function)
        self.written: dict[Any, tuple[Any, Any]] = {}
        self.base: tuple[object, Mapping[str, object]] | None = None  # (steps, the names every run starts with)
        self.unsaturable = ""  # why exact odds must cut endless explosions off ("": they need not; procedure.odds)
        self.fixed: tuple[Any, Any] | None = None  # (steps, the names no run changes: procedure.writing)


@record
class CompiledProcedure:
    """A named procedure: parameters, ordered outcomes (best first), values and steps."""

    name: str
    summary: str
    params: tuple[Param, ...]
    outcomes: tuple[str, ...]
    outcome_help: Mapping[str, str]
    values: tuple[str, ...]
    value_help: Mapping[str, str]
    steps: Steps
    refs: tuple[str, ...]
    where: Location
    sheet: str = "none"
    samples: tuple[Mapping[str, object], ...] = ()  # parameter sets for diffs and references
    value_words: Mapping[str, Mapping[int, str]] = field(  # value -> number -> the word shown for it
        default_factory=lambda: MappingProxyType({}))
    reads: frozenset[str] | None = None  # the names its steps can read (liveness.SHEET: a sheet's too); None: any
    acts_on_final: tuple[str, ...] = ()  # the final states of a sheet it may still act on
    tags: tuple[str, ...] = ()  # words an effect's selector picks it by
    effects: tuple[str, ...] = ()  # the effects whose flag or change it takes (ruleset.effects)
    events: tuple[tuple[str, Formula], ...] = ()  # named conditions on what a run reports (procedure.events)
    memo: Memo = field(default_factory=lambda: Memo(), compare=False, repr=False)

    def rank(self, outcome: str | None) -> int:
        """How good an outcome is: 0 for the best, larger for worse, and worst of all when unset."""
        if outcome is None:
            return len(self.outcomes)
        return self.outcomes.index(outcome)


@record
class Row:
    """One table row: the keys it covers and what it gives."""

    low: int
    high: int
    value: Formula | None
    outcome: str | None
    values: tuple[tuple[str, DiceExpr], ...]  # (name, the dice rolled for it)
    text: str
    where: Location


@record
class RowNames:
    """What the rows of a table (its default row too) bind and read, worked out once for every step over it."""

    binds: frozenset[str] = frozenset()  # names some row binds
    shared: frozenset[str] = frozenset()  # names every row binds
    reads: frozenset[str] = frozenset()  # names the rows' value formulas read
    rolls: frozenset[str] = frozenset()  # names the dice the rows roll read (named dice not yet followed)
    valued: bool = True  # every row has a value


@record
class Table:
    """A lookup table keyed by a die or by a number."""

    name: str
    die: DiceExpr | None  # None for number-keyed tables
    rows: tuple[Row, ...]
    default: Row | None
    summary: str
    refs: tuple[str, ...]
    where: Location
    # the rows' indexes in the order of their low ends, and those ends: a key's row is found by bisection
    order: tuple[int, ...] = field(default=(), compare=False, repr=False)
    lows: tuple[int, ...] = field(default=(), compare=False, repr=False)
    names: RowNames = field(default=RowNames(), compare=False, repr=False)

    def index_for(self, key: int) -> int:
        """The index of the row covering a key (of rows that do not overlap), or len(rows) for the default
        row, or -1 when there is neither."""
        at = bisect_right(self.lows, key) - 1
        if at >= 0 and self.rows[self.order[at]].high >= key:
            return self.order[at]
        return len(self.rows) if self.default is not None else -1

    def row_for(self, key: int) -> Row | None:
        """The row covering a key, or the default row, or None."""
        index = self.index_for(key)
        return self.rows[index] if 0 <= index < len(self.rows) else self.default


@record
class Trait:
    """A character trait with its range."""

    name: str
    label: str
    group: str
    minimum: int | None
    maximum: int | None
    default: int | None


@record
class Derived:
    """A value derived from traits (and the sheet's state values) by a formula."""

    name: str
    label: str
    formula: Formula
    refs: tuple[str, ...]
    state: frozenset[str] = frozenset()  # the sheet state values it reads, itself or through other derived values


@record
class Note:
    """Descriptive rule data with no dice (turn order, action economy)."""

    name: str
    title: str
    text: str
    data: Mapping[str, object]
    refs: tuple[str, ...]


@record
class Example:
    """A worked example from the source text: a procedure, its inputs, given dice and what must come out."""

    name: str
    procedure: str
    params: Mapping[str, object]
    dice: tuple[int, ...]
    outcome: str | None
    values: Mapping[str, object]
    refs: tuple[str, ...]
    where: Location


@record
class CompiledRuleset:
    """A whole compiled ruleset."""

    id: str
    title: str
    description: str
    file: str
    constants: Mapping[str, object]
    dice: Mapping[str, DiceExpr]
    traits: Mapping[str, Trait]
    derived: Mapping[str, Derived]
    tables: Mapping[str, Table]
    procedures: Mapping[str, CompiledProcedure]
    notes: Mapping[str, Note]
    examples: tuple[Example, ...]
    extra: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))  # top-level keys as written
    sheet: SheetSpec | None = None  # when the ruleset describes character sheets
    extends: str | None = None  # for an overlay: the id of the ruleset it changes
    changes: tuple[tuple[str, str], ...] = ()  # for an overlay: (JSON path, added/changed/removed)
    effects: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))  # name -> effects.Effect
    kinds: Kinds = field(default_factory=lambda: MappingProxyType({}))  # the step kinds it was compiled with


@record
class SheetField:
    """A choice a sheet records besides traits."""

    name: str
    kind: str  # text | list | points
    count: int | None
    unique: bool
    total: Formula | None  # for points
    options: tuple[str, ...]
    default: object
    help: str
    trait_groups: tuple[str, ...] = ()  # for lists: entries read "TRAIT: detail", TRAIT of one of these groups
    per_trait: int | None = None  # for such lists: at most this many entries at creation name one trait
    flags: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))  # name -> the entry it tells of


@record
class StateValue:
    """A plain value kept on a sheet (level, experience, a condition)."""

    name: str
    type: str  # int | flag
    default: Formula
    minimum: int | None
    maximum: int | None
    help: str


@record
class Track:
    """A damage track: a current value under a maximum, or typed boxes sorted worst first."""

    name: str
    kind: str  # current_max | boxes
    max: Formula | None  # for current_max
    size: Formula | None  # for boxes
    types: tuple[str, ...]
    marks: tuple[str, ...]
    penalties: tuple[int, ...]
    temporary: str | None
    temporary_ignored_by: tuple[str, ...]
    help: str


@record
class Resource:
    """A resource with a maximum (willpower, luck points, system strain)."""

    name: str
    max: Formula
    start: Formula | None
    help: str


@record
class CreationRule:
    """One creation rule: a budget, priorities, or a checked condition."""

    kind: str  # budget | priorities | rule
    name: str
    spec: Mapping[str, Any]
    where: Location


@record
class FinalState:
    """A state that ends play (dead): procedures refuse a sheet in it unless they declare they may act on it."""

    name: str
    when: Formula  # formula over sheet names
    message: str  # what the refusal says; {name} shows a value
    at: str | None  # the dotted sheet path to report it at
    where: Location


@record
class SheetSpec:
    """What a sheet of a ruleset holds and how it is checked."""

    fields: Mapping[str, SheetField]
    state: Mapping[str, StateValue]
    tracks: Mapping[str, Track]
    resources: Mapping[str, Resource]
    creation: tuple[CreationRule, ...]
    status: Mapping[str, Formula]
    standing: tuple[CreationRule, ...] = ()  # rules that always hold; `creation` holds only at creation
    final: Mapping[str, FinalState] = field(default_factory=lambda: MappingProxyType({}))  # states ending play

    def names(self, traits: Mapping[str, object], derived: Mapping[str, object]) -> set[str]:
        """Every name a formula may use when a sheet is bound."""
        names = set(traits) | set(derived) | set(self.state)
        for f in self.fields.values():
            names |= set(f.flags)
        for track in self.tracks.values():
            names |= set(track_names(track))
        for resource in self.resources:
            names |= {resource, f"{resource}_max"}
        return names


def track_names(track: Track) -> tuple[str, ...]:
    """The formula names a track binds."""
    t = track.name
    if track.kind == "current_max":
        return (f"{t}_current", f"{t}_max")
    return (f"{t}_size", f"{t}_filled", f"{t}_rightmost", f"{t}_penalty", f"{t}_full") + tuple(
        f"{t}_{kind}" for kind in track.types)


__all__ = [
    "CompiledProcedure",
    "CompiledRuleset",
    "CreationRule",
    "Derived",
    "Example",
    "FinalState",
    "Note",
    "Param",
    "Resource",
    "Row",
    "SheetField",
    "SheetSpec",
    "StateValue",
    "Step",
    "Table",
    "Track",
    "Trait",
    "track_names",
]
