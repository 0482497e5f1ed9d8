"""The files a command has changed so far, so that a failure after a change never says that nothing changed.

The command line counts while a command runs (:func:`counted`); the writers of sheets, exported
files and charts note each file they replace or create (:func:`made`).  Outside a count (the
library) nothing is kept.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

__all__ = ["counted", "made", "written"]

_MADE: ContextVar[list[str] | None] = ContextVar("rulesmith_changes", default=None)


def made(path: str) -> None:
    """Note that the file at `path` was written, when a command is counting."""
    log = _MADE.get()
    if log is not None and path not in log:
        log.append(path)


def written() -> list[str]:
    """The files written so far in this count (none outside one)."""
    return list(_MADE.get() or ())


@contextlib.contextmanager
def counted() -> Iterator[list[str]]:
    """Count the files written meanwhile: the list grows as they are."""
    log: list[str] = []
    token = _MADE.set(log)
    try:
        yield log
    finally:
        _MADE.reset(token)
