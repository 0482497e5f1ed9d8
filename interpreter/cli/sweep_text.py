"""A sweep as a table: one row per point, one column per outcome (or its cumulative chance) and per value's
mean and chosen percentiles; written as text, as CSV, or as JSON (each point in the shape of `rules odds --json`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from interpreter.cli import output
from interpreter.cli.cumulative import cumulative
from interpreter.cli.odds_text import View, number, percent
from interpreter.cli.ranges import described
from interpreter.cli.render import odds_json, sides
from interpreter.procedure.sweep import Sweep
from interpreter.record import record
from interpreter.words import value_text


@record
class Column:
    """One column of a sweep table: its heading, its CSV name and what its cells are."""

    heading: str
    name: str
    kind: str  # "param" (the swept value as given), "chance" (a probability) or "number" (a mean or percentile)


def _numeric(dist: Mapping[Any, Any]) -> dict[Any, Any]:
    return {v: p for v, p in dist.items()
            if isinstance(v, (int, float)) and not isinstance(v, bool) and v is not None}


def mean_of(dist: Mapping[Any, Any]) -> Any:
    """The mean of a distribution's numbers (flags count as 0 and 1), exact where the chances are; None without numbers."""
    numbers = {v: p for v, p in dist.items() if isinstance(v, (int, float)) and v is not None}
    mass = sum(numbers.values())
    if not numbers or not mass:
        return None
    return sum(int(v) * p if isinstance(v, bool) else v * p for v, p in numbers.items()) / mass


def percentile(dist: Mapping[object, object], q: int) -> object:
    """The smallest value whose chance of that value or less reaches q percent (None without numbers)."""
    numbers = _numeric(dist)
    mass = sum(numbers.values())
    if not numbers or not mass:
        return None
    below: Any = 0
    for value in sorted(numbers):
        below += numbers[value]
        if below * 100 >= q * mass:
            return value
    return max(numbers)


def _varies(sweep: Sweep, name: str) -> bool:
    seen = {tuple(sorted(point.odds.values.get(name, {}).items(), key=repr)) for point in sweep.points}
    return len(seen) > 1 or any(len(point.odds.values.get(name, {})) > 1 for point in sweep.points)


def columns(sweep: Sweep, view: View, percentiles: Sequence[int] = ()) -> list[Column]:
    """The columns of the table, as the view asks: chances (or cumulative ones) of the outcomes, then values."""
    cols = [Column(name, name, "param") for name in sweep.names]
    possible = [o for o in sweep.outcomes if view.show_all or any(p.odds.outcomes.get(o) for p in sweep.points)]
    for outcome in possible:
        if not (view.at_least or view.at_most):
            cols.append(Column(outcome, outcome, "chance"))
        if view.at_least:
            cols.append(Column(f"{outcome} or better", f"{outcome}_or_better", "chance"))
        if view.at_most:
            cols.append(Column(f"{outcome} or worse", f"{outcome}_or_worse", "chance"))
    if view.outcomes_only:
        return cols
    for value in sweep.values:
        if not view.show_all and not _varies(sweep, value):
            continue
        if all(mean_of(p.odds.values.get(value, {})) is None for p in sweep.points):
            continue  # words have no mean
        cols.append(Column(f"{value} mean", f"{value}_mean", "number"))
        cols += [Column(f"{value} p{q}", f"{value}_p{q}", "number") for q in percentiles]
    return cols


def rows(sweep: Sweep, cols: Sequence[Column]) -> list[list[object]]:
    """Each point's cells, in the order of `cols`: text for a swept value, exact numbers where the odds are."""
    out = []
    for point in sweep.points:
        present = [(o, point.odds.outcomes.get(o, Fraction(0))) for o in sweep.outcomes]
        cells: dict[str, object] = dict(zip(sweep.names, point.at, strict=True))
        for outcome, p, better, worse in cumulative(present, best_first=True):
            cells[outcome], cells[f"{outcome}_or_better"], cells[f"{outcome}_or_worse"] = p, better, worse
        for value, dist in point.odds.values.items():
            cells[f"{value}_mean"] = mean_of(dist)
            for col in cols:
                if col.name.startswith(f"{value}_p") and col.name[len(value) + 2:].isdigit():
                    cells[col.name] = percentile(dist, int(col.name[len(value) + 2:]))
        out.append([cells.get(col.name) for col in cols])
    return out


