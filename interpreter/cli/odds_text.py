"""`rules odds` as text a person reads: outcomes first, then the values that vary.

One number format everywhere (a percentage with three decimals), bars scaled to the largest row,
and what hides the picture folded away unless `--all`: values that never vary, rows under
0.0005% (which would show as 0.000%), and runs of neighbouring values with the same chance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from interpreter.cli.cumulative import cumulative
from interpreter.cli.render import bar
from interpreter.cli.summary import number, summarize, summary_text
from interpreter.dice.distribution import Distribution
from interpreter.procedure.odds import ExactOdds
from interpreter.record import record
from interpreter.words import value_text

TINY = Fraction(5, 1_000_000)  # 0.0005%: the smallest chance the percentage format shows as non-zero
RUN = 3  # neighbouring values with the same chance shown as one row from this many on


@record
class View:
    """What the user asked to see."""

    show_all: bool = False
    at_least: bool = False
    at_most: bool = False
    outcomes_only: bool = False


def percent(p: Fraction | float) -> str:
    """A probability as the one percentage format: '  5.000%'."""
    return f"{float(p) * 100:7.3f}%"


def _bar(p: float, top: float, blocks: bool) -> str:
    return bar(p / top, blocks) if top > 0 else ""


LONG_FRACTION = 40  # a fraction longer than this is shortened in text; --json and --csv give it whole
_KEPT_DIGITS = 6  # the leading and trailing digits a shortened number keeps


def _digits(n: int) -> str:
    text = str(n)
    return text if len(text) <= 2 * _KEPT_DIGITS + 3 else f"{text[:_KEPT_DIGITS]}...{text[-_KEPT_DIGITS:]}"


def _fraction(p: object) -> str:
    """An exact chance as `p/q`; a long one (of a large pool) shortened to its first and last digits and
    their counts, `199999...735219/200000...000000 (201/201 digits; whole in --json)`."""
    if not isinstance(p, Fraction):
        return ""
    text = f"{p.numerator}/{p.denominator}"
    if len(text) <= LONG_FRACTION:
        return text
    top, bottom = str(p.numerator), str(p.denominator)
    return (f"{_digits(p.numerator)}/{_digits(p.denominator)} "
            f"({len(top)}/{len(bottom)} digits; whole in --json)")


@record
class _Row:
    label: str
    p: Any
    each: bool = False  # a run of values, each with chance p
    at_least: Any = None
    at_most: Any = None


def _runs(items: Sequence[tuple[Any, Any]]) -> list[_Row]:
    """Rows, with runs of consecutive whole numbers of equal chance folded into one 'a..b' row."""
    rows: list[_Row] = []
    i = 0
    while i < len(items):
        j = i
        value, p = items[i]
        while (j + 1 < len(items) and isinstance(items[j + 1][0], int) and not isinstance(items[j + 1][0], bool)
               and isinstance(items[j][0], int) and items[j + 1][0] == items[j][0] + 1 and items[j + 1][1] == p):
            j += 1
        if j - i + 1 >= RUN:
            rows.append(_Row(f"{value_text(value)}..{value_text(items[j][0])}", p, each=True))
            i = j + 1
        else:
            rows.append(_Row(value_text(value), p))
            i += 1
    return rows


def _table(items: Sequence[tuple[Any, Any]], view: View, blocks: bool, exact: bool, indent: str = "  ",
           best_first: bool = False) -> list[str]:
    """The rows of one distribution, folded as the view asks; `best_first` for outcomes (see cumulative)."""
    if view.at_least or view.at_most:
        rows_all = cumulative(items, best_first)
    else:  # no cumulative column asked for: none is summed (a sum of fractions per row costs seconds at 100,000 rows)
        rows_all = [(v, p, None, None) for v, p in items]
    shown = rows_all if view.show_all else [c for c in rows_all if c[1] >= TINY]
    hidden = [] if view.show_all else [c for c in rows_all if not c[1] >= TINY]  # one pass: linear in the rows
    if view.at_least or view.at_most or view.show_all:
        rows = [_Row(value_text(v), p, False, up, down) for v, p, up, down in shown]
    else:
        rows = _runs([(v, p) for v, p, _, _ in shown])
    width = max((len(r.label) for r in rows), default=1)
    top = max((float(r.p) for r in rows), default=0.0)
    lines = []
    if view.at_least or view.at_most:
        head = f"{indent}{'':<{width}}  {'chance':>8}"
        up, down = ("or better", "or worse") if best_first else ("at least", "at most")
        head += f"  {up:>9}" if view.at_least else ""
        head += f"  {down:>9}" if view.at_most else ""
        lines.append(head)
    for row in rows:
        line = f"{indent}{row.label:<{width}}  {percent(row.p)}"
        if view.at_least:
            line += f"  {percent(row.at_least):>9}"
        if view.at_most:
            line += f"  {percent(row.at_most):>9}"
        if row.each:
            line += " each"
        line += f"  {_bar(float(row.p), top, blocks)}"
        if exact and isinstance(row.p, Fraction):
            line += f"  {_fraction(row.p)}"
        lines.append(line.rstrip())
    if hidden:
        mass = sum(float(p) for _, p, _, _ in hidden)
        what = "row" if len(hidden) == 1 else "rows"
        lines.append(f"{indent}({len(hidden)} {what} under 0.0005% not shown, {mass * 100:.2g}% in all; --all shows them)")
    return lines


def _mean(dist: Mapping[Any, Any]) -> float | None:
    numeric = {v: p for v, p in dist.items() if isinstance(v, (int, float))}  # words have no mean
    mass = sum(float(p) for p in numeric.values())
    if not numeric or mass == 0:
        return None
    return sum(float(int(v) if isinstance(v, bool) else v) * float(p) for v, p in numeric.items()) / mass


def procedure_text(odds: ExactOdds, view: View, blocks: bool) -> str:
    """The odds of a procedure: its outcomes, best first, then each value that varies."""
    exact = odds.exact
    lines = [f"{odds.ruleset} {odds.procedure}"]
    outcomes = list(odds.outcomes.items())
    never = [name for name, p in outcomes if p == 0]
    shown = outcomes if view.show_all else [(n, p) for n, p in outcomes if p != 0]
    # outcomes come best first, so "at least" reads as this outcome or a better one
    lines += _table(shown, view, blocks, exact, best_first=True)
    if never and not view.show_all:
        lines.append(f"  never: {', '.join(never)}")
    if odds.events:
        lines.append("events")
        lines += _table(list(odds.events.items()), View(show_all=True), blocks, exact)
    if view.outcomes_only:
        return "\n".join(lines)
    fixed = []
    for name, dist in odds.values.items():
        items = list(dist.items())
        if len(items) == 1 and not view.show_all:
            fixed.append(f"{name} = {value_text(items[0][0])}")
            continue
        summary = summarize(items, cut=name in odds.values_cut)
        mean = _mean(dist) if summary is None else None  # flags and numbers mixed: a mean, no deviation
        about = summary_text(summary) if summary is not None else f"mean {number(mean)}" if mean is not None else ""
        lines.append(f"{name} ({about})" if about else name)
        lines += _table(items, view, blocks, exact)
    if fixed:
        lines.append("always: " + ", ".join(fixed))
    if odds.truncated:
        lines.append(f"(endless explosions cut off; chance not counted: {odds.truncated:.3g})")
    if odds.inexact:
        lines.append(f"(not exact fractions: {odds.inexact})")
    for name, cut in odds.values_cut.items():
        lines.append(f"({name}: its endless largest values are left out ({cut:.3g}); the outcomes are exact)")
    return "\n".join(lines)


def where_text(formula: str, p: Fraction | float, blocks: bool) -> str:
    """The chance of the condition `--where` asked about: one row named by its formula."""
    return "\n".join(["where"] + _table([(formula, p)], View(show_all=True), blocks, isinstance(p, Fraction)))


def expression_text(expr: str, dist: Distribution, view: View, blocks: bool) -> str:
    """The odds of a dice expression: every value, folded as the view asks, then the mean."""
    items = list(dist.probs)
    lines = [expr]
    if not items:
        lines.append("  (no possible values)")
    else:
        lines += _table(items, view, blocks, bool(dist.exact))
    summary = summarize(items, cut=bool(dist.truncated))
    lines.append(summary_text(summary) if summary is not None else f"mean {number(dist.mean)}")
    if dist.truncated:
        lines.append(f"(endless explosions cut off; chance not counted: {dist.truncated:.3g})")
    return "\n".join(lines)


__all__ = ["View", "expression_text", "number", "percent", "procedure_text"]
