"""`table`: roll a table's die (or look up a key), and apply the row it lands on.

A row gives an outcome, a value (under `value_as`) and dice to roll for named values. A name
other rows bind and this one does not is absent afterwards, unless it was bound before.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import NamedTuple

from interpreter.absent import Absent
from interpreter.errors import Location, SchemaViolation, TableMiss, UnknownName
from interpreter.hints import suggest
from interpreter.procedure.kinds.roll import write_roll_into
from interpreter.procedure.records import NoteRecord
from interpreter.procedure.writing import Writer
from interpreter.ruleset.context import CompileContext, P, ProcContext, Scope, Spec, bind, formula_at, outcome_declared
from interpreter.ruleset.kind import Instances, RawStep, StepKind
from interpreter.ruleset.liveness import Liveness, Names, names
from interpreter.ruleset.model import Row, Table
from interpreter.ruleset.specs import RollInto, Step, TableLookup
from interpreter.ruleset.tables import row_name


def compile_table_step(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> TableLookup:
    name = spec["table"]
    tables = ctx.sections.tables
    table = tables.get(name)
    if table is None:
        c.problem(UnknownName(f"unknown table '{name}'", c.where(path + ("table",)), suggest(name, list(tables))))
    key = formula_at(c, spec["key"], path + ("key",), scope) if "key" in spec else None
    if table is not None and key is None and "die" not in table:
        c.problem(SchemaViolation(f"table '{name}' has no die, so this step needs a key",
                                  c.where(path, key=False)))
    defined = [spec.get("roll_as"), spec.get("value_as")]
    maybe: tuple[tuple[str, str], ...] = ()
    if table is not None:
        rows = _written(c, name, table)
        for outcome, i in rows.outcomes:
            outcome_declared(c, outcome, ("tables", name, "rows", i, "outcome"), ctx)
        maybe = rows.maybe
        ctx.bound.update(rows.every)
        defined += sorted(rows.every - {n for n, _ in maybe})
        if spec.get("value_as") and rows.no_value is not None:  # such a row leaves it absent, whatever it held
            defined.remove(spec["value_as"])
            ctx.bound.add(spec["value_as"])
            scope.maybe(spec["value_as"], rows.no_value, rebound=True)
    bind(scope, ctx, *defined)
    for missing, why in maybe:
        scope.maybe(missing, why)
    return TableLookup(name, key, spec.get("roll_as"), spec.get("value_as"))


class _Written(NamedTuple):
    """What the rows of a table as written give every step over it, worked out once for the document."""

    maybe: tuple[tuple[str, str], ...]  # each name some rows bind and others not, and why it may be absent
    every: frozenset[str]  # the names some row binds
    no_value: str | None  # why a row leaves the value absent (the first row without one), if one does
    outcomes: tuple[tuple[str, int], ...]  # each outcome a row sets, and the first row setting it


def _written(c: CompileContext, name: str, table: Spec) -> _Written:
    known = c.memo.get(("table rows", name))
    if isinstance(known, _Written):
        return known
    rows = list(table.get("rows") or []) + ([table["default"]] if "default" in table else [])
    outcomes: dict[str, int] = {}
    for i, row in enumerate(table.get("rows") or []):
        if row.get("outcome") is not None:
            outcomes.setdefault(row["outcome"], i)
    lacking = _first_lacking([list(row.get("values") or {}) for row in rows])
    maybe = tuple((missing, f"{_row_named(name, table, i)} binds no '{missing}'")
                  for missing, i in sorted(lacking.items(), key=lambda item: (item[1], item[0])))
    no_value = next((i for i, row in enumerate(rows) if "value" not in row), None)
    made = _Written(maybe, frozenset(n for row in rows for n in row.get("values") or {}),
                    None if no_value is None else f"{_row_named(name, table, no_value)} has no value",
                    tuple(outcomes.items()))
    c.memo["table rows", name] = made
    return made


def _first_lacking(rows: list[list[str]]) -> dict[str, int]:
    """Each name some rows bind and others do not, and the first row that does not (in one pass over them).

    A name's rows that bind it from the first on without a gap end where the first row lacking it stands.
    """
    unbroken: dict[str, int] = {}
    count: dict[str, int] = {}
    for i, bound in enumerate(rows):
        for n in bound:
            count[n] = count.get(n, 0) + 1
            if unbroken.get(n, 0) == i:
                unbroken[n] = i + 1
    return {n: unbroken.get(n, 0) for n, k in count.items() if k < len(rows)}


def _row_named(name: str, table: Spec, index: int) -> str:
    """A row of a table as written (its default row last), as messages name it."""
    rows = table.get("rows") or []
    if index == len(rows):
        return row_name(name, index, 0, 0, default=True)
    on = rows[index].get("on", 0)
    low, high = (on, on) if isinstance(on, int) else (on[0], on[1])
    return row_name(name, index, low, high, default=False)


def _rows(table: Table) -> tuple[Row, ...]:
    return table.rows + ((table.default,) if table.default is not None else ())


def reads(lv: Liveness, spec: TableLookup, out: Names) -> tuple[TableLookup, set[str]]:
    """What a table step reads (its key, or its die; what its rows read), less what every row of it writes."""
    table = lv.tables.get(spec.table)
    got: set[str] = set(names(spec.key))
    shared: frozenset[str] = frozenset()
    if table is not None:
        if spec.key is None:
            got |= lv.dice_reads(table.die)
        got |= table.names.reads | lv.names_read(table.names.rolls)
        shared = table.names.shared
    return spec, (set(out) - {spec.roll_as, spec.value_as} - shared) | got


def writes(spec: TableLookup, procedures: object, tables: Mapping[str, Table]) -> set[str]:
    out = {n for n in (spec.roll_as, spec.value_as) if n}
    table = tables.get(spec.table)
    if table is not None:
        out |= table.names.binds
    return out


def table_miss(what: tuple[str, Location], key: object) -> None:
    raise TableMiss(f"table '{what[0]}' has no row for {key}", what[1])


def landed(table: str, key: object, row: str) -> NoteRecord:
    """The trace's note of the row a key lands on."""
    return NoteRecord(f"{table}: {key} → {row}")


