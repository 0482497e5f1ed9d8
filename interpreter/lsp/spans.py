"""Where a problem is in the text: the stretch of a line a diagnostic underlines, and its quick fix.

The validator gives a line and column (both from 1, columns in characters); a diagnostic needs a
range.  The range covers the word the message is about (the first thing it quotes, when the text
at the column starts with it), else the key or plain word at the column, else the rest of the line.
"""

from __future__ import annotations

import re

from interpreter.errors import RulesError, UnknownName

__all__ = ["replacement", "span", "word_at"]

_QUOTED = re.compile(r"'([^']+)'")
_WORD = re.compile(r"[^\s:#,\[\]{}\"']+")
_DID_YOU_MEAN = re.compile(r"did you mean '([^']*)'\?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def span(lines: list[str], problem: RulesError) -> tuple[int, int, int]:
    """(line, first column, column past the end), from 0, of what a problem is about."""
    where = problem.where
    if where is None or where.line < 1:
        return 0, 0, 0
    if where.line > len(lines):  # a line not at hand (a file too big, or not to be read): the spot alone
        return where.line - 1, max(where.col - 1, 0), max(where.col - 1, 0)
    row = lines[where.line - 1].rstrip("\r\n")
    start = min(max(where.col - 1, 0), len(row))
    wanted = [problem.name] if isinstance(problem, UnknownName) and problem.name else []
    wanted += _QUOTED.findall(problem.message)
    for word in wanted:
        if word and row.startswith(word, start):
            return where.line - 1, start, start + len(word)
    found = _WORD.match(row, start)
    if found is not None:
        return where.line - 1, start, found.end()
    end = len(row.rstrip())
    return where.line - 1, start, max(end, start)


def replacement(problem: RulesError) -> str | None:
    """What a did-you-mean hint proposes, or None."""
    found = _DID_YOU_MEAN.search(problem.hint or "")
    return found.group(1) if found else None


def word_at(row: str, col: int) -> tuple[str, int, int]:
    """The name (letters, digits, _) at or just before a column of a line: (name, start, end); empty when none."""
    for found in _NAME.finditer(row):
        if found.start() <= col <= found.end():
            return found.group(), found.start(), found.end()
    return "", col, col
