"""A loaded ruleset or sheet file: its plain data and where each part of it was written.

``Document.data`` holds only dicts (in file order), lists, str, int, float, bool and None.
``Document.positions`` is a tree shaped like the data that holds the line and column of
every value and of every mapping key; :meth:`Document.where` turns a path into the data
back into a ``FILE:LINE:COL`` location.

A node of the position tree is a list ``[line, col, children]``: ``children`` is None for a
scalar, a dict of the entries of a mapping, or a list of the items of a sequence.  An entry
of a mapping also carries the position of its key: ``[line, col, children, key_line,
key_col]``.  Lines and columns count from 1.  The tree holds only lists, dicts, str and
int, so it is stored as JSON in the parse cache as it is.
"""

from __future__ import annotations

import json
from typing import Any, TypeAlias

from interpreter.errors import Location
from interpreter.record import field, record

__all__ = ["Document", "Path", "PositionNode", "json_path"]

Path: TypeAlias = tuple[str | int, ...]
PositionNode: TypeAlias = list[Any]


def json_path(path: Path) -> str:
    """Write a path as a JSON path: ``("steps", 2, "roll")`` -> ``$.steps[2].roll``.

    Keys that are not plain identifiers are written in brackets as JSON strings:
    ``("hit points",)`` -> ``$["hit points"]``.
    """
    parts = ["$"]
    for step in path:
        if isinstance(step, int) and not isinstance(step, bool):
            parts.append(f"[{step}]")
        else:
            step = str(step)
            if step.isascii() and step.isidentifier():  # (letters, digits and _, not starting with a digit)
                parts.append("." + step)
            else:
                parts.append("[" + json.dumps(step, ensure_ascii=False) + "]")
    return "".join(parts)


@record
class Document:
    """A loaded file: its plain data and where each part of it was written.

    ``file`` names the file in messages; ``source`` is the path it was read from, when
    that differs from ``file`` or is needed to show the line of an error (None for text
    that came from no file).
    """

    data: Any
    file: str
    positions: PositionNode = field(default_factory=lambda: [0, 0, None], repr=False, compare=False)
    source: str | None = field(default=None, compare=False)

    def where(self, path: Path, *, key: bool = False) -> Location:
        """The location of the value at ``path`` (or of its mapping key, with ``key=True``).

        A key position exists only when the last step of the path is a mapping key;
        otherwise the value's position is given.  For a path that does not exist
        (a missing key, an index past the end) the position of the nearest existing
        ancestor is given, in the same way.  ``Location.path`` is always the JSON path
        of ``path`` as asked.
        """
        path = tuple(path)
        line, col = self.position(path, key=key)
        return Location(self.file, line, col, json_path(path), self.source or "")

    def position(self, path: Path, *, key: bool = False) -> tuple[int, int]:
        """The (line, column) that :meth:`where` reports, (0, 0) when nothing is known."""
        node = self.positions
        last: str | int | None = None
        try:
            for step in path:
                children = node[2]
                if isinstance(children, dict) and isinstance(step, str):
                    child = children.get(step)
                elif (isinstance(children, list) and isinstance(step, int) and not isinstance(step, bool)
                      and 0 <= step < len(children)):
                    child = children[step]
                else:
                    child = None
                if child is None:
                    break
                node = child
                last = step
            line, col = (node[3], node[4]) if key and isinstance(last, str) else (node[0], node[1])
        except (IndexError, TypeError, KeyError):  # a damaged tree: the place is unknown, not an error
            return (0, 0)
        if type(line) is not int or type(col) is not int:  # (a record of the cache may hold anything)
            return (0, 0)
        return line, col
