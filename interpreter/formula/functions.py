"""The functions every formula may call, and the types formulas compute with."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from interpreter.errors import EvaluationError

Number = int | bool | float
Env = Mapping[str, object]
Tables = Mapping[str, Callable[..., object]] | None
Runner = Callable[[Env, Tables], Any]


class Partial(int):
    """A number known only in part (exact odds' "at least 12" of an exploding total): formulas pass it
    through as it is, and it answers for itself what it can (see dice.atleast)."""

    __slots__ = ()


def _min(*args: Number) -> Number:
    return min(args)


def _max(*args: Number) -> Number:
    return max(args)


def _clamp(x: Number, lo: Number, hi: Number) -> Number:
    if lo > hi:
        raise EvaluationError(f"clamp() lower bound {lo} is greater than upper bound {hi}")
    return lo if x < lo else min(x, hi)


ALLOWED_FUNCTIONS: Mapping[str, Callable[..., Number]] = {
    "min": _min,
    "max": _max,
    "abs": abs,
    "floor": math.floor,
    "ceil": math.ceil,
    "clamp": _clamp,
}

# name -> (fewest, most) positional arguments; None means no upper bound.
ARITY: dict[str, tuple[int, int | None]] = {
    "min": (1, None),
    "max": (1, None),
    "abs": (1, 1),
    "floor": (1, 1),
    "ceil": (1, 1),
    "clamp": (3, 3),
}

