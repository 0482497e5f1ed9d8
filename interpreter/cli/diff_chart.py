"""`rules diff --plot`: before and after side by side, a panel of outcomes and one per changed value of each case."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from interpreter.cli.chart_data import Chart, Panel, Series, key_text, limited
from interpreter.cli.odds_text import TINY
from interpreter.ruleset.samples import shown

if TYPE_CHECKING:
    from interpreter.cli.diff_cases import Diff


def _pair_panel(title: str, x_label: str, old: Mapping[Any, Any] | None, new: Mapping[Any, Any] | None,
                before: str, after: str) -> Panel:
    keys = list(old or {}) + [k for k in (new or {}) if k not in (old or {})]
    keys = [k for k in keys if float((old or {}).get(k, 0)) >= TINY or float((new or {}).get(k, 0)) >= TINY]
    series = []
    if old is not None:
        series.append(Series(f"before ({before})", tuple(old.get(k, 0) for k in keys)))
    if new is not None:
        series.append(Series(f"after ({after})", tuple(new.get(k, 0) for k in keys)))
    return Panel(title, tuple(key_text(k) for k in keys), tuple(series), x_label)


def diff_chart(d: Diff) -> Chart:
    """Each compared case that differs: its outcomes before and after, then each value whose distribution changed."""
    panels = []
    for c in d.odds:
        if not c.changed:
            continue
        label = f"{c.procedure} {shown(c.params)}".rstrip()
        old = {o: p.before for o, p in c.outcomes.items() if p.before is not None} if c.only != "after" else None
        new = {o: p.after for o, p in c.outcomes.items() if p.after is not None} if c.only != "before" else None
        panels.append(_pair_panel(f"{label}: outcomes", "outcome", old, new, d.base.id, d.house.id))
        for name, (before, after) in c.distributions.items():
            if before != after and len(set(before or {}) | set(after or {})) > 1:
                panels.append(_pair_panel(f"{label}: {name}", name, before, after, d.base.id, d.house.id))
    title = f"{d.base.id} → {d.house.id}"
    if not panels:
        return Chart(title, (Panel("no procedure behaves differently", (), ()),))
    return limited(title, panels)


__all__ = ["diff_chart"]
