"""Warnings of ruleset-folder files that claim a bundled id: kept until the command line shows them.

A command that ends well shows each on stderr (``cli/guard.py``); a process that never takes them (the
language server) keeps at most ``KEPT``, and warns of each file once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from interpreter.errors import Location

__all__ = ["KEPT", "take", "unwarned", "warn"]

KEPT = 100
_WARNINGS: list[str] = []
_WARNED: set[str] = set()


def unwarned(path: str) -> bool:
    """Whether no warning of this file was made since the last :func:`take` (and there is room for one)."""
    return path not in _WARNED and len(_WARNED) < KEPT


def warn(path: str, where: Location, ruleset_id: str) -> None:
    """Keep the warning of a file (declaring the bundled id at ``where``) until taken."""
    if unwarned(path):
        _WARNED.add(path)
        _WARNINGS.append(f"{where.file}:{where.line}:{where.col}: $.ruleset: this file declares the id "
                         f"'{ruleset_id}' of a bundled ruleset, which is used in its place; give the file "
                         "an id of its own")


def take() -> list[str]:
    """The warnings made since last taken; each file may be warned of again after."""
    taken = _WARNINGS[:]
    _WARNINGS.clear()
    _WARNED.clear()
    return taken
