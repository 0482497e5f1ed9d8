"""Where the cursor is in a YAML text, read from the lines themselves (the text may not parse while it is typed).

The place is the chain of keys above the cursor's line by indentation (a list item is ``-``), the
key written on the cursor's line, and whether the cursor sits where a key or a value is typed.
"""

from __future__ import annotations

import re

from interpreter.record import record

__all__ = ["PROSE", "Place", "place", "words_in"]

# Keys whose values are words for people, never formulas or names.
PROSE = frozenset({"summary", "description", "help", "title", "text", "label", "source", "refs"})

_LINE_KEY = re.compile(r"^(\s*)((?:-\s+)*)([A-Za-z_][A-Za-z0-9_.-]*)\s*:(?:\s|$)")
_FLOW_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]*)\s*:\s")


@record
class Place:
    """The cursor's place: keys from the top (``-`` for a list item), the key it types after, and what it types."""

    keys: tuple[str, ...]  # the keys of the mappings around the cursor's line, outermost first
    key: str | None  # the key whose value the cursor is in (on its line, or in a flow mapping), if any
    at_key: bool  # the cursor is where a key is typed
    indent: int  # the indent of the cursor's line (or of the key being typed)
    siblings: tuple[str, ...] = ()  # the keys already written beside the one being typed


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _content(line: str) -> bool:
    text = line.strip()
    return bool(text) and not text.startswith("#")


def _keys_above(lines: list[str], row: int, indent: int) -> tuple[str, ...]:
    keys: list[str] = []
    limit = indent
    for i in range(row - 1, -1, -1):
        line = lines[i]
        if not _content(line) or _indent(line) >= limit:
            continue
        found = _LINE_KEY.match(line)
        if found is None:
            if line.lstrip().startswith("-"):
                keys.append("-")
                limit = _indent(line)
            continue
        dash_col, key_col = len(found.group(1)), len(found.group(1)) + len(found.group(2))
        if key_col < limit:
            keys.append(found.group(3))
            if found.group(2):
                keys.append("-")
            limit = dash_col
        elif found.group(2) and dash_col < limit:
            keys.append("-")  # the list item the line is in
            limit = dash_col
        if limit == 0:
            break
    return tuple(reversed(keys))


def _siblings(lines: list[str], row: int, indent: int) -> tuple[str, ...]:
    """The keys written at an indent in the mapping around a line (a list item's, when it is in one)."""
    out = []
    for step in (-1, 1):
        i = row + step
        while 0 <= i < len(lines):
            line = lines[i]
            if _content(line):
                found = _LINE_KEY.match(line)
                item = bool(found and found.group(2)) or line.lstrip().startswith("-")
                if _indent(line) < indent and not item or step == 1 and item and _indent(line) < indent:
                    break
                if found and len(found.group(1)) + len(found.group(2)) == indent:
                    out.append(found.group(3))
                    if found.group(2):
                        break  # the first key of this list item
            i += step
    return tuple(out)


def place(lines: list[str], row: int, col: int) -> Place:
    """The place of a cursor at a line and column (both from 0, the column in characters)."""
    line = lines[row] if row < len(lines) else ""
    before = line[:col]
    found = _LINE_KEY.match(line)
    typed = before.lstrip(" ")
    dashes = re.match(r"(?:-\s+)*", typed)
    bare = typed[dashes.end() if dashes else 0:]
    indent = _indent(line) + (dashes.end() if dashes else 0)
    if re.fullmatch(r"[A-Za-z_0-9.-]*", bare):  # only a (part of a) key so far
        keys = _keys_above(lines, row, _indent(line))
        if dashes and dashes.group():
            return Place(keys + ("-",), None, True, indent)
        return Place(keys, None, True, indent, _siblings(lines, row, indent))
    keys = _keys_above(lines, row, _indent(line))
    if found is not None and found.group(2):
        keys += ("-",)
    flow = list(_FLOW_KEY.finditer(before))
    key = flow[-1].group(1) if flow else (found.group(3) if found else None)
    if found is not None and flow and flow[-1].group(1) != found.group(3):
        keys += (found.group(3),)
    at_key = bool(re.search(r"[{,]\s*[A-Za-z_0-9]*$", before))
    return Place(keys, key, at_key, indent)


def words_in(line: str) -> list[tuple[str, int]]:
    """The names in a line's values (not in its keys, prose or comment), each with its column."""
    found = _LINE_KEY.match(line)
    if found is not None and found.group(3) in PROSE:
        return []
    text = re.sub(r"\s#.*$", "", line)
    out = []
    for match in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*", text):
        rest = text[match.end():]
        if re.match(r"\s*:(\s|$)", rest):
            continue  # a key
        out.append((match.group(), match.start()))
    return out
