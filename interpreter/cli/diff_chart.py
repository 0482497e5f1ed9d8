"""`rules diff --plot`: before and after side by side, a panel of outcomes and one per changed value of each case.

A whole-ruleset diff can change more panels than a chart holds: the chart keeps those that changed
most (by how much of the chance moved), and leaves out the panels that did not change at all.
Before is always the first colour and after the second, so a procedure or value only the house rule
has is drawn in the after colour; one legend under the panels says which is which, where it covers
no bar and no label.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, TypeVar

from interpreter.cli.chart_data import MAX_PANELS, Chart, Panel, Series, limited
from interpreter.cli.odds_text import TINY
from interpreter.cli.summary import numeric
from interpreter.record import replace
from interpreter.ruleset.samples import shown
from interpreter.words import value_text

if TYPE_CHECKING:
    from interpreter.cli.diff_cases import Diff

K = TypeVar("K")  # a value or an outcome
BEFORE, AFTER = 0, 1  # the colours of the two sides, the same in every panel


def moved(old: Mapping[K, Fraction | float] | None, new: Mapping[K, Fraction | float] | None) -> float:
    """How much of the chance a change moved: half the summed differences (0 unchanged, 1 all of it;
    a distribution only one side has moved all of it)."""
    if old is None or new is None:
        return 1.0
    return sum(abs(float(old.get(k, 0)) - float(new.get(k, 0))) for k in set(old) | set(new)) / 2


def _as_number(key: object) -> float:
    return float(key) if numeric(key) else 0.0


def _ordered(keys: list[K]) -> list[K]:
    """Numbers in increasing order (a house rule may add a value past the base's), unset first; anything else
    as listed."""
    if all(numeric(k) or k is None for k in keys):
        return sorted(keys, key=lambda k: (k is not None, _as_number(k)))
    return keys


def _pair_panel(title: str, x_label: str, old: Mapping[K, Fraction | float] | None,
                new: Mapping[K, Fraction | float] | None,
                before: str, after: str) -> Panel:
    every = list(old or {}) + [k for k in (new or {}) if k not in (old or {})]
    keys = _ordered([k for k in every if float((old or {}).get(k, 0)) >= TINY or float((new or {}).get(k, 0)) >= TINY])
    series = []
    if old is not None:
        series.append(Series(f"before ({before})", tuple(old.get(k, 0) for k in keys), color=BEFORE))
    if new is not None:
        series.append(Series(f"after ({after})", tuple(new.get(k, 0) for k in keys), color=AFTER))
    return Panel(title, tuple(value_text(k) for k in keys), tuple(series), x_label, legend=True)


def diff_chart(d: Diff) -> Chart:
    """Each compared case that differs: its outcomes before and after, then each value whose distribution
    changed; past MAX_PANELS, the panels that changed most, most first."""
    ranked: list[tuple[float, Panel]] = []
    for c in d.odds:
        if not c.changed:
            continue
        label = f"{c.procedure} {shown(c.params)}".rstrip()
        if c.only is not None:
            label += f" (only in {d.base.id if c.only == 'before' else d.house.id})"
        old = {o: p.before for o, p in c.outcomes.items() if p.before is not None} if c.only != "after" else None
        new = {o: p.after for o, p in c.outcomes.items() if p.after is not None} if c.only != "before" else None
        if moved(old, new) > 0:
            ranked.append((moved(old, new), _pair_panel(f"{label}: outcomes", "outcome", old, new, d.base.id, d.house.id)))
        for name, (before, after) in c.distributions.items():
            if before != after and len(set(before or {}) | set(after or {})) > 1 and moved(before, after) > 0:
                ranked.append((moved(before, after),
                               _pair_panel(f"{label}: {name}", name, before, after, d.base.id, d.house.id)))
    title = f"{d.base.id} → {d.house.id}"
    if not ranked:
        return Chart(title, (Panel("no procedure behaves differently", (), ()),))
    if len(ranked) > MAX_PANELS:  # the most changed first (a stable sort: ties keep the order of the cases)
        ranked.sort(key=lambda item: -item[0])
        chart = limited(title, [panel for _, panel in ranked], rest="panels that changed less")
    else:
        chart = limited(title, [panel for _, panel in ranked])
    return replace(chart, key=((f"before ({d.base.id})", BEFORE), (f"after ({d.house.id})", AFTER)))


__all__ = ["diff_chart", "moved"]
