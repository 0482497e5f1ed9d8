"""Plain words for the YAML layout mistakes people make by hand, pointing at the line that is wrong.

The parser notices a wrong indent or a missing space after ':' only where the text stops making
sense, often a line later, and says so in its own terms ("mapping values are not allowed here",
"expected <block end>, but found '<block mapping start>'"). Given where it stopped, these
functions look at the lines themselves and, when one of the usual mistakes explains it, say what
to change on which line.
"""

from __future__ import annotations

import re

__all__ = ["layout_problem"]

# the parser messages a layout mistake produces
_LAYOUT = ("mapping values are not allowed here", "expected <block end>", "could not find expected ':'",
           "did not find expected key", "did not find expected '-' indicator")
_KEY = re.compile(r"^(\s*)(?:-\s+)?[^\s#'\"][^#]*?:(?:\s|$)")
_NO_SPACE = re.compile(r"^(\s*)(?:-\s+)?([A-Za-z_][\w.-]*):([^\s:/\\])")


def _content(lines: list[str], index: int) -> bool:
    text = lines[index].strip()
    return bool(text) and not text.startswith("#")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _previous(lines: list[str], index: int) -> int | None:
    """The index of the nearest line above that holds something other than a comment."""
    for i in range(min(index, len(lines)) - 1, -1, -1):
        if _content(lines, i):
            return i
    return None


def _opens_block(line: str) -> bool:
    """Whether a line ends with a key whose value is the indented block below it (`key:` or `key: |`)."""
    text = re.sub(r"\s+#.*$", "", line).rstrip()
    return text.endswith(":") or bool(re.search(r":\s+[|>][-+0-9]*$", text)) or text.lstrip().startswith("- ")


def _missing_space(lines: list[str], index: int) -> tuple[str, int, int] | None:
    match = _NO_SPACE.match(lines[index])
    if match is None or ": " in lines[index][: match.end(2)]:
        return None
    key, rest = match.group(2), lines[index][match.end(2) + 1:].split(" #")[0].strip()
    return (f"put a space after ':' ('{key}: {rest}'), or YAML reads '{key}:{rest}' as one word",
            index + 1, match.end(2) + 2)


def _wrong_indent(lines: list[str], index: int) -> tuple[str, int, int] | None:
    if index >= len(lines) or not _KEY.match(lines[index]):
        return None
    above = _previous(lines, index)
    if above is None or _opens_block(lines[above]):
        return None
    mine, theirs = _indent(lines[index]), _indent(lines[above])
    if mine > theirs:
        return (f"this key is indented more than its siblings at line {above + 1}; indent it like them",
                index + 1, mine + 1)
    if mine < theirs:
        for i in range(above - 1, -1, -1):
            if _content(lines, i) and _indent(lines[i]) <= mine:
                if _indent(lines[i]) == mine:
                    return None  # it lines up with an earlier key: a block really ends here
                words = (f"this key is indented less than its siblings at line {above + 1} and more than its "
                         f"parent at line {i + 1}; line it up with one of them")
                return (words, index + 1, mine + 1)
    return None


def _item_key_column(line: str) -> int | None:
    """The indent of the key in a list item that holds a key and its value on one line (`- call: check`)."""
    match = re.match(r"^(\s*-\s+)[^\s#'\"{\[][^#]*?:\s+\S", line)
    return len(match.group(1)) if match is not None else None


def _wrong_item(lines: list[str], index: int) -> tuple[str, int, int] | None:
    """A list item indented less than the items above it (a `decide` branch dedented), or a key indented more
    than the key of the list item above it (`with:` under `- call: check`)."""
    if index >= len(lines):
        return None
    above = _previous(lines, index)
    if above is None:
        return None
    mine = _indent(lines[index])
    if lines[index].lstrip().startswith("- ") and lines[above].lstrip().startswith("- ") \
            and mine < _indent(lines[above]):
        return ((f"this list item is indented less than the item above it at line {above + 1}; indent it like that "
                "one to add it to the same list"), index + 1, mine + 1)
    sibling = _item_key_column(lines[above])
    if _KEY.match(lines[index]) and sibling is not None and mine > sibling:
        return (f"this key is indented more than its siblings at line {above + 1}; indent it like them",
                index + 1, mine + 1)
    return None


def layout_problem(message: str, text: str, line: int) -> tuple[str, int, int] | None:
    """(message, line, column) of the layout mistake behind a parser error at a line, or None."""
    lines = text.splitlines()
    index = line - 1
    if message.startswith("found character '\\t'") and 0 <= index < len(lines) and "\t" in lines[index]:
        return ("a tab indents this line; YAML indents with spaces only: put spaces in its place",
                line, lines[index].index("\t") + 1)
    if not message.startswith(_LAYOUT):
        return None
    above = _previous(lines, index)
    for candidate in ([above] if above is not None else []) + [index]:
        if candidate is not None and 0 <= candidate < len(lines):
            found = _missing_space(lines, candidate)
            if found is not None:
                return found
    return _wrong_indent(lines, index) or _wrong_item(lines, index)
