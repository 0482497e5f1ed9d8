"""`rules odds EXPR EXPR ...`: several dice expressions side by side, as AnyDice's several `output` lines.

One table with a row per value any of them can take and a column per expression (its chance, and
its at-least and at-most chances when asked for), then a summary of each: mean, deviation, min and
max. The JSON is a list of the objects `rules odds EXPR --json` prints, one per expression.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from interpreter.cli.odds_text import TINY, View, percent
from interpreter.cli.summary import Summary, number, summarize
from interpreter.dice.distribution import Distribution
from interpreter.record import record


@record
class Compared:
    """One expression of a comparison: its text as given and its distribution."""

    expr: str
    dist: Distribution

    @property
    def probs(self) -> dict[int, Fraction | float]:
        """value -> chance."""
        return dict(self.dist.probs)

    @property
    def summary(self) -> Summary | None:
        """Mean, deviation, min and max (None when it has no possible value)."""
        return summarize(self.dist.probs, cut=bool(self.dist.truncated))


def all_values(compared: Sequence[Compared]) -> list[int]:
    """Every value any of the expressions can take, in increasing order."""
    return sorted({v for c in compared for v in c.probs})


def kinds(view: View) -> list[str]:
    """The columns shown for each expression: its chance, then at least and at most when asked for."""
    return ["chance"] + ["at least"] * view.at_least + ["at most"] * view.at_most


def column(c: Compared, kind: str, values: Sequence[int]) -> list[Fraction | float | None]:
    """One column of the table: the chance of each value (None where the expression cannot take it), or the
    chance of at least or at most each value (defined at every value, those it cannot take too)."""
    probs = c.probs
    if kind == "chance":
        return [probs.get(v) for v in values]
    zero: Fraction | float = Fraction(0) if c.dist.exact else 0.0
    if kind == "at least":
        return [sum((p for k, p in probs.items() if k >= v), zero) for v in values]
    return [sum((p for k, p in probs.items() if k <= v), zero) for v in values]


def _cell(p: Fraction | float | None) -> str:
    return "-" if p is None else percent(p).strip()


def _summary_rows(compared: Sequence[Compared]) -> list[str]:
    names = [c.expr for c in compared]
    width = max(len(n) for n in names)
    cells = []
    for c in compared:
        s = c.summary
        cells.append(("-", "-", "-", "-") if s is None else
                     (number(s.mean), number(s.deviation), str(s.min), f"{s.max}+" if s.cut else str(s.max)))
    wide = [max(len(head), *(len(row[i]) for row in cells)) for i, head in enumerate(("mean", "deviation", "min", "max"))]
    head = "  ".join(f"{h:>{w}}" for h, w in zip(("mean", "deviation", "min", "max"), wide, strict=True))
    lines = [f"{'':<{width}}  {head}"]
    for name, row in zip(names, cells, strict=True):
        lines.append(f"{name:<{width}}  " + "  ".join(f"{x:>{w}}" for x, w in zip(row, wide, strict=True)))
    return lines


def compare_text(compared: Sequence[Compared], view: View) -> str:
    """The table of every value's chance under each expression, then each expression's summary."""
    values = all_values(compared)
    heads = [c.expr if kind == "chance" else f"{c.expr} {kind}" for c in compared for kind in kinds(view)]
    table = [column(c, kind, values) for c in compared for kind in kinds(view)]
    chances = [column(c, "chance", values) for c in compared]
    keep = [i for i in range(len(values))
            if view.show_all or any(p is not None and p >= TINY for p in (col[i] for col in chances))]
    label = max([len("value"), *(len(str(v)) for v in values)])
    widths = [max(len(h), 8) for h in heads]
    lines = [f"{'value':<{label}}  " + "  ".join(f"{h:>{w}}" for h, w in zip(heads, widths, strict=True))]
    for i in keep:
        cells = "  ".join(f"{_cell(col[i]):>{w}}" for col, w in zip(table, widths, strict=True))
        lines.append(f"{values[i]:<{label}}  {cells}")
    if len(keep) < len(values):
        left = len(values) - len(keep)
        lines.append(f"({left} {'row' if left == 1 else 'rows'} under 0.0005% in every column not shown; --all shows them)")
    lines.append("")
    lines += _summary_rows(compared)
    for c in compared:
        if c.dist.truncated:
            lines.append(f"({c.expr}: endless explosions cut off; chance not counted: {c.dist.truncated:.3g})")
    return "\n".join(lines)


__all__ = ["Compared", "all_values", "column", "compare_text", "kinds"]
