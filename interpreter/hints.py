"""Did-you-mean hints and the order problems are reported in."""

from __future__ import annotations

import difflib
from typing import Any

from interpreter.errors import Location


def closest(word: str, choices: list[str]) -> str | None:
    """The choice a misspelt word most likely meant, or None."""
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if close:
        return close[0]
    lowered = {c.lower(): c for c in choices}
    return lowered.get(word.lower())


def suggest(word: str, choices: list[str]) -> str | None:
    """A 'did you mean' hint for a misspelt word, or None."""
    close = closest(word, choices)
    return f"did you mean '{close}'?" if close else None


def sorted_unique(problems: list[Any]) -> list[Any]:
    """Problems sorted by position, each once."""
    seen = set()
    out = []
    for problem in problems:
        where = problem.where or Location()
        key = (where.file, where.line, where.col, problem.message)
        if key not in seen:
            seen.add(key)
            out.append(problem)
    out.sort(key=lambda p: ((p.where or Location()).line, (p.where or Location()).col))
    return out
