"""Showing an error on a terminal: its one line, then the source line with a caret under the column.

    house.yaml:41:13: $.procedures.action.steps[0].when: unknown name 'dex'
      41 |       - when: dex + 2
         |               ^

Only a terminal gets the two extra lines; piped output and ``--json`` keep the single
line that scripts read.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

from interpreter.errors import Invalid, Location, RulesError, reported
from interpreter.hints import printable

__all__ = ["caret_lines", "error_lines", "is_terminal"]

_WIDEST = 200  # a longer source line is cut around the column


def is_terminal(stream: TextIO | None = None) -> bool:
    """Whether the stream (stderr by default) is a terminal."""
    stream = sys.stderr if stream is None else stream
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def _source_line(where: Location) -> str | None:
    """The text of the error's line, read from its file, or None when it cannot be read."""
    path = where.source or where.file
    if where.line < 1 or not path or not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8", errors="replace", newline="") as handle:
            for number, text in enumerate(handle, start=1):
                if number == where.line:
                    return text.rstrip("\r\n")
    except OSError:
        return None
    return None


def caret_lines(where: Location | None) -> list[str]:
    """The source line of a location and a caret under its column; empty when unknown."""
    if where is None or where.line < 1 or where.col < 1:
        return []
    text = _source_line(where)
    if text is None:
        return []
    text = text.replace("\t", " ")
    if not text.isprintable():  # one character for one, so that the caret stays under its column
        text = "".join(c if c.isprintable() else "?" for c in text)
    col = min(where.col, len(text) + 1)
    start = 0
    if len(text) > _WIDEST:
        start = max(0, min(col - _WIDEST // 2, len(text) - _WIDEST))
        text = text[start:start + _WIDEST]
    number = str(where.line)
    gutter = " " * len(number)
    return [f"  {number} | {text}", f"  {gutter} | {' ' * (col - 1 - start)}^"]


def error_lines(error: RulesError, *, terminal: bool) -> list[str]:
    """The lines that report an error: one per problem, each followed on a terminal by its caret."""
    problems = reported(error.problems) if isinstance(error, Invalid) else [error]
    lines: list[str] = []
    for problem in problems:
        lines.append(printable(str(problem)))  # one line, whatever the names in it hold
        if terminal:
            lines.extend(caret_lines(problem.where))
    return lines
