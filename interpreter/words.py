"""How a value reads as text, wherever rulesmith shows one: in a run's lines, odds, diffs, sheets and messages.

A value that is not set reads `null`, the word JSON and YAML give it (a distribution's keys in
`--json` are these words too); a flag reads `true` or `false`; a list reads in brackets.
"""

from __future__ import annotations

from typing import TypeAlias

# A JSON document as rulesmith writes it (--json): the one recursive type of what json.dumps is given.
Json: TypeAlias = "dict[str, Json] | list[Json] | str | int | float | bool | None"

NOTHING = "null"  # the word for a value that is not set (None)


def value_text(value: object) -> str:
    """A value as text: None as `null`, flags as `true` and `false`, lists and tuples in brackets."""
    if value is None:
        return NOTHING
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    return str(value)


__all__ = ["NOTHING", "Json", "value_text"]
