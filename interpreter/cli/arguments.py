"""Reading a procedure's parameters from the command line: NAME=VALUE words."""

from __future__ import annotations

from collections.abc import Sequence

from interpreter.errors import BadParameter


def parse_assignments(items: Sequence[str]) -> dict[str, str]:
    """NAME=VALUE arguments as a mapping (values stay text; the procedure converts them)."""
    args = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise BadParameter(f"expected NAME=VALUE, got '{item}'")
        args[name.strip()] = value
    return args


__all__ = ["parse_assignments"]