def _cell(col: Column, value: Any) -> str:
    if value is None:
        return "-"
    if col.kind == "chance":
        return percent(value).strip()
    if col.kind == "number":
        return number(float(value))
    return str(value)


def sweep_text(sweep: Sweep, view: View, percentiles: Sequence[int] = ()) -> str:
    """The sweep as a table a person reads: one row per point."""
    cols = columns(sweep, view, percentiles)
    cells = [[_cell(c, v) for c, v in zip(cols, row, strict=True)] for row in rows(sweep, cols)]
    widths = [max([len(c.heading)] + [len(r[i]) for r in cells]) for i, c in enumerate(cols)]
    lines = [f"{sweep.ruleset} {sweep.procedure}, {described(sweep.axes)}"]
    lines.append("  " + "  ".join(f"{c.heading:>{w}}" for c, w in zip(cols, widths, strict=True)))
    lines += ["  " + "  ".join(f"{x:>{w}}" for x, w in zip(r, widths, strict=True)) for r in cells]
    never = [o for o in sweep.outcomes if not any(p.odds.outcomes.get(o) for p in sweep.points)]
    if never and not view.show_all:
        lines.append(f"  never: {', '.join(never)}")
    if any(p.odds.truncated for p in sweep.points):
        lines.append("(endless explosions cut off at some points; each point's chance not counted is under 1e-12)")
    return "\n".join(lines)


def _csv_cell(col: Column, value: Any) -> Any:
    """A cell as CSV writes it: a whole number as itself, any other number as a decimal of 12 digits."""
    if value is None:
        return ""
    if col.kind == "param":
        return value
    if col.kind == "number" and (isinstance(value, int) or (isinstance(value, Fraction) and value.denominator == 1)):
        return int(value)
    return output.rounded(float(value))


def sweep_csv(sweep: Sweep, view: View, percentiles: Sequence[int] = ()) -> str:
    """The sweep as CSV: a header of column names, then one row per point; chances as decimals from 0 to 1."""
    cols = columns(sweep, view, percentiles)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([c.name for c in cols])
    for row in rows(sweep, cols):
        writer.writerow([_csv_cell(c, v) for c, v in zip(cols, row, strict=True)])
    return buffer.getvalue()



def sweep_json(sweep: Sweep, fixed: Mapping[str, str], view: View) -> dict[str, object]:
    """The sweep for scripts: each point the object `rules odds --json` prints there, with its swept values."""
    points = []
    for point in sweep.points:
        data = odds_json(point.odds, sides(view.at_least, view.at_most))
        if view.outcomes_only:
            data.pop("values")
        points.append({"params": output.typed_params(dict(zip(sweep.names, point.at, strict=True))), **data})
    return {"ruleset": sweep.ruleset, "procedure": sweep.procedure, "swept": list(sweep.names),
            "fixed": output.typed_params(fixed), "points": points}


def distribution_csv(parts: Sequence[tuple[str, Mapping[Any, Any], bool]]) -> str:
    """Distributions as CSV, one row per outcome or value: `part,value,chance,at_least,at_most,exact`.

    Each part is (its name, its distribution, whether it is listed best first): outcomes are
    (`outcome`, at least = this or better), a value's rows are named after the value.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["part", "value", "chance", "at_least", "at_most", "exact"])
    for part, dist, best_first in parts:
        for key, p, up, down in cumulative(dist.items(), best_first):
            exact = f"{p.numerator}/{p.denominator}" if isinstance(p, Fraction) else ""
            writer.writerow([part, value_text(key), *(output.rounded(float(x)) for x in (p, up, down)), exact])
    return buffer.getvalue()


__all__ = ["Column", "columns", "distribution_csv", "mean_of", "percentile", "rows", "sweep_csv", "sweep_json", "sweep_text"]
