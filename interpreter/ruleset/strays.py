"""A top-level key that belongs under a section: `dc: 10` dedented out of `constants:` says so.

The schema reports such a key as unknown and suggests the closest top-level key (`dice` for
`dc`); when the key stands right after a section and is not a near miss of a top-level key, the
likelier mistake is its indent, and the hint says which section it would belong to.
"""

from __future__ import annotations

import bisect
import difflib
import re

from interpreter.errors import RulesError
from interpreter.load.document import Document
from interpreter.ruleset.partial import json_steps

__all__ = ["placed"]

NEAR = 0.8  # a key at least this alike to the suggested top-level key is a misspelling, not a stray
_SUGGESTED = re.compile(r"did you mean '([^']+)'\?")
_EMPTY = object()  # a section without entries


def _section_above(doc: Document, key: str, line: int, known: list[tuple[int, str]]) -> tuple[str, int] | None:
    """The known top-level key nearest above a line, with its line, when it is a section (a mapping, or empty)
    whose entries are of the key's kind; ``known`` holds the known keys by line (found once for all keys)."""
    below = bisect.bisect_left(known, (line, ""))
    if below == 0 or known[below - 1][0] < 1:
        return None
    at, name = known[below - 1]
    value = doc.data[name]
    if value is None:
        return (name, at)
    if not isinstance(value, dict):
        return None
    # the key's value has the shape of the section's entries (a number among constants, a mapping among procedures)
    # (its last entry alone: copying the section for each stray key made many of them quadratic)
    stray, last = doc.data[key], next(reversed(value.values()), _EMPTY)
    return (name, at) if last is _EMPTY or isinstance(stray, dict) == isinstance(last, dict) else None


def placed(doc: Document, problems: list[RulesError]) -> list[RulesError]:
    """The schema's problems, an unknown top-level key after a section told that it may belong there."""
    if not isinstance(doc.data, dict):
        return problems
    steps = [json_steps(p.where.path) if p.where is not None else None for p in problems]
    unknown = {s[0] for s, p in zip(steps, problems, strict=True)
               if s is not None and len(s) == 1 and isinstance(s[0], str) and p.message.startswith("unknown key")}
    known = sorted((doc.position((name,), key=True)[0], name) for name in doc.data if name not in unknown)
    for problem, path in zip(problems, steps, strict=True):
        if path is None or len(path) != 1 or path[0] not in unknown or problem.where is None:
            continue
        key = str(path[0])
        near = _SUGGESTED.search(problem.hint or "")
        if near is not None and difflib.SequenceMatcher(None, key.lower(), near.group(1).lower()).ratio() >= NEAR:
            continue
        above = _section_above(doc, key, problem.where.line, known)
        if above is not None:
            problem.hint = (f"it comes right after the '{above[0]}' section (line {above[1]}): indent it to make "
                            f"it one of '{above[0]}'")
    return problems
