"""Results as one line of text for a chat: a run with its values and every die, odds and counts as percentages."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from interpreter.words import value_text

if TYPE_CHECKING:
    from interpreter.procedure.records import RollRecord

from interpreter.dice.report import percent

__all__ = ["percent", "roll_line", "shown_expr", "value_text", "values_line"]


def values_line(values: Mapping[str, object]) -> str:
    """`natural 15, total 27`."""
    return ", ".join(f"{name} {value_text(value)}" for name, value in values.items())


def _substitute(text: str, names: Iterable[str], env: Mapping[str, Any], depth: int = 0) -> str:
    for name in sorted(names, key=len, reverse=True):
        if name not in text:  # (a name the text does not show: nothing to replace, no pattern compiled)
            continue
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
    """A traced roll's dice expression with the names it used replaced by their values (`(pool)d10` -> `5d10`)."""
    text = _substitute(record.expr.text, record.expr.names, record.env)
    for _ in range(4 if "(" in text else 0):
        text = re.sub(r"\((-?\d+|\d*d\d+)\)", r"\1", text)
    return text.replace(" ", "")


def roll_line(record: RollRecord) -> str:
    """One traced roll: `natural: 1d20 [15] = 15`, a pool `5d10x>=10cs>=8 [2, 9, 10 → 8] = 2 successes`."""
    from interpreter.dice.report import dice_text

    terms = record.roll.terms
    shown_dice = " ".join(dice_text(t) for t in terms) if terms else "[]"
    value = record.roll.value
    counting = len(terms) == 1 and terms[0].counting
    total = f"{value} success{'es' if value not in (1, -1) else ''}" if counting else str(value)
    return f"{record.name}: {shown_expr(record)} {shown_dice} = {total}"
