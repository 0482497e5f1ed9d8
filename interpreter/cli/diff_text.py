"""`rules diff` as text: the changed values, then each case's outcomes, means and distributions before and after."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from interpreter import limits
from interpreter.procedure.compare import Comparison
from interpreter.ruleset.changes import MISSING
from interpreter.ruleset.samples import shown
from interpreter.words import value_text

if TYPE_CHECKING:
    from interpreter.cli.diff_cases import Diff

ARROW = "→"
_WIDE = 72  # a value wider than this is summarised in text; --json keeps it whole
_TINY = 1e-12  # differences below this are rounding, not a change
SHOWN = 0.00005  # a distribution's rows under this on both sides would read 0.00%: left out


def _value(value: object) -> str:
    if value is MISSING:
        return "(none)"
    text = json.dumps(value, ensure_ascii=False)
    if len(text) <= _WIDE:
        return text
    if isinstance(value, dict):  # its keys, as far as they fit
        keys = ", ".join(value)
        return "{" + (keys if len(keys) <= _WIDE else keys[: _WIDE - 3] + "...") + "}"
    if isinstance(value, list):
        return f"[{len(value)} items]"
    return text[: _WIDE - 3] + "..."


def _signed(value: float, places: int) -> str:
    """A difference with its sign; rounding noise shows as 0."""
    return f"{0.0 if abs(value) < _TINY else value:+.{places}f}"


def _percent(p: Fraction | float | None) -> str:
    return "-" if p is None else f"{float(p) * 100:.2f}%"


def _distribution(name: str, old: Mapping[Any, Any] | None, new: Mapping[Any, Any] | None) -> list[str]:
    """A value's distribution before and after, one row per value with a visible chance on either side."""
    keys = list(old or {}) + [k for k in (new or {}) if k not in (old or {})]
    with contextlib.suppress(TypeError):  # words and numbers mixed: left as the procedure reports them
        keys.sort(key=lambda k: (k is not None, k))
    rows = [k for k in keys if float((old or {}).get(k, 0)) >= SHOWN or float((new or {}).get(k, 0)) >= SHOWN]
    width = max([len(value_text(k)) for k in rows] + [len(name)])
    lines = [f"    {name:<{width}}  {'before':>8}  {'after':>8}  {'change':>8}"]
    for k in rows:
        before, after = (old or {}).get(k), (new or {}).get(k)
        change = float(after or 0) - float(before or 0)
        lines.append(f"    {value_text(k):<{width}}  {_percent(before if old is not None else None):>8}  "
                     f"{_percent(after if new is not None else None):>8}  {_signed(change * 100, 2):>8}")
    return lines


def _case(c: Comparison, label: str) -> list[str]:
    outcomes = {k: p for k, p in c.outcomes.items() if p.before or p.after}
    values = {f"{k} (mean)": p for k, p in c.values.items() if p.before or p.after}
    width = max(len(k) for k in [*outcomes, *values, "outcome"])
    lines = [f"  {label}", f"    {'outcome':<{width}}  {'before':>8}  {'after':>8}  {'change':>8}"]
    for name, p in outcomes.items():
        lines.append(f"    {name:<{width}}  {_percent(p.before):>8}  {_percent(p.after):>8}  "
                     f"{_signed(p.difference * 100, 2):>8}")
    for name, p in values.items():
        was = "-" if p.before is None else f"{float(p.before):.3f}"
        now = "-" if p.after is None else f"{float(p.after):.3f}"
        lines.append(f"    {name:<{width}}  {was:>8}  {now:>8}  {_signed(p.difference, 3):>8}")
    for name, (old, new) in c.distributions.items():
        if old == new or len(set(old or {}) | set(new or {})) < 2:
            continue  # unchanged, or one value only (its mean says it all)
        lines.append("")
        lines += _distribution(name, old, new)
    return lines


def _effect_line(d: Diff, name: str, reached: list[str]) -> str:
    effect = d.house.effects.get(name) or d.base.effects.get(name)
    kind = "new" if name not in d.base.effects else "removed" if name not in d.house.effects else "changed"
    what = f"{kind}, {effect.change()}" if effect is not None and effect.change() else kind
    switch = f"{effect.param}=true" if effect is not None and effect.param else "the sheet"
    return f"{what}; on with {switch}; reaches {', '.join(reached) or 'no procedure'}"


def to_text(d: Diff) -> str:
    """The diff for a reader: changed values, then each case's outcomes, means and changed distributions."""
    base, house = d.base, d.house
    lines = [f"{base.id} {ARROW} {house.id}", "", "Changed values:"]
    lines += [f"  {ch.path}: {_value(ch.before)} {ARROW} {_value(ch.after)}"
              + (f"  (warning: {d.warned[ch.path]})" if ch.path in d.warned else "") for ch in d.found] or ["  (none)"]
    if d.effects:
        lines += ["", "Effects the change adds or touches (their odds below, with the flag on):"]
        lines += [f"  {name}: {_effect_line(d, name, reached)}" for name, reached in d.effects.items()]
    if d.sheet is not None:
        lines += ["", f"For the character of {d.sheet}:"]
        lines += [f"  (it does not fit {rs.id} as written: {unfit}; {rs.id} reads it adapted)"
                  for rs, unfit in zip((base, house), d.people.unfit, strict=True) if unfit]
        lines += [f"  {name}: {value_text(old)} {ARROW} {value_text(new)}" for name, old, new in d.character] or [
            "  (no derived number changes)"]
    lines += ["", "Odds:"]
    if not d.odds:
        lines.append("  (no procedure behaves differently)")
    for i, c in enumerate(d.odds):
        label = f"{c.procedure} {shown(c.params)}".rstrip()
        if c.only is not None:
            label += f" (only in {base.id if c.only == 'before' else house.id})"
        if i in d.notes:
            label += f" ({d.notes[i]})"
        if not c.changed:
            lines.append(f"  {label}: the same odds")
            continue
        lines += _case(c, label)
    for s in d.skipped:
        label = f"{s['procedure']} {shown(s.get('params', {}))}".rstrip()
        lines.append(f"  {label}: not compared ({s['reason']})")
    if d.cut:
        lines += ["", (f"Cases beyond the samples of {', '.join(d.cut)} were left out: a diff compares at most "
                       f"{limits.MAX_DIFF_CASES} cases (MAX_DIFF_CASES); name a procedure to compare it alone.")]
    sheet_run = any((house.procedures.get(c.procedure) or base.procedures[c.procedure]).sheet == "required"
                    for c in d.odds)
    if sheet_run and d.sheet is None:
        lines += ["", ("Procedures that work on a character sheet ran on a new character of each ruleset "
                       "(as `rules sheet new` writes it).")]
    return "\n".join(lines)


__all__ = ["ARROW", "to_text"]
