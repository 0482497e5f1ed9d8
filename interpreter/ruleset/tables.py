"""Tables: compiling a ruleset's `tables:` section, and number-keyed tables as functions for formulas.

A table is keyed by a die (a `table` step rolls it) or by a number (a `table` step
looks up a key, and formulas may call it like a function). Rows cover a range of keys
and give an outcome, a value formula, and dice to roll for named values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from interpreter.errors import EvaluationError, RulesError, SchemaViolation
from interpreter.load.document import Path
from interpreter.ruleset.context import CompileContext, Scope
from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset, Row, RowNames, Table
from interpreter.ruleset.specs import TableLookup, walk

P = Path


def compile_table(c: CompileContext, name: str, spec: dict[str, Any], base: set[str], constants: Mapping[str, Any],
                  check: bool = True) -> Table:
    """One compiled table; problems are recorded on the checker (``check=False``: rows known to pass)."""
    path: P = ("tables", name)
    die = c.dice_expr(spec["die"], path + ("die",), Scope(base, set(c.named_dice))) if "die" in spec else None
    rows = tuple(_row(c, r, path + ("rows", i), base) for i, r in enumerate(spec.get("rows") or []))
    default = _row(c, spec["default"], path + ("default",), base) if "default" in spec else None
    order = tuple(sorted(range(len(rows)), key=lambda i: rows[i].low))
    table = Table(name, die, rows, default, spec.get("summary", ""), tuple(spec.get("refs") or ()),
                  c.where(path, key=True), order, tuple(rows[i].low for i in order),
                  _row_names([*rows, *([default] if default is not None else [])]))
    if check:
        _check_rows(c, table, path, constants)
    return table


def _row(c: CompileContext, spec: dict[str, Any], path: P, base: set[str]) -> Row:
    on = spec.get("on", 0)
    low, high = (on, on) if isinstance(on, int) else (on[0], on[1])
    if low > high:
        c.problem(SchemaViolation(f"row range [{low}, {high}] is empty: the low end is above the high end",
                                  c.where(path + ("on",))))
    value = c.formula(spec["value"], path + ("value",), base, functions=()) if "value" in spec else None
    values = []
    for vname, vexpr in (spec.get("values") or {}).items():
        expr = c.dice_expr(vexpr, path + ("values", vname), None)
        if expr is not None:
            values.append((vname, expr))
    label = spec.get("text") or spec.get("outcome") or (str(spec["value"]) if "value" in spec else "")
    return Row(low, high, value, spec.get("outcome"), tuple(values), label, c.where(path))


def _row_names(rows: list[Row]) -> RowNames:
    binding: dict[str, int] = {}  # name -> how many rows bind it
    reads: set[str] = set()
    rolls: set[str] = set()
    for row in rows:
        if row.value is not None:
            reads |= row.value.names
        for name, expr in row.values:
            binding[name] = binding.get(name, 0) + 1
            rolls |= expr.names
    return RowNames(frozenset(binding), frozenset(n for n, k in binding.items() if k == len(rows)),
                    frozenset(reads), frozenset(rolls), all(row.value is not None for row in rows))


def _check_rows(c: CompileContext, table: Table, path: P, constants: Mapping[str, object]) -> None:
    """Rows may not overlap; a die table must cover every face exactly once.

    The rows are walked in the order of their low ends (n log n in their count, whatever their widths),
    and a die's faces, sorted, beside the ranges they make.
    """
    for row in table.rows:
        if row.high - row.low > 100_000:
            c.problem(SchemaViolation("row range is wider than 100000 keys", row.where))
            return
    merged: list[list[int]] = []  # the keys the rows cover, as ranges apart from one another, in order
    reach = -1  # the row reaching furthest of those walked
    for i in table.order:
        row = table.rows[i]
        if row.low > row.high:
            continue
        if merged and row.low <= merged[-1][1]:
            first, later = sorted((reach, i))
            c.problem(SchemaViolation(
                f"table '{table.name}': row {later + 1} overlaps row {first + 1}",
                c.where(path + ("rows", later, "on")), "each result may be covered by one row only"))
        if merged and row.low <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], row.high)
        else:
            merged.append([row.low, row.high])
        if reach < 0 or row.high > table.rows[reach].high:
            reach = i
    if table.die is None:
        return
    try:
        faces = sorted({v for v, _ in table.die.distribution({**constants, **c.named_dice}).probs})
    except RulesError as err:
        c.problem(err.located(c.where(path + ("die",))))
        return
    missing, extra, count = _uncovered(faces, merged)
    if missing:
        c.problem(SchemaViolation(
            f"table '{table.name}' has no row for {_listing(missing)}, which {table.die.text} can roll",
            c.where(path + ("rows",), key=True), "add a row for each result"))
    if extra:
        at = next(i for i in table.order if table.rows[i].low <= extra[0] <= table.rows[i].high)
        c.problem(SchemaViolation(
            f"table '{table.name}' has rows for {_listing(extra, count)}, which {table.die.text} cannot roll",
            c.where(path + ("rows", at, "on"))))


def _uncovered(faces: list[int], merged: list[list[int]]) -> tuple[list[int], list[int], int]:
    """The faces no range covers, the first keys the ranges cover that are no face, and how many such keys.

    Both lists are walked together once; within a range, keys are counted (not visited) but for the first
    few that are no face."""
    missing: list[int] = []
    extra: list[int] = []
    count = 0
    f = 0
    for low, high in merged:
        while f < len(faces) and faces[f] < low:
            missing.append(faces[f])
            f += 1
        start = f
        while f < len(faces) and faces[f] <= high:
            f += 1
        inside = faces[start:f]
        beyond = high - low + 1 - len(inside)
        if beyond and len(extra) < 8:
            extra += _first_keys(low, high, set(inside), 8 - len(extra))
        count += beyond
    missing += faces[f:]
    return missing, extra, count


def _first_keys(low: int, high: int, faces: set[int], wanted: int) -> list[int]:
    """The first keys of a range that are no face (at most ``wanted``), visiting no more than the faces and them."""
    out: list[int] = []
    key = low
    while key <= high and len(out) < wanted:
        if key not in faces:
            out.append(key)
        key += 1
    return out


def row_name(table: str, index: int, low: int, high: int, default: bool) -> str:
    """A row as messages name it: `row 2 of table 'zero_hp' (on [2, 3])`, or its default row."""
    if default:
        return f"the default row of table '{table}'"
    return f"row {index + 1} of table '{table}' (on {low if low == high else f'[{low}, {high}]'})"


def _listing(numbers: list[int], count: int | None = None) -> str:
    """The first eight numbers, and how many more there are (of ``count`` in all, when only the first are given)."""
    text = ", ".join(str(n) for n in numbers[:8])
    more = (len(numbers) if count is None else count) - len(numbers[:8])
    if more > 0:
        text += f" and {more} more"
    return text


def table_functions(ruleset: CompiledRuleset) -> dict[str, Callable[[object], object]]:
    """Number-keyed tables as one-argument functions for formulas, each made when first called for.

    (A lazily compiled ruleset compiles a table when first read; looking one up here does not
    compile the others.)
    """
    return _Lookups(ruleset)


class _Lookups(dict[str, Callable[[object], object]]):
    """A ruleset's table functions: a dict that makes the function of a table when first asked for it."""

    __slots__ = ("ruleset",)

    def __init__(self, ruleset: CompiledRuleset):
        super().__init__()
        self.ruleset = ruleset

    def __missing__(self, name: str) -> Callable[[object], object]:
        table = self.ruleset.tables.get(name)
        if table is None or table.die is not None:
            raise KeyError(name)
        made = self[name] = _lookup(self.ruleset, table)
        return made

    def get(self, name: str, default: Any = None) -> Any:
        try:
            return self[name]
        except KeyError:
            return default

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None


def _lookup(ruleset: CompiledRuleset, table: Table) -> Callable[[object], object]:
    def lookup(key: Any) -> Any:
        row = table.row_for(int(key))
        if row is None:
            raise EvaluationError(f"table '{table.name}' has no row for {key}", table.where)
        if row.value is None:
            raise EvaluationError(f"table '{table.name}' row for {key} has no value", row.where)
        return row.value.evaluate(ruleset.constants, {})
    return lookup


def may_be_absent(ruleset: CompiledRuleset, proc: CompiledProcedure) -> frozenset[str]:
    """The names a table step of the procedure may leave absent: bound by some rows only, or a value some
    row lacks."""
    out: set[str] = set()
    for step in walk(proc.steps):
        if isinstance(step.spec, TableLookup):
            table = ruleset.tables[step.spec.table]
            out |= table.names.binds - table.names.shared
            if step.spec.value_as and not table.names.valued:
                out.add(step.spec.value_as)
    return frozenset(out)
