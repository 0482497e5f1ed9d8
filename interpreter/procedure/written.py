"""What the functions procedure.writer writes call while they run: errors placed as the traced runner places them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from interpreter import limits
from interpreter.errors import EvaluationError, LimitExceeded, Location, Refused, TableMiss
from interpreter.sheet.steps import fill


def best_of_count(count: Any, where: Location) -> None:
    raise LimitExceeded(f"best_of count is {count}; it must be 1 to {limits.MAX_LOOP_ITERATIONS}", where)


def table_miss(what: tuple[str, Location], key: Any) -> None:
    raise TableMiss(f"table '{what[0]}' has no row for {key}", what[1])


def no_outcome(what: tuple[str, Location]) -> None:
    raise EvaluationError(f"procedure '{what[0]}' ended without an outcome", what[1])


def refuse(message: str, env: dict[str, Any]) -> None:
    raise Refused(fill(message, env))


def worded(value: Any, words: Mapping[int, str]) -> Any:
    """A reported value as its declared word (runner.worded)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return value
    return words.get(value, value)


HELPERS: dict[str, Callable[..., Any]] = {"_best_of_count": best_of_count, "_no_outcome": no_outcome,
                                          "_refuse": refuse, "_table_miss": table_miss, "_worded": worded}
