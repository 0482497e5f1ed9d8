"""Loading a text as it is being edited: split into pieces, each parsed on its own and kept for the next edit.

A ruleset is a mapping of a few top-level keys, and most of its lines sit under one of them
(``procedures:``) as one entry per procedure.  The text is split at the lines that start an
entry (a plain key at the indent of its siblings); each piece is parsed alone by the real
loader (:func:`interpreter.load.yaml.load_text`) and the pieces' documents are joined into the
document of the whole text.  An edit changes one piece, so only that piece is parsed again;
the others come from memory, their lines moved when lines were added or removed above them.

An alias of an anchor in an earlier piece is parsed with a copy of the anchored node's line
put above the piece (for a node written on one line, such as ``again: &again {type: int}``),
and the copy's positions are then moved back to where the anchor is written.

The joined document equals the one a parse of the whole text gives, data and positions alike
(a test compares them over many edited rulesets).  Whenever that cannot be promised, the whole
text is parsed instead: a piece that does not parse (the real error then comes from the whole
text), an alias of an anchor further up that is not written on one line, directives and document markers, a lone
carriage return, duplicate keys across pieces, nesting near the depth limit, aliases that might
pass the alias limits in all, a text over the size limit.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any

from interpreter import limits
from interpreter.errors import RulesetLoadError
from interpreter.load.document import Document, PositionNode
from interpreter.load.yaml import load_text

__all__ = ["Pieces"]

# A line that starts a mapping entry with a plain key: its indent, then `key:` and a space or the end.
_ENTRY = re.compile(r"( *)[A-Za-z_][A-Za-z0-9_.-]*[ \t]*:(?:[ \t]|$)")
# A key line whose value is the indented block below it (`key:`, perhaps with a comment).
_OPENS = re.compile(r" *[A-Za-z_][A-Za-z0-9_.-]*[ \t]*:[ \t]*(?:#.*)?$")
# What the pieces cannot promise to read as the whole text does.
_WHOLE_ONLY = re.compile(r"^(?:%|---|\.\.\.)|\r(?!\n)", re.MULTILINE)
# What may be an alias (more than there are: a formula's `2 *x` counts too, which only errs on the safe side).
_ALIAS = re.compile(r"(?:^|[\s\[\]{},:-])\*[^\s\[\]{},]", re.MULTILINE)
_NAMES = re.compile(r"(?<![^\s\[\]{},:-])([&*])([^\s\[\]{},]+)")
_COPY = "__rulesmith_anchor_from_above_"  # the key of a copied anchor line above a piece
_SPLIT_LINES = 24  # an entry longer than this is split into its own entries, when it is a mapping
_DEPTH_MARGIN = 4


class _Whole(Exception):
    """The pieces cannot stand for the whole text: parse it whole."""


def _content(line: str) -> bool:
    text = line.strip()
    return bool(text) and not text.startswith("#")


def _shift(node: PositionNode, by: int, copies: dict[int, tuple[int, int]]) -> PositionNode:
    """A copy of a position tree with every line moved by ``by``; a line of copied anchors (numbered
    below 1) goes to where its anchor is written, ``copies[line] = (line, columns to move)``."""
    children = node[2]
    if isinstance(children, dict):
        children = {k: _shift(v, by, copies) for k, v in children.items()}
    elif isinstance(children, list):
        children = [_shift(v, by, copies) for v in children]
    moved = [*_moved(node[0], node[1], by, copies), children]
    if len(node) > 3:
        moved += _moved(node[3], node[4], by, copies)
    return moved


def _moved(line: int, col: int, by: int, copies: dict[int, tuple[int, int]]) -> tuple[int, int]:
    if line < 1:
        line, columns = copies[line]
        return line, col + columns
    return line + by, col


def _lift(node: PositionNode, by: int) -> PositionNode:
    """A position tree with every line moved up by ``by`` (so that a piece's own lines start at 1)."""
    children = node[2]
    if isinstance(children, dict):
        children = {k: _lift(v, by) for k, v in children.items()}
    elif isinstance(children, list):
        children = [_lift(v, by) for v in children]
    moved = [node[0] - by, node[1], children]
    if len(node) > 3:
        moved += [node[3] - by, node[4]]
    return moved


def _needed(text: str) -> list[str]:
    """The anchors a piece's aliases name before the piece itself anchors them, in order."""
    own: set[str] = set()
    needed: list[str] = []
    for sign, name in _NAMES.findall(text):
        if sign == "&":
            own.add(name)
        elif name not in own and name not in needed:
            needed.append(name)
    return needed


def _anchor_above(lines: list[str], start: int, name: str) -> tuple[int, int, int, str] | None:
    """Where the last anchor of a name above a line is: (line index, column of the anchor, column of
    the node after it, the node's text).

    None when there is none (what looked like an alias may be text in quotes; if it is an alias, the
    piece does not parse).  Only a node written whole on the anchor's line can be copied; anything
    else asks for the whole text.
    """
    mark = "&" + name
    for i in range(start - 1, -1, -1):
        found = [m for m in _NAMES.finditer(lines[i]) if m.group(0) == mark]
        if found:
            at = found[-1].end()
            node = lines[i][at:].rstrip("\r\n")
            rest = node.strip()
            if not node.startswith(" ") or not rest or rest[0] in "|>#" or _NAMES.search(rest):
                raise _Whole
            if rest[0] not in "{[\"'":  # a plain scalar: up to its comment, and never a key
                rest = rest.split(" #")[0].rstrip()
                if ": " in rest or rest.endswith(":"):
                    raise _Whole
            return i, found[-1].start() + 1, at + len(node) - len(node.lstrip(" ")) + 1, rest
    return None


_NOTHING: Any = object()


def _value_at(data: Any, node: PositionNode, line: int, col: int) -> Any:
    """The value whose node is at a line and column, or _NOTHING when there is none."""
    if node[0] == line and node[1] == col:
        return data
    children = node[2]
    pairs: Any = ()
    if isinstance(children, dict) and isinstance(data, dict):
        pairs = ((data[key], child) for key, child in children.items())
    elif isinstance(children, list) and isinstance(data, list):
        pairs = zip(data, children, strict=False)
    for value, child in pairs:
        found = _value_at(value, child, line, col)
        if found is not _NOTHING:
            return found
    return _NOTHING


def _copy(value: Any) -> Any:
    """A copy of plain data (the pieces kept for the next edit must not be changed by this one's users)."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _size(value: Any) -> tuple[int, int]:
    """How deep plain data nests (a collection is one level) and how many nodes it holds, keys included."""
    if isinstance(value, dict):
        inner = [_size(v) for v in value.values()]
        return 1 + max((d for d, _ in inner), default=0), 1 + len(inner) + sum(n for _, n in inner)
    if isinstance(value, list):
        inner = [_size(v) for v in value]
        return 1 + max((d for d, _ in inner), default=0), 1 + sum(n for _, n in inner)
    return 0, 1


def _grouped(starts: list[int], end: int) -> tuple[list[int], set[int]]:
    """The starts of the pieces, and those of pieces of several entries: short entries side by side make one
    piece of up to _SPLIT_LINES lines (a file of thousands of one-line entries is parsed in hundreds of pieces,
    not thousands); a long entry stands alone."""
    out: list[int] = []
    several: set[int] = set()
    for n, begin in enumerate(starts):
        stop = starts[n + 1] if n + 1 < len(starts) else end
        long_before = n > 0 and begin - starts[n - 1] > _SPLIT_LINES
        if not out or stop - begin > _SPLIT_LINES or begin - out[-1] >= _SPLIT_LINES or long_before:
            out.append(begin)
        else:
            several.add(out[-1])
    return out, several


class _Piece:
    """A piece parsed alone: its document, how deep it nests, and what its aliases may bring in at most."""

    __slots__ = ("aliases", "copied", "data", "depth", "expanded", "positions")

    def __init__(self, doc: Document, text: str, copies: int) -> None:
        self.depth, nodes = _size(doc.data)
        self.aliases = len(_ALIAS.findall(text))
        # an alias repeats a node of its own piece, so it brings in no more nodes than the piece holds
        self.expanded = self.aliases * nodes
        data, positions = doc.data, doc.positions
        self.copied: list[Any] = []  # the value of each copied anchor, to be found where it is written
        if copies:
            data, kids = dict(data), dict(positions[2])
            for i in range(copies):
                self.copied.append(data.pop(f"{_COPY}{i}"))
                del kids[f"{_COPY}{i}"]
            first = next(iter(kids.values()), positions)
            positions = _lift([first[-2] if len(first) > 3 else first[0], positions[1], kids], copies)
        self.data, self.positions = data, positions


class _Tally:
    """The aliases of one load's pieces, added up against the limits the whole text is held to."""

    __slots__ = ("aliases", "copied", "expanded")

    def __init__(self) -> None:
        self.aliases = 0
        self.expanded = 0
        self.copied: list[tuple[int, int, Any]] = []  # (line, column, value) of each anchored node copied

    def add(self, piece: _Piece) -> None:
        self.aliases += piece.aliases
        self.expanded += piece.expanded
        if self.aliases > limits.MAX_ALIASES or self.expanded > limits.MAX_NODES:
            raise _Whole


class Pieces:
    """The documents of the pieces of recent texts, by their text: what an edit left alone is not parsed again."""

    def __init__(self, most: int = 4096) -> None:
        self._parsed: OrderedDict[str, _Piece] = OrderedDict()
        self._most = most
        self.parsed = 0  # pieces parsed so far (the rest came from memory)

    def load(self, text: str, file: str, source: str | None = None) -> Document:
        """The document of a text, as ``load_text(text, file, source)`` gives it; raise its RulesetLoadError."""
        if 4 * len(text) > limits.MAX_FILE_BYTES or _WHOLE_ONLY.search(text):
            return load_text(text, file, source)
        lines = text.splitlines(keepends=True)
        tally = _Tally()
        try:
            data, node = self._entries(lines, 0, len(lines), 0, 1, file, tally)
            for line, col, value in tally.copied:  # each copy was made of a real anchored node
                if _value_at(data, node, line, col) != value:
                    raise _Whole
        except _Whole:
            return load_text(text, file, source)
        return Document(data, file, node, source)

    def _entries(self, lines: list[str], start: int, end: int, indent: int, level: int,
                 file: str, tally: _Tally) -> tuple[dict[str, Any], PositionNode]:
        """The mapping written by lines[start:end], entries at ``indent``, joined from its pieces."""
        starts = [i for i in range(start, end) if (m := _ENTRY.match(lines[i])) and len(m.group(1)) == indent]
        if not starts or any(_content(lines[i]) for i in range(start, starts[0])):
            raise _Whole
        starts[0] = start  # comments and blank lines above the first entry go with it
        starts, several = _grouped(starts, end)
        data: dict[str, Any] = {}
        kids: dict[str, PositionNode] = {}
        first: PositionNode | None = None
        for n, begin in enumerate(starts):
            stop = starts[n + 1] if n + 1 < len(starts) else end
            if begin in several:
                piece_data, piece_node = self._parse(lines, begin, stop, level, file, tally)
            else:
                piece_data, piece_node = self._entry(lines, begin, stop, indent, level, file, tally)
            for key, value in piece_data.items():
                if key in data:
                    raise _Whole  # a duplicate key: the whole text says where it was first defined
                data[key] = value
                kids[key] = piece_node[2][key]
            if first is None:
                first = piece_node
        assert first is not None
        return data, [first[0], first[1], kids]

    def _entry(self, lines: list[str], start: int, end: int, indent: int, level: int,
               file: str, tally: _Tally) -> tuple[dict[str, Any], PositionNode]:
        """One piece: parsed alone, or, when it is a long mapping entry, split into its own entries."""
        head = start
        while head < end and not _content(lines[head]):
            head += 1
        body = next((i for i in range(head + 1, end) if _content(lines[i])), None)
        if (level < 3 and end - start > _SPLIT_LINES and body is not None and _OPENS.match(lines[head].rstrip("\r\n"))
                and (m := _ENTRY.match(lines[body])) is not None and len(m.group(1)) > indent):
            key_data, key_node = self._parse(lines, start, head + 1, level, file, tally)
            (key, _), = key_data.items()
            value, node = self._entries(lines, head + 1, end, len(m.group(1)), level + 1, file, tally)
            key_at = key_node[2][key]
            return {key: value}, [key_node[0], key_node[1], {key: node + [key_at[3], key_at[4]]}]
        return self._parse(lines, start, end, level, file, tally)

    def _parse(self, lines: list[str], start: int, end: int, level: int,
               file: str, tally: _Tally) -> tuple[dict[str, Any], PositionNode]:
        text = "".join(lines[start:end])
        copies: dict[int, tuple[int, int]] = {}  # line of a copy (0, -1, ...) -> (line of its anchor, columns)
        anchored: list[tuple[int, int]] = []  # where each copied node is written
        needed = _needed(text) if "*" in text else []
        if needed:
            if _COPY in text:
                raise _Whole
            first = next((line for line in lines[start:end] if _content(line)), "")
            indent = " " * (len(first) - len(first.lstrip(" ")))
            above: list[tuple[str, int, int]] = []
            for name in needed:
                found = _anchor_above(lines, start, name)
                if found is None:
                    continue
                line, anchor_col, col, node = found
                head = f"{indent}{_COPY}{len(above)}: &{name} "
                anchored.append((line + 1, anchor_col))
                above.append((head + node + "\n", line + 1, col - len(head) - 1))
            for i, (_, line, columns) in enumerate(above):
                copies[i + 1 - len(above)] = (line, columns)
            text = "".join(copy for copy, _, _ in above) + text
        piece = self._parsed.get(text)
        if piece is None:
            try:
                piece = _Piece(load_text(text, file), text, len(anchored))
            except RulesetLoadError:
                raise _Whole from None
            self.parsed += 1
            self._parsed[text] = piece
            if len(self._parsed) > self._most:
                self._parsed.popitem(last=False)
        else:
            self._parsed.move_to_end(text)
        tally.add(piece)
        if piece.depth + level + _DEPTH_MARGIN > limits.MAX_DEPTH or not isinstance(piece.data, dict):
            raise _Whole
        tally.copied += [(line, col, value) for (line, col), value in zip(anchored, piece.copied, strict=True)]
        return _copy(piece.data), _shift(piece.positions, start, copies)
