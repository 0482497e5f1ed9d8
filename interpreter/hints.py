"""Did-you-mean hints and the order problems are reported in."""

from __future__ import annotations

from collections.abc import Iterable, Sized
from contextvars import ContextVar
from typing import TypeVar

from interpreter import limits
from interpreter.errors import Location, RulesError

Problem = TypeVar("Problem", bound=RulesError)

# How alike (difflib's ratio, case ignored) a choice must be to be suggested for a misspelt word.
CUTOFF = 0.6
# Choices weighed for all the misspelt words of one check together (a document's compile): thousands of
# unknown names among thousands of choices would take each name times each choice; past
# limits.MAX_SUGGESTION_WORK, a misspelt word is reported without a suggestion.
_work: ContextVar[list[int] | None] = ContextVar("rulesmith_suggestion_work", default=None)


def new_check() -> None:
    """The misspelt words from here on are a new check's: they share a budget of limits.MAX_SUGGESTION_WORK choices."""
    _work.set([0])


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The choice a misspelt word most likely meant, or None.

    The same word in another case wins; otherwise the most alike choice, ignoring case, if it is
    at least CUTOFF alike.  Every "did you mean" in rulesmith comes from here.  Within a check whose
    misspelt words have weighed limits.MAX_SUGGESTION_WORK choices, there is none.
    """
    spent = _work.get()
    if spent is not None and isinstance(choices, Sized):
        if spent[0] + len(choices) > limits.MAX_SUGGESTION_WORK:
            return None
        spent[0] += len(choices)
    lowered: dict[str, str] = {}
    for choice in choices:
        lowered.setdefault(choice.lower(), choice)
    key = word.lower()
    if key in lowered:
        return lowered[key]
    import difflib  # only a misspelt word needs it

    close = difflib.get_close_matches(key, list(lowered), n=1, cutoff=CUTOFF)
    return lowered[close[0]] if close else None


def suggest(word: str, choices: Iterable[str]) -> str | None:
    """A 'did you mean' hint for a misspelt word, or None."""
    close = closest(word, choices)
    return f"did you mean '{close}'?" if close else None


def printable(text: str) -> str:
    """Text with every character a terminal would not show as itself (controls, line breaks, U+2028) escaped."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def shown(text: str, most: int = 60) -> str:
    """Text as a message quotes it: in quotes, unprintable characters escaped, cut in the middle when long."""
    text = printable(text)
    if len(text) <= most:
        return f"'{text}'"
    return f"'{text[: most // 2]}…{text[-10:]}' ({len(text)} characters)"


def sorted_unique(problems: list[Problem]) -> list[Problem]:
    """Problems sorted by position, each once."""
    seen: set[tuple[str | None, int | None, int | None, str]] = set()
    out = []
    for problem in problems:
        where = problem.where or Location()
        key = (where.file, where.line, where.col, problem.message)
        if key not in seen:
            seen.add(key)
            out.append(problem)
    out.sort(key=lambda p: ((p.where or Location()).line, (p.where or Location()).col))
    return out
