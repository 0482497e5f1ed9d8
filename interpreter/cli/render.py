"""Renderers over results: plain text for people, JSON objects for bots. None of them computes anything."""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from interpreter.dice import expr as dice
from interpreter.dice.distribution import Distribution
from interpreter.dice.report import dice_text
from interpreter.procedure.runner import Odds, Result
from interpreter.procedure.trace import NoteRecord, RollRecord

BAR_WIDTH = 40
_BLOCKS = " ▏▎▍▌▋▊▉█"


def _key(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _substitute(text: str, names: Any, env: Mapping[str, Any], depth: int = 0) -> str:
    for name in sorted(names, key=len, reverse=True):
        value = env.get(name)
        if isinstance(value, bool):
            value = int(value)
        pattern = rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])"
        if isinstance(value, int):
            text = re.sub(pattern, str(value), text)
        elif value is not None and hasattr(value, "text") and depth < 8:
            inner = _substitute(value.text, value.names, env, depth + 1)
            text = re.sub(pattern, "(" + inner.replace("\\", "\\\\") + ")", text)
    return text


def shown_expr(record: RollRecord) -> str:
    """The dice expression with the names it used replaced by their values (`(pool)d10` -> `5d10`)."""
    text = _substitute(record.expr.text, record.expr.names, record.env)
    for _ in range(4):
        text = re.sub(r"\((-?\d+|\d*d\d+)\)", r"\1", text)
    return text.replace(" ", "")


def _rolls(result: Result) -> list[RollRecord]:
    return [r for r in result.trace if isinstance(r, RollRecord)]


def result_json(result: Result) -> dict[str, Any]:
    """The contract's JSON object for one run."""
    rolls = []
    for record in _rolls(result):
        data = dice.roll_json(record.expr, record.roll)
        rolls.append({"name": record.name, "expr": shown_expr(record), "dice": data["dice"], "result": record.roll.value})
    notes = [r.text for r in result.trace if isinstance(r, NoteRecord)]
    out: dict[str, Any] = {"ruleset": result.ruleset, "procedure": result.procedure, "outcome": result.outcome,
                           "values": dict(result.values), "rolls": rolls}
    if notes:
        out["notes"] = notes
    return out


def result_text(result: Result) -> str:
    """One run as a few readable lines."""
    lines = [f"{result.ruleset} {result.procedure}: {result.outcome}"]
    if result.values:
        lines.append("  " + ", ".join(f"{k} = {_key(v)}" for k, v in result.values.items()))
    for record in result.trace:
        if isinstance(record, RollRecord):
            terms = record.roll.terms
            shown_dice = " ".join(dice_text(t) for t in terms) if terms else "[]"
            counting = len(terms) == 1 and terms[0].counting
            total = f"{record.roll.value} success{'es' if record.roll.value != 1 else ''}" if counting else record.roll.value
            lines.append(f"  {record.name}: {shown_expr(record)}: {shown_dice} = {total}")
        elif isinstance(record, NoteRecord):
            lines.append(f"  ({record.text})")
    return "\n".join(lines)


def _fraction(p: Any) -> str:
    return f"{p.numerator}/{p.denominator}"


def _mean(dist: Mapping[Any, Any]) -> float | None:
    numeric = {v: p for v, p in dist.items() if v is not None}
    mass = sum(float(p) for p in numeric.values())
    if not numeric or mass == 0:
        return None
    return sum(float(int(v) if isinstance(v, bool) else v) * float(p) for v, p in numeric.items()) / mass


def odds_json(odds: Odds) -> dict[str, Any]:
    """The contract's JSON object for the odds of a procedure."""
    out: dict[str, Any] = {
        "ruleset": odds.ruleset, "procedure": odds.procedure,
        "outcomes": {k: float(p) for k, p in odds.outcomes.items()},
        "values": {name: {"mean": _mean(dist), "distribution": {_key(v): float(p) for v, p in dist.items()}}
                   for name, dist in odds.values.items()},
    }
    if odds.exact:
        out["exact"] = {k: _fraction(p) for k, p in odds.outcomes.items()}
        for name, dist in odds.values.items():
            if name not in odds.values_cut:
                out["values"][name]["exact"] = {_key(v): _fraction(p) for v, p in dist.items()}
    for name, cut in odds.values_cut.items():
        out["values"][name]["truncated"] = cut
    if odds.truncated:
        out["truncated"] = odds.truncated
    return out


def bar(share: float) -> str:
    """A horizontal bar BAR_WIDTH long for a share of 1, drawn to an eighth of a block: the one chart of the CLI."""
    eighths = round(min(max(share, 0.0), 1.0) * BAR_WIDTH * 8)
    full, part = divmod(eighths, 8)
    return "█" * full + (_BLOCKS[part] if part else "")


def distribution_text(expr_text: str, dist: Distribution) -> str:
    """Every value of a dice expression with its probability and a bar (the likeliest is full), then the mean."""
    probs = dist.probs
    lines = [f"{expr_text}:"]
    if not probs:
        lines.append("  (no possible values)")
    top = max(float(p) for _, p in probs) if probs else 0.0
    width = max((len(str(v)) for v, _ in probs), default=1)
    for v, p in probs:
        pf = float(p)
        frac = f"  {p.numerator}/{p.denominator}" if dist.exact and isinstance(p, Fraction) else ""
        lines.append(f"  {v:>{width}}  {pf * 100:9.5f}%  {bar(pf / top) if top > 0 else ''}{frac}")
    lines.append(f"mean {dist.mean:.6g}")
    if dist.truncated:
        lines.append(f"cut off (endless explosions): {dist.truncated:.3g}")
    return "\n".join(lines)


def odds_text(odds: Odds) -> str:
    """The odds of a procedure as a table with bars."""
    lines = [f"{odds.ruleset} {odds.procedure}"]
    width = max((len(k) for k in odds.outcomes), default=7)
    for name, p in odds.outcomes.items():
        exact = f"  {_fraction(p)}" if isinstance(p, Fraction) and odds.exact else ""
        lines.append(f"  {name:<{width}}  {float(p) * 100:7.3f}%  {bar(float(p))}{exact}")
    for name, dist in odds.values.items():
        mean = _mean(dist)
        lines.append(f"{name}: mean {mean:.4f}" if mean is not None else f"{name}:")
        vwidth = max((len(_key(v)) for v in dist), default=1)
        for value, p in dist.items():
            lines.append(f"  {_key(value):>{vwidth}}  {float(p) * 100:7.3f}%  {bar(float(p))}")
    if odds.truncated:
        lines.append(f"(explosions cut off; mass not counted: {odds.truncated:.3g})")
    for name, cut in odds.values_cut.items():
        lines.append(f"({name}: its endless largest values are left out ({cut:.3g}); the outcomes are exact)")
    return "\n".join(lines)


def sheet_path(path: tuple[Any, ...]) -> str:
    """A sheet path as dotted text: ('state', 'hp', 'current') -> state.hp.current."""
    return ".".join(str(p) for p in path)


def plain(value: Any) -> str:
    """A sheet value as a person reads it."""
    if isinstance(value, list):
        return "[" + ", ".join(plain(v) for v in value) + "]"
    return _key(value)
