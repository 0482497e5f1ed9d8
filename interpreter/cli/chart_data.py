"""What a chart shows, before any drawing: panels of bars or lines, each point with its exact chance.

The builders here turn odds, sweeps and comparisons into `Chart`s; interpreter.cli.charts draws a
Chart with the plotting library, so that what is shown is decided (and tested) without it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from interpreter.cli.compare import Compared, all_values, column, kinds
from interpreter.cli.cumulative import columns
from interpreter.cli.odds_text import TINY, View
from interpreter.dice.distribution import Distribution
from interpreter.procedure.odds import ExactOdds
from interpreter.record import record
from interpreter.words import value_text

MAX_PANELS = 12  # panels one chart draws; what is left out is said under the chart


@record
class Series:
    """One set of bars or one line: a label and a number (a chance, or a mean) at each x of its panel."""

    label: str
    values: tuple[Fraction | float | None, ...]  # None where the series has no value
    line: bool = False  # drawn as a line through points (a curve), else as bars
    color: int | None = None  # a fixed colour of the cycle (a diff's before and after), else by its place


@record
class Panel:
    """One plot of a chart: x labels, and series drawn as side-by-side bars or as lines with markers."""

    title: str
    x: tuple[str, ...]
    series: tuple[Series, ...]
    x_label: str = ""
    percent: bool = True  # the numbers are chances, drawn as percentages
    legend: bool = False  # a legend even for one series (it says which side of a diff it is)


@record
class Chart:
    """A titled set of panels, and a note of what did not fit."""

    title: str
    panels: tuple[Panel, ...]
    note: str = ""
    key: tuple[tuple[str, int], ...] = ()  # (label, colour) meaning the same in every panel: one legend, above them


def exact_text(value: Fraction | float | None) -> str:
    """A chance as the chart writes it in full: its exact fraction where it is exact, else its decimal marked
    as such, '≈0.0123' (odds cut off after endless explosions have no exact fraction)."""
    if value is None:
        return "-"
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    return f"≈{float(value):.12g}"


def all_exact(chart: Chart) -> bool | None:
    """Whether every chance the chart shows is an exact fraction (True), none is (False), or some are (None)."""
    kinds = {isinstance(v, Fraction) for p in chart.panels if p.percent for s in p.series for v in s.values
             if v is not None}
    return None if len(kinds) > 1 else kinds != {False}


def limited(title: str, panels: list[Panel], note: str = "", rest: str = "more panels") -> Chart:
    """A chart of the first MAX_PANELS panels, saying how many of the `rest` were left out."""
    if len(panels) > MAX_PANELS:
        note = f"{len(panels) - MAX_PANELS} {rest} left out (a chart shows at most {MAX_PANELS})"
        panels = panels[:MAX_PANELS]
    return Chart(title, tuple(panels), note)


def _distribution_panel(title: str, dist: Mapping[Any, Any], view: View, best_first: bool, x_label: str) -> Panel:
    # as in the text, chances too small to see are left out unless every row is asked for
    keys = [k for k, p in dist.items() if view.show_all or p >= TINY]
    series = [Series("chance", tuple(dist[k] for k in keys))]
    up, down = columns(dist, best_first)
    better, worse = ("or better", "or worse") if best_first else ("at least", "at most")
    if view.at_least:
        series.append(Series(better, tuple(up[k] for k in keys), line=True))
    if view.at_most:
        series.append(Series(worse, tuple(down[k] for k in keys), line=True))
    return Panel(title, tuple(value_text(k) for k in keys), tuple(series), x_label)


def odds_chart(odds: ExactOdds, view: View) -> Chart:
    """The outcomes as bars, then each value that varies as bars (with at-least and at-most columns when asked)."""
    shown = {o: p for o, p in odds.outcomes.items() if p or view.show_all}
    panels = [_distribution_panel("outcomes", shown, view, True, "outcome")]
    if not view.outcomes_only:
        for name, dist in odds.values.items():
            if len(dist) > 1 or view.show_all:
                panels.append(_distribution_panel(name, dist, view, False, name))
    return limited(f"{odds.ruleset} {odds.procedure}", panels)


def expression_chart(expr: str, dist: Distribution, view: View) -> Chart:
    """The values of a dice expression as bars."""
    return Chart(expr, (_distribution_panel(expr, dict(dist.probs), view, False, "value"),))


def comparison_chart(compared: Sequence[Compared], view: View) -> Chart:
    """Several dice expressions on one axis: a line each through its chances (and a panel of at-least
    and of at-most chances when asked for), over every value any of them takes."""
    values = all_values(compared)
    title = ", ".join(c.expr for c in compared)
    panels = []
    for kind in kinds(view):
        series = tuple(Series(c.expr, tuple(column(c, kind, values)), line=True) for c in compared)
        panels.append(Panel(title if kind == "chance" else kind, tuple(str(v) for v in values), series, "value"))
    return Chart(title, tuple(panels))


def _outcome_series(sweep: Any, view: View, points: Sequence[Any], label: str = "") -> list[Series]:
    series = []
    present = [o for o in sweep.outcomes if view.show_all or any(p.odds.outcomes.get(o) for p in sweep.points)]
    cols = [(o, "chance") for o in present] if not (view.at_least or view.at_most) else []
    cols += [(o, "or better") for o in present if view.at_least]
    cols += [(o, "or worse") for o in present if view.at_most]
    for outcome, which in cols:
        values = []
        for point in points:
            dist = {o: point.odds.outcomes.get(o, Fraction(0)) for o in sweep.outcomes}
            up, down = columns(dist, True)
            values.append({"chance": dist, "or better": up, "or worse": down}[which][outcome])
        name = outcome if which == "chance" else f"{outcome} {which}"
        series.append(Series(f"{name}{label}", tuple(values), line=True))
    return series


def sweep_chart(sweep: Any, view: View) -> Chart:
    """One line per outcome across the swept values; with two swept parameters, a panel per value of the second."""
    from interpreter.cli.ranges import described
    from interpreter.cli.sweep_text import mean_of

    first, values = sweep.axes[0]
    title = f"{sweep.ruleset} {sweep.procedure}, {described(sweep.axes)}"
    panels = []
    groups: list[tuple[str, list[Any]]]
    if len(sweep.axes) == 1:
        groups = [("outcomes", list(sweep.points))]
    else:
        second, others = sweep.axes[1]
        groups = [(f"{second}={v}", [p for p in sweep.points if p.at[1] == v]) for v in others]
    for heading, points in groups:
        panels.append(Panel(heading, tuple(values), tuple(_outcome_series(sweep, view, points)), first))
    if not view.outcomes_only:
        for name in sweep.values:  # a value's mean: one line, or one line per value of the second parameter
            lines = []
            for heading, points in groups:
                means = tuple(mean_of(p.odds.values.get(name, {})) for p in points)
                label = f"{name} mean" if len(groups) == 1 else heading
                lines.append(Series(label, means, line=True))
            if len({m for s in lines for m in s.values if m is not None}) > 1:
                panels.append(Panel(f"{name} (mean)", tuple(values), tuple(lines), first, percent=False))
    return limited(title, panels)


__all__ = ["MAX_PANELS", "Chart", "Panel", "Series", "all_exact", "comparison_chart", "exact_text", "expression_chart", "limited", "odds_chart",
           "sweep_chart"]
