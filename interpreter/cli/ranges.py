"""Swept parameters on the command line: `NAME=A..B`, `NAME=A..B/STEP` and `NAME=a,b,c`.

A word of NAME=VALUE whose value is a range or a list names the values to sweep over; every other
word is one fixed value, read as `parse_assignments` reads it. The values stay text: the
procedure converts them, as it does a single value.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence

from interpreter import limits
from interpreter.errors import BadParameter, LimitExceeded
from interpreter.hints import shown

MAX_SWEPT = 2  # parameters one sweep may vary (a table of rows, or rows by columns)
MAX_POINTS = 400  # points one sweep may compute (each is a full exact-odds computation)

_RANGE = r"^\s*([+-]?\d+)\s*\.\.\s*([+-]?\d+)\s*(?:/\s*([+-]?\d+)\s*)?$"  # (compiled by `re` when a range is given)

Axis = tuple[str, tuple[str, ...]]  # a swept parameter and its values, in order


def _whole(name: str, text: str) -> int:
    try:
        value = limits.whole_number(text.strip())
    except OverflowError:
        raise BadParameter(f"parameter '{name}': {shown(text)} is out of range: {limits.OUT_OF_RANGE}") from None
    if value is None:  # the pattern admits only digits: never reached, kept for the type
        raise BadParameter(f"parameter '{name}' must be a whole number, not {shown(text)}")
    return value


def values_of(name: str, text: str, pool: bool = False) -> tuple[str, ...] | None:
    """The values a swept parameter takes, in order; None when `text` is one plain value.

    For a dice parameter (`pool`), commas join the dice of one mixed pool (`dice=d8,d6,d4`), so only
    a range sweeps it."""
    match = re.match(_RANGE, text) if ".." in text else None
    if match:
        low, high = _whole(name, match.group(1)), _whole(name, match.group(2))
        step = _whole(name, match.group(3)) if match.group(3) is not None else 1
        if step <= 0:
            raise BadParameter(f"parameter '{name}': the step of {shown(text)} must be 1 or more",
                               hint=f"write {name}={low}..{high}/2 to take every second value")
        if high < low:
            raise BadParameter(f"parameter '{name}': the range {shown(text)} is empty (it ends below its start)",
                               hint=f"write {name}={high}..{low}")
        count = (high - low) // step + 1
        if count > MAX_POINTS:
            raise LimitExceeded(f"parameter '{name}': {shown(text)} has {count} values; a sweep takes at most "
                                f"{MAX_POINTS} points")
        return tuple(str(v) for v in range(low, high + 1, step))
    if "," in text and not pool:
        parts = tuple(part.strip() for part in text.split(","))
        if any(not part for part in parts):
            raise BadParameter(f"parameter '{name}': {shown(text)} has an empty value between its commas")
        return parts
    return None


def parse_sweep(items: Sequence[str], pools: frozenset[str] = frozenset()) -> tuple[dict[str, str], list[Axis]]:
    """NAME=VALUE words as the fixed parameters and the swept ones (each with its values, in order); `pools`
    are the dice parameters, whose commas join one pool."""
    fixed: dict[str, str] = {}
    axes: list[Axis] = []
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise BadParameter(f"expected NAME=VALUE, got '{item}'")
        swept = values_of(name, value, name.strip() in pools)
        axes = [a for a in axes if a[0] != name]  # the last word for a name counts, as for a fixed one
        fixed.pop(name, None)
        if swept is None:
            fixed[name] = value
        else:
            axes.append((name, swept))
    if len(axes) > MAX_SWEPT:
        raise BadParameter(f"a sweep varies at most {MAX_SWEPT} parameters, not {len(axes)} "
                           f"({', '.join(a[0] for a in axes)})", hint="give the others one value each")
    points = 1
    for _, values in axes:
        points *= len(values)
    if points > MAX_POINTS:
        raise LimitExceeded(f"the sweep has {points} points; it takes at most {MAX_POINTS}")
    return fixed, axes


def described(axes: Sequence[Axis]) -> str:
    """The swept parameters as a reader sees them: 'pool from 1 to 10' or 'mode in burst, short'."""
    parts = []
    for name, values in axes:
        numbers = [limits.whole_number(v) for v in values]
        if len(values) > 2 and None not in numbers:
            steps = {b - a for a, b in itertools.pairwise(numbers)}  # type: ignore[operator]
            if len(steps) == 1:
                step = steps.pop()
                parts.append(f"{name} from {values[0]} to {values[-1]}" + (f" by {step}" if step != 1 else ""))
                continue
        parts.append(f"{name} in {', '.join(values)}")
    return ", ".join(parts)


def point_args(fixed: Mapping[str, str], axes: Sequence[Axis], point: Sequence[str]) -> dict[str, str]:
    """The arguments of one point: the fixed ones and the swept ones at `point` (in the order of `axes`)."""
    args = dict(fixed)
    args.update({name: value for (name, _), value in zip(axes, point, strict=True)})
    return args


__all__ = ["MAX_POINTS", "MAX_SWEPT", "Axis", "described", "parse_sweep", "point_args", "values_of"]
