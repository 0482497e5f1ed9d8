"""What the functions procedure.writer writes call while they run: errors placed as the traced runner places them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from interpreter import limits
from interpreter.absent import Absent, reported
from interpreter.errors import EvaluationError, LimitExceeded, Location, Refused, TableMiss
from interpreter.ruleset.texts import fill


def best_of_count(count: Any, where: Location) -> None:
    raise LimitExceeded(f"best_of count is {count}; it must be 1 to {limits.MAX_LOOP_ITERATIONS}", where)


UNSET = object()  # a name a table may leave absent, not bound yet


def present(value: Any, what: tuple[str, Location]) -> Any:
    """A name read by a formula: an absent name is the traced runner's error."""
    if type(value) is Absent:
        raise value.error(*what)
    return value


def reported_value(value: Any) -> Any:
    """A value as a run reports it: absent or never bound is no value."""
    return None if value is UNSET else reported(value)


def loop_limit(where: Location) -> None:
    raise LimitExceeded(f"a loop ran more than {limits.MAX_LOOP_ITERATIONS} times", where)


def over_limit(kind: int, where: Location) -> None:
    """A run past MAX_STEPS (kind 0) or MAX_RUN_DICE (kind 1), with the traced runner's words."""
    advice = "a loop or repeat runs too long, or rolls too many dice"
    if kind == 0:
        raise LimitExceeded(f"the procedure needs more than {limits.MAX_STEPS} steps; {advice}", where)
    raise LimitExceeded(f"the procedure rolls more than {limits.MAX_RUN_DICE} dice; {advice}", where)


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


HELPERS: dict[str, Any] = {
    "_best_of_count": best_of_count, "_loop_limit": loop_limit, "_no_outcome": no_outcome, "_over_limit": over_limit,
    "_present": present, "_refuse": refuse, "_reported": reported_value, "_UNSET": UNSET, "_table_miss": table_miss, "_worded": worded}