def _shown(table: Table, index: int) -> str:
    row = table.rows[index] if index < len(table.rows) else table.default
    assert row is not None  # (an index past the rows is the default row's: Table.index_for)
    return row_name(table.name, index if row is not table.default else 0, row.low, row.high, row is table.default)


def row_absent(table: Table, index: int, name: str) -> Absent:
    """The value of a name the row a table step landed on does not bind (nor a step before it)."""
    return Absent(f"{_shown(table, index)} binds no '{name}'")


def write_table(w: Writer, step: Step[TableLookup]) -> None:
    """The row a key lands on is found by bisection and its code by halving the rows (a run's work grows
    with their logarithm); a name some rows bind is made absent after a row that did not bind it, by one
    line for each name (the code grows with the rows and the names, not with their product)."""
    spec = step.spec
    table = w.ruleset.tables[spec.table]
    rows = _rows(table)
    every = sorted(table.names.binds)
    key, at = w.temp(), w.temp()
    if spec.key is None:
        w.drawing(step.where)
    with w.located(step.where):
        if spec.key is not None:
            w.emit(f"{key} = {w.value(spec.key)}")
        else:
            assert table.die is not None  # (a table without a key is rolled on its die: ruleset.tables)
            w.emit(f"{key} = {w.roll(table.name, table.die, step.where)}")
    w.emit(f"{at} = {w.keep(table)}.index_for({key})")
    w.emit(f"if {at} < 0: _table_miss({w.keep((table.name, step.where))}, {key})")
    if spec.roll_as:
        w.set(spec.roll_as, key)
    _write_rows(w, spec, table, rows, (key, at), range(len(rows)))
    for name in every:
        with w.under(f"if not ({w.has(name)}):"):
            w.set(name, f"_row_absent({w.keep(table)}, {at}, {name!r})")


def _write_rows(w: Writer, spec: TableLookup, table: Table, rows: tuple[Row, ...], held: tuple[str, str],
                indexes: range) -> None:
    """The code of the rows of these indexes, the one the key landed on (`held`: the code of the key and of
    its row's index) chosen by halving them down to a few."""
    key, at = held
    if len(indexes) > 8:
        half = indexes.start + len(indexes) // 2
        with w.under(f"if {at} < {half}:"):
            _write_rows(w, spec, table, rows, held, range(indexes.start, half))
        with w.under("else:"):
            _write_rows(w, spec, table, rows, held, range(half, indexes.stop))
        return
    for index in indexes:
        each = rows[index]
        with w.under(f"if {at} == {index}:"):
            if each.outcome is not None:
                w.outcome(each.outcome)
            if spec.value_as:
                if each.value is None:
                    w.set(spec.value_as, w.keep(Absent(f"{_shown(table, index)} has no value")))
                else:
                    with w.located(each.where):
                        w.set(spec.value_as, w.value(each.value))
            w.trace(f"_landed({table.name!r}, {key}, {w.keep(each.text)})")
            for name, expr in each.values:
                write_roll_into(w, RollInto(name, expr, each.where))


def describe(step: Step[TableLookup]) -> str:
    spec = step.spec
    text = (f"Look up table `{spec.table}` at `{spec.key.text}`" if spec.key is not None
            else f"Roll on table `{spec.table}`")
    if spec.roll_as:
        text += f", the roll in `{spec.roll_as}`"
    if spec.value_as:
        text += f", the row's value in `{spec.value_as}`"
    return text + "."


def sample(g: Instances, times: float, depth: int) -> list[RawStep]:
    """A roll on a table's die (its roll kept), or a table looked up by a key (its value kept)."""
    if g.rng.random() < 0.5:
        return [{"table": g.table(rolled=True), "roll_as": g.name()}] if g.afford(math.log(6), times) else []
    return [{"table": g.table(rolled=False), "key": g.number(), "value_as": g.name()}]


KIND = StepKind(
    keys=("table",), specs=(TableLookup,), compile=compile_table_step, reads=reads, writes=writes, draws=True,
    jumps=False, goes_on=True, write=write_table, describe=describe, sample=sample,
    helpers={"_table_miss": table_miss, "_landed": landed, "_row_absent": row_absent}, refers={"table": "table"}, sets_outcome=True
)
