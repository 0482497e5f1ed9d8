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


def resolve_plain(text: str) -> Any:
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


def _kind_name(value: Any) -> str:
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


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _key_problem(raw: Any, written: str | None) -> str:
    """Why ``raw`` cannot be a key; ``written`` is its text when it is a plain scalar."""
    if written is None:
        return f"keys must be strings, not {_kind_name(raw)}"
    if not written:
        return f"keys must be strings, not {_kind_name(raw)} (an empty key)"
    return f"keys must be strings, not {_kind_name(raw)} ({written!r}); put the key in quotes"


class _Anchor:
    """What an anchor names: the value, its position node, its size and height for the limits."""

    __slots__ = ("done", "height", "node", "size", "value")

    def __init__(self, value: Any, node: PositionNode, size: int, height: int, done: bool):
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


def build_document(events: Iterable[Event], file: str, text: str = "", source: str | None = None) -> Document:
    """Turn an event stream into a Document, enforcing every structural rule.

    ``text`` is the text the events were read from: a quoted scalar is placed at its first
    character, past the quote, so that columns inside it (a formula's) count from there.
    """
    lines = text.split("\n")

    def quoted(line: int, col: int) -> bool:
        row = lines[line - 1] if 0 < line <= len(lines) else ""
        return 0 < col <= len(row) and row[col - 1] in "'\""

    anchors: dict[str, _Anchor] = {}
    root: Any = None
    root_node: PositionNode = [1, 1, None]
    have_root = False
    count = 0
    alias_count = 0
    alias_nodes = 0
    max_depth = limits.MAX_DEPTH
    max_aliases = limits.MAX_ALIASES
    max_nodes = limits.MAX_NODES
    resolve = resolve_plain

    # The innermost open collection lives in these variables; its ancestors are saved in
    # ``outer`` as lists [in_map, box, kids, node, path, index, depth, flow, anchor, start, deepest].
    in_map = False
    box: Any = None             # the collection being filled
    kids: Any = None            # the position nodes of its entries (a dict or a list)
    c_node: PositionNode = root_node
    cpath: Path = ()
    key: str | None = None      # the key whose value comes next (None: a key comes next)
    key_pos: tuple[int, int] = (0, 0)
    index = 0
    depth = 0                   # 0: no collection is open
    flow = False
    c_anchor: str | None = None
    c_start = 0
    deepest = 0
    outer: list[list[Any]] = []

    def alias_target(name: str, line: int, col: int) -> _Anchor:
        nonlocal alias_count, alias_nodes
        alias_count += 1
        if alias_count > max_aliases:
            raise Problem(f"too many aliases (more than {max_aliases})", line, col)
        target = anchors.get(name)
        if target is None or not target.done:
            raise Problem(_alias_problem(name, target), line, col)
        alias_nodes += target.size
        if alias_nodes > max_nodes:
            raise Problem(f"aliases expand to more than {max_nodes} nodes", line, col)
        return target

    try:
        for kind, line, col, value, flag, empty, anchor in events:
            # ------------------------------------------------------------ a key
            if in_map and key is None and kind != END:
                if kind == SCALAR:
                    if flag:
                        if value == "<<":
                            raise Problem("merge keys ('<<') are not supported", line, col)
                        try:
                            raw = resolve(value)
                        except OutOfRange:
                            raise Problem(f"this key is a {_OUT_OF_RANGE}", line, col) from None
                    else:
                        raw = value
                    written = value
                elif kind == ALIAS:
                    raw = alias_target(anchor, line, col).value
                    written = None
                    anchor = None
                elif kind == REFUSE:
                    raise Problem(value, line, col)
                else:
                    raise Problem(_key_problem({} if kind == MAP else [], None), line, col)
                if raw.__class__ is str:
                    name = raw
                elif isinstance(raw, int) and not isinstance(raw, bool):
                    name = str(raw)
                else:
                    raise Problem(_key_problem(raw, written), line, col)
                if name in box:
                    first = kids[name]
                    raise Problem(f"duplicate key {name!r} (first defined at line {first[3]}, "
                                  f"column {first[4]})", line, col, cpath + (name,))
                key = name
                key_pos = (line, col)
                count += 1
                if anchor is not None:
                    anchors[anchor] = _Anchor(raw, [line, col, None], 1, 0, True)
                continue

            # ----------------------------------------------------- an end
            if kind == END:
                if c_anchor is not None:
                    anchors[c_anchor] = _Anchor(box, c_node, count - c_start, deepest - depth + 1, True)
                inner = deepest
                if outer:
                    in_map, box, kids, c_node, cpath, index, depth, flow, c_anchor, c_start, deepest = outer.pop()
                    key = None
                    deepest = max(deepest, inner)
                else:
                    in_map, box, kids, cpath, depth = False, None, None, (), 0
                continue

            # --------------------------------------------------- a value
            if in_map:
                assert key is not None  # a key was read just before its value
                path = cpath + (key,)
            elif depth:
                path = cpath + (index,)
            else:
                if have_root:  # the parser never gives a second document
                    raise Problem("only one YAML document is allowed in a file", line, col)
                if kind == REFUSE:
                    raise Problem(value, line, col, ())
                if kind != MAP:
                    raise Problem(_TOP_LEVEL, line, col, ())
                path = ()

            node: PositionNode
            if kind == SCALAR:
                try:
                    item = resolve(value) if flag else value
                except OutOfRange:
                    raise Problem(_OUT_OF_RANGE, line, col, path) from None
                count += 1
                if empty and in_map:
                    node = [key_pos[0], key_pos[1], None]
                else:
                    node = [line, col + 1 if not flag and quoted(line, col) else col, None]
                if anchor is not None:
                    anchors[anchor] = _Anchor(item, node, 1, 0, True)
            elif kind in (MAP, SEQ):
                if depth + 1 > max_depth:
                    raise Problem(f"nesting deeper than {max_depth} levels", line, col)
                item = {} if kind == MAP else []
                node = [line, col, {} if kind == MAP else []]
                if anchor is not None:
                    anchors[anchor] = _Anchor(None, node, 0, 0, False)
            elif kind == ALIAS:
                target = alias_target(anchor, line, col)
                if depth + target.height > max_depth:
                    raise Problem(f"nesting deeper than {max_depth} levels", line, col)
                deepest = max(deepest, depth + target.height)
                count += target.size
                item = _copy(target.value)
                node = [line, col, target.node[2]]  # the copy's insides are placed at the original
            else:  # REFUSE
                raise Problem(value, line, col, path)

            if in_map:
                box[key] = item
                node.append(key_pos[0])
                node.append(key_pos[1])
                kids[key] = node
                key = None
            elif depth:
                box.append(item)
                kids.append(node)
                index += 1
            else:
                root = item
                root_node = node
                have_root = True
            if kind in (MAP, SEQ):
                if depth:
                    outer.append([in_map, box, kids, c_node, cpath, index, depth, flow, c_anchor, c_start, deepest])
                in_map = kind == MAP
                box = item
                kids = node[2]
                c_node = node
                cpath = path
                index = 0
                depth += 1
                flow = flag
                c_anchor = anchor
                c_start = count
                count += 1
                deepest = depth

    except Problem as problem:
        where = cpath if problem.path is None else problem.path
        raise _fail(problem.message, file, problem.line, problem.col, json_path(where)) from None
    except FlowTooDeep as deep:
        # The scanner stopped at the first flow collection past the limit, looking ahead
        # of the events seen so far: report the one at which the nesting limit is passed.
        block = sum(1 for saved in outer if not saved[7]) + (1 if depth and not flow else 0)
        index = min(max(max_depth - block, 0), len(deep.marks) - 1)
        mark = deep.marks[index]
        raise _fail(f"nesting deeper than {max_depth} levels", file, mark.line + 1,
                    mark.column + 1, json_path(cpath)) from None

    if not have_root:
        raise _fail(_TOP_LEVEL, file, 1, 1, "$")
    return Document(root, file, root_node, source)
