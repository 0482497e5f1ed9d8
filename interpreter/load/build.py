"""Building a Document from YAML events, enforcing every structural rule of a ruleset file.

* one document per file, and its top level is a mapping;
* mapping keys are strings.  A plain (unquoted) integer key such as ``1:`` is accepted
  and stored as the string of its number (``1: a`` gives ``{"1": "a"}``, ``0x10: a``
  gives ``{"16": "a"}``); null, boolean, float, sequence and mapping keys are refused.
  A key may appear only once in a mapping (after that conversion, so ``1:`` and ``"1":``
  clash);
* merge keys (``<<``) are refused rather than silently kept as a key named ``<<``;
* at most ``limits.MAX_ALIASES`` aliases, and the aliases together may bring in at most
  ``limits.MAX_NODES`` nodes (each alias counts every node of what it repeats, nested
  aliases included, so a "billion laughs" file stops after a few aliases without ever
  being expanded);
* at most ``limits.MAX_DEPTH`` nested collections (the top level mapping is level 1),
  counting what aliases bring in.

Plain scalars are resolved with the YAML 1.2 core schema: ``null``/``Null``/``NULL``/
``~``/empty are None; ``true``/``false`` (and their capitalised and upper-case forms) are
bools; ``yes``/``no``/``on``/``off`` stay strings; integers are decimal, ``0o`` octal or
``0x`` hexadecimal; floats include ``.inf`` and ``.nan``.  Anything else, for example
dates, ``1_000`` or ``0b101``, stays a string.  Quoted and block scalars are always strings.

An alias becomes an independent copy of the node it names, so ``data`` is a tree with no
shared parts.  Positions inside a copy point at the text of the anchored original; the
position of the alias itself is that of ``*name``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from interpreter import limits
from interpreter.errors import Location, RulesetLoadError
from interpreter.load.document import Document, Path, PositionNode, json_path
from interpreter.load.events import ALIAS, END, MAP, REFUSE, SCALAR, SEQ, Event, FlowTooDeep, Problem

__all__ = ["build_document", "resolve_plain"]

_INT10 = re.compile(r"[-+]?[0-9]+\Z")
_INT8 = re.compile(r"0o[0-7]+\Z")
_INT16 = re.compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_INF = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"}
_NEG_INF = {"-.inf", "-.Inf", "-.INF"}
_NAN = {".nan", ".NaN", ".NAN"}
_NULL = {"", "~", "null", "Null", "NULL"}
_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}
_NUMBER_START = frozenset("0123456789+-.")
_TOP_LEVEL = "the top level must be a mapping of keys to values"


def resolve_plain(text: str) -> object:
    """The value of a plain scalar under the YAML 1.2 core schema."""
    if not text or text[0] not in _NUMBER_START:
        if text in _NULL:
            return None
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        return text
    if _INT10.match(text):
        return _int(text, text.lstrip("+-"), 19)
    if _INT8.match(text):
        return _int(text, text[2:], 21)
    if _INT16.match(text):
        return _int(text, text[2:], 16)
    if _FLOAT.match(text):
        return float(text)
    if text in _INF:
        return float("inf")
    if text in _NEG_INF:
        return float("-inf")
    if text in _NAN:
        return float("nan")
    return text


class OutOfRange(Exception):
    """A whole number beyond 64 bits: refused before Python converts it (a 5,000-digit one would fail there)."""


_OUT_OF_RANGE = f"number out of range: {limits.OUT_OF_RANGE}"


def _int(text: str, digits: str, most: int) -> int:
    """The value of an integer scalar, refused beyond 64 bits; ``most`` is the most digits that can fit."""
    if len(digits.lstrip("0")) > most:
        raise OutOfRange(text)
    value = int(text, 0) if text[:2] in ("0o", "0x") else int(text)
    if not limits.INT_MIN <= value <= limits.INT_MAX:
        raise OutOfRange(text)
    return value


def _kind_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "booleans"
    if isinstance(value, float):
        return "floats"
    if isinstance(value, dict):
        return "mappings"
    if isinstance(value, list):
        return "sequences"
    return type(value).__name__


def _copy(value: object) -> object:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _key_problem(raw: object, written: str | None) -> str:
    """Why ``raw`` cannot be a key; ``written`` is its text when it is a plain scalar."""
    if written is None:
        return f"keys must be strings, not {_kind_name(raw)}"
    if not written:
        return f"keys must be strings, not {_kind_name(raw)} (an empty key)"
    return f"keys must be strings, not {_kind_name(raw)} ({written!r}); put the key in quotes"


class _Anchor:
    """What an anchor names: the value, its position node, its size and height for the limits."""

    __slots__ = ("done", "height", "node", "size", "value")

    def __init__(self, value: object, node: PositionNode, size: int, height: int, done: bool):
        self.value = value
        self.node = node
        self.size = size
        self.height = height
        self.done = done


def _alias_problem(name: str, target: _Anchor | None) -> str:
    if target is None:
        return f"unknown alias '*{name}' (no anchor '&{name}' before it)"
    return f"alias '*{name}' is used inside the node it names"


def _fail(message: str, file: str, line: int, col: int, path: str) -> RulesetLoadError:
    return RulesetLoadError(message, where=Location(file, line, col, path))


class _Builder:
    """The document being built, one event at a time.

    The innermost open collection lives in the slots below; its ancestors are saved in ``outer``
    as lists [in_map, box, kids, node, path, index, depth, flow, anchor, start, deepest].
    """

    __slots__ = ("alias_count", "alias_nodes", "anchors", "box", "c_anchor", "c_node", "c_start", "count", "cpath",
                 "deepest", "depth", "flow", "have_root", "in_map", "index", "key", "key_pos", "kids", "lines",
                 "max_depth", "outer", "root", "root_node")

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self.anchors: dict[str, _Anchor] = {}
        self.root: object = None
        self.root_node: PositionNode = [1, 1, None]
        self.have_root = False
        self.count = 0
        self.alias_count = 0
        self.alias_nodes = 0
        self.max_depth = limits.MAX_DEPTH
        self.in_map = False
        self.box: Any = None             # the collection being filled
        self.kids: Any = None            # the position nodes of its entries (a dict or a list)
        self.c_node: PositionNode = self.root_node
        self.cpath: Path = ()
        self.key: str | None = None      # the key whose value comes next (None: a key comes next)
        self.key_pos: tuple[int, int] = (0, 0)
        self.index = 0
        self.depth = 0                   # 0: no collection is open
        self.flow = False
        self.c_anchor: str | None = None
        self.c_start = 0
        self.deepest = 0
        self.outer: list[list[Any]] = []

    def quoted(self, line: int, col: int) -> bool:
        """Whether a scalar starts with a quote (it is then placed past it)."""
        lines = self.lines
        row = lines[line - 1] if 0 < line <= len(lines) else ""
        return 0 < col <= len(row) and row[col - 1] in "'\""

    def alias_target(self, name: str, line: int, col: int) -> _Anchor:
        """What an alias names, counted against the limits on aliases and the nodes they bring in."""
        self.alias_count += 1
        if self.alias_count > limits.MAX_ALIASES:
            raise Problem(f"too many aliases (more than {limits.MAX_ALIASES})", line, col)
        target = self.anchors.get(name)
        if target is None or not target.done:
            raise Problem(_alias_problem(name, target), line, col)
        self.alias_nodes += target.size
        if self.alias_nodes > limits.MAX_NODES:
            raise Problem(f"aliases expand to more than {limits.MAX_NODES} nodes", line, col)
        return target

    # ------------------------------------------------------------------------------------ a key
    def read_key(self, kind: int, line: int, col: int, value: str, flag: bool, anchor: str | None) -> None:
        raw, written = self._raw_key(kind, line, col, value, flag, anchor)
        if raw.__class__ is str:
            name = raw
        elif isinstance(raw, int) and not isinstance(raw, bool):
            name = str(raw)
        else:
            raise Problem(_key_problem(raw, written), line, col)
        if name in self.box:
            first = self.kids[name]
            raise Problem(f"duplicate key {name!r} (first defined at line {first[3]}, "
                          f"column {first[4]})", line, col, self.cpath + (name,))
        self.key = name
        self.key_pos = (line, col)
        self.count += 1
        if anchor is not None and kind != ALIAS:
            self.anchors[anchor] = _Anchor(raw, [line, col, None], 1, 0, True)

    def _raw_key(self, kind: int, line: int, col: int, value: str, flag: bool,
                 anchor: str | None) -> tuple[object, str | None]:
        """A key's value as read, and its text when it is a scalar."""
        if kind == SCALAR:
            if not flag:
                return value, value
            if value == "<<":
                raise Problem("merge keys ('<<') are not supported", line, col)
            try:
                return resolve_plain(value), value
            except OutOfRange:
                raise Problem(f"this key is a {_OUT_OF_RANGE}", line, col) from None
        if kind == ALIAS:
            assert anchor is not None  # an alias event names its anchor
            return self.alias_target(anchor, line, col).value, None
        if kind == REFUSE:
            raise Problem(value, line, col)
        raise Problem(_key_problem({} if kind == MAP else [], None), line, col)

    # ------------------------------------------------------------------------------------ an end
    def end(self) -> None:
        if self.c_anchor is not None:
            self.anchors[self.c_anchor] = _Anchor(self.box, self.c_node, self.count - self.c_start,
                                                  self.deepest - self.depth + 1, True)
        inner = self.deepest
        if self.outer:
            (self.in_map, self.box, self.kids, self.c_node, self.cpath, self.index, self.depth, self.flow,
             self.c_anchor, self.c_start, self.deepest) = self.outer.pop()
            self.key = None
            self.deepest = max(self.deepest, inner)
        else:
            self.in_map, self.box, self.kids, self.cpath, self.depth = False, None, None, (), 0

    # ------------------------------------------------------------------------------------ a value
    def read_value(self, kind: int, line: int, col: int, value: str, flag: bool, empty: bool,
                   anchor: str | None) -> None:
        path = self._value_path(kind, line, col, value)
        item, node = self._item(kind, line, col, value, flag, empty, anchor, path)
        self._place(item, node)
        if kind in (MAP, SEQ):
            self._open(kind == MAP, item, node, path, flag, anchor)

    def _value_path(self, kind: int, line: int, col: int, value: str) -> Path:
        if self.in_map:
            assert self.key is not None  # a key was read just before its value
            return self.cpath + (self.key,)
        if self.depth:
            return self.cpath + (self.index,)
        if self.have_root:  # the parser never gives a second document
            raise Problem("only one YAML document is allowed in a file", line, col)
        if kind == REFUSE:
            raise Problem(value, line, col, ())
        if kind != MAP:
            raise Problem(_TOP_LEVEL, line, col, ())
        return ()

    def _item(self, kind: int, line: int, col: int, value: str, flag: bool, empty: bool, anchor: str | None,
              path: Path) -> tuple[object, PositionNode]:
        """The value an event gives and its position node."""
        node: PositionNode
        if kind == SCALAR:
            try:
                item = resolve_plain(value) if flag else value
            except OutOfRange:
                raise Problem(_OUT_OF_RANGE, line, col, path) from None
            self.count += 1
            if empty and self.in_map:
                node = [self.key_pos[0], self.key_pos[1], None]
            else:
                node = [line, col + 1 if not flag and self.quoted(line, col) else col, None]
            if anchor is not None:
                self.anchors[anchor] = _Anchor(item, node, 1, 0, True)
            return item, node
        if kind in (MAP, SEQ):
            if self.depth + 1 > self.max_depth:
                raise Problem(f"nesting deeper than {self.max_depth} levels", line, col)
            item = {} if kind == MAP else []
            node = [line, col, {} if kind == MAP else []]
            if anchor is not None:
                self.anchors[anchor] = _Anchor(None, node, 0, 0, False)
            return item, node
        if kind == ALIAS:
            assert anchor is not None  # an alias event names its anchor
            return self._alias(anchor, line, col)
        raise Problem(value, line, col, path)  # REFUSE

    def _alias(self, name: str, line: int, col: int) -> tuple[object, PositionNode]:
        target = self.alias_target(name, line, col)
        if self.depth + target.height > self.max_depth:
            raise Problem(f"nesting deeper than {self.max_depth} levels", line, col)
        self.deepest = max(self.deepest, self.depth + target.height)
        self.count += target.size
        return _copy(target.value), [line, col, target.node[2]]  # the copy's insides are placed at the original

    def _place(self, item: object, node: PositionNode) -> None:
        """Put a value into the open collection (or make it the root)."""
        if self.in_map:
            key = self.key
            self.box[key] = item
            node.append(self.key_pos[0])
            node.append(self.key_pos[1])
            self.kids[key] = node
            self.key = None
        elif self.depth:
            self.box.append(item)
            self.kids.append(node)
            self.index += 1
        else:
            self.root = item
            self.root_node = node
            self.have_root = True

    def _open(self, in_map: bool, item: object, node: PositionNode, path: Path, flag: bool, anchor: str | None) -> None:
        """Make a new collection the open one, saving the one that was."""
        if self.depth:
            self.outer.append([self.in_map, self.box, self.kids, self.c_node, self.cpath, self.index, self.depth,
                               self.flow, self.c_anchor, self.c_start, self.deepest])
        self.in_map = in_map
        self.box = item
        self.kids = node[2]
        self.c_node = node
        self.cpath = path
        self.index = 0
        self.depth += 1
        self.flow = flag
        self.c_anchor = anchor
        self.c_start = self.count
        self.count += 1
        self.deepest = self.depth

    def too_deep(self, deep: FlowTooDeep, file: str) -> RulesetLoadError:
        """The scanner stopped at the first flow collection past the limit, looking ahead of the events
        seen so far: the error at the one at which the nesting limit is passed."""
        block = sum(1 for saved in self.outer if not saved[7]) + (1 if self.depth and not self.flow else 0)
        index = min(max(self.max_depth - block, 0), len(deep.marks) - 1)
        mark = deep.marks[index]
        return _fail(f"nesting deeper than {self.max_depth} levels", file, mark.line + 1,
                     mark.column + 1, json_path(self.cpath))


def build_document(events: Iterable[Event], file: str, text: str = "", source: str | None = None) -> Document:
    """Turn an event stream into a Document, enforcing every structural rule.

    ``text`` is the text the events were read from: a quoted scalar is placed at its first
    character, past the quote, so that columns inside it (a formula's) count from there.
    """
    b = _Builder(text)
    try:
        for kind, line, col, value, flag, empty, anchor in events:
            if kind == END:
                b.end()
            elif b.in_map and b.key is None:
                b.read_key(kind, line, col, value, flag, anchor)
            else:
                b.read_value(kind, line, col, value, flag, empty, anchor)
    except Problem as problem:
        where = b.cpath if problem.path is None else problem.path
        raise _fail(problem.message, file, problem.line, problem.col, json_path(where)) from None
    except FlowTooDeep as deep:
        raise b.too_deep(deep, file) from None
    if not b.have_root:
        raise _fail(_TOP_LEVEL, file, 1, 1, "$")
    return Document(b.root, file, b.root_node, source)
