"""`table`: roll a table's die (or look up a key), and apply the row it lands on.

A row gives an outcome, a value (under `value_as`) and dice to roll for named values. A name
other rows bind and this one does not is absent afterwards, unless it was bound before.
"""

from __future__ import annotations

from typing import Any

from interpreter.absent import Absent
from interpreter.errors import Location, TableMiss
from interpreter.procedure.kinds.roll import write_roll_into
from interpreter.procedure.records import NoteRecord
from interpreter.procedure.writing import Writer
from interpreter.ruleset.model import Row, Table
from interpreter.ruleset.specs import RollInto, Step, TableLookup
from interpreter.ruleset.tables import row_name


def table_miss(what: tuple[str, Location], key: Any) -> None:
    raise TableMiss(f"table '{what[0]}' has no row for {key}", what[1])


def landed(table: str, key: Any, row: str) -> NoteRecord:
    """The trace's note of the row a key lands on."""
    return NoteRecord(f"{table}: {key} → {row}")


def _shown(table: Table, row: Row) -> str:
    index = table.rows.index(row) if row is not table.default else 0
    return row_name(table.name, index, row.low, row.high, row is table.default)


def write_table(w: Writer, step: Step[TableLookup]) -> None:
    spec = step.spec
    table = w.ruleset.tables[spec.table]
    rows = table.rows + ((table.default,) if table.default is not None else ())
    every = {name for row in rows for name, _ in row.values}
    key, row = w.temp(), w.temp()
    if spec.key is None:
        w.drawing(step.where)
    with w.located(step.where):
        if spec.key is not None:
            w.emit(f"{key} = {w.value(spec.key)}")
        else:
            assert table.die is not None  # (a table without a key is rolled on its die: ruleset.tables)
            w.emit(f"{key} = {w.roll(table.name, table.die, step.where)}")
    w.emit(f"{row} = {w.keep(table)}.row_for({key})")
    w.emit(f"if {row} is None: _table_miss({w.keep((table.name, step.where))}, {key})")
    if spec.roll_as:
        w.set(spec.roll_as, key)
    for each in rows:
        with w.under(f"if {row} is {w.keep(each)}:"):
            if each.outcome is not None:
                w.outcome(each.outcome)
            if spec.value_as:
                if each.value is None:
                    w.set(spec.value_as, w.keep(Absent(f"{_shown(table, each)} has no value")))
                else:
                    with w.located(each.where):
                        w.set(spec.value_as, w.value(each.value))
            for name in sorted(every - {n for n, _ in each.values}):
                absent = w.keep(Absent(f"{_shown(table, each)} binds no '{name}'"))
                with w.under(f"if not ({w.has(name)}):"):
                    w.set(name, absent)
            w.trace(f"_landed({table.name!r}, {key}, {w.keep(each.text)})")
            for name, expr in each.values:
                write_roll_into(w, RollInto(name, expr, each.where))


def kind() -> dict[str, Any]:
    return {"table": write_table}


HELPERS = {"_table_miss": table_miss, "_landed": landed}
