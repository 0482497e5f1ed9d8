"""Read a ruleset file into plain Python data, remembering where every value came from.

A ruleset is one YAML 1.2 document whose top level is a mapping.  The result is a
:class:`Document`: ``data`` holds only dicts (in file order), lists, str, int, float,
bool and None, and :meth:`Document.where` turns a path into that data back into a
``FILE:LINE:COL`` location.

Rules, each refused with a :class:`~interpreter.errors.RulesetLoadError` that names
the line and column of the first problem:

* at most ``limits.MAX_FILE_BYTES`` bytes, UTF-8 (a leading byte order mark is
  accepted and ignored), no control characters;
* YAML 1.2 only: a ``%YAML`` directive other than ``%YAML 1.2`` is refused;
* no tags at all (``!!str``, ``!foo``, ``!!python/...``): nothing is ever built
  from a tag;
* one document per file, and its top level is a mapping;
* mapping keys are strings.  A plain (unquoted) integer key such as ``1:`` is
  accepted and stored as the string of its number (``1: a`` gives ``{"1": "a"}``,
  ``0x10: a`` gives ``{"16": "a"}``); null, boolean, float, sequence and mapping
  keys are refused.  A key may appear only once in a mapping (after that
  conversion, so ``1:`` and ``"1":`` clash);
* merge keys (``<<``) are refused rather than silently kept as a key named ``<<``;
* at most ``limits.MAX_ALIASES`` aliases, and the aliases together may bring in at
  most ``limits.MAX_NODES`` nodes (each alias counts every node of what it repeats,
  nested aliases included, so a "billion laughs" file stops after a few aliases
  without ever being expanded);
* at most ``limits.MAX_DEPTH`` nested collections (the top level mapping is level
  1), counting what aliases bring in.

Plain scalars are resolved with the YAML 1.2 core schema: ``null``/``Null``/
``NULL``/``~``/empty are None; ``true``/``false`` (and their capitalised and
upper-case forms) are bools; ``yes``/``no``/``on``/``off`` stay strings; integers
are decimal, ``0o`` octal or ``0x`` hexadecimal; floats include ``.inf`` and
``.nan``.  Anything else, for example dates, ``1_000`` or ``0b101``, stays a
string.  Quoted and block scalars are always strings.

An alias becomes an independent copy of the node it names, so ``data`` is a tree
with no shared parts.  Positions inside a copy point at the text of the anchored
original; the position of the alias itself is that of ``*name``.

Most files are read by a small line-based reader that understands the style rulesets
(and JSON files) are written in; anything else (tags, multi-line plain scalars,
explicit "?" keys, syntax errors, ...) is read by ruamel.yaml's parser instead, which
is about twenty times slower.  Both produce the same events, so the data, the positions
and the errors do not depend on which one read a file.
"""

from __future__ import annotations

import gc
import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from ruamel.yaml.scanner import Scanner

from . import limits
from .errors import Location, RulesetLoadError

__all__ = ["Path", "Document", "json_path", "load_file", "load_text"]

Path = tuple[str | int, ...]

# --------------------------------------------------------------------------- paths

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


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
            if _IDENTIFIER.match(step):
                parts.append("." + step)
            else:
                parts.append("[" + json.dumps(step, ensure_ascii=False) + "]")
    return "".join(parts)


# ------------------------------------------------------------------------ document

Position = tuple[int, int]


@dataclass(frozen=True)
class Document:
    """A loaded ruleset file: its plain data and where each part of it was written."""

    data: Any
    file: str
    _keys: dict = field(default_factory=dict, repr=False, compare=False)
    _values: dict = field(default_factory=dict, repr=False, compare=False)
    _aliases: dict = field(default_factory=dict, repr=False, compare=False)

    def where(self, path: Path, *, key: bool = False) -> Location:
        """The location of the value at ``path`` (or of its mapping key, with ``key=True``).

        A key position exists only when the last step of the path is a mapping key;
        otherwise the value's position is given.  For a path that does not exist
        (a missing key, an index past the end) the position of the nearest existing
        ancestor is given, in the same way.  ``Location.path`` is always the JSON path
        of ``path`` as asked.
        """
        path = tuple(path)
        line, col = self._find(path, key)
        return Location(self.file, line, col, json_path(path))

    def _find(self, path: tuple, key: bool) -> Position:
        # The longest part of the path that exists in the data ...
        node = self.data
        size = 0
        for step in path:
            if isinstance(node, dict) and isinstance(step, str) and step in node:
                node = node[step]
            elif (isinstance(node, list) and isinstance(step, int) and not isinstance(step, bool)
                  and 0 <= step < len(node)):
                node = node[step]
            else:
                break
            size += 1
        if size < len(path):
            path = path[:size]
        # ... and where it was written: inside a copy made for an alias, that is in the
        # anchored original.
        keys, values, aliases = self._keys, self._values, self._aliases
        for _ in range(10_000):  # each round shortens the path or follows an alias
            table = keys if key and path and isinstance(path[-1], str) else values
            pos = table.get(path)
            if pos is not None:
                return pos
            if not path:
                break
            for cut in range(len(path) - 1, 0, -1):
                target = aliases.get(path[:cut])
                if target is not None:
                    path = target + path[cut:]
                    break
            else:
                path = path[:-1]
        return (0, 0)


# -------------------------------------------------------------------------- errors


class _Problem(Exception):
    """A refusal found before the document path is known; the builder adds the path."""

    def __init__(self, message: str, line: int, col: int, path: Path | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col
        self.path = path


class _FlowTooDeep(Exception):
    """Flow collections nest deeper than the limit; carries their start positions."""

    def __init__(self, marks: list):
        super().__init__("nesting too deep")
        self.marks = marks


class _Unsupported(Exception):
    """The quick reader does not handle this text; the full YAML parser reads it."""


def _fail(message: str, file: str, line: int, col: int, path: str = "$") -> RulesetLoadError:
    return RulesetLoadError(message, where=Location(file, line, col, path))


# ---------------------------------------------------------------- bytes and text

_NOT_PRINTABLE = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)


def _line_col(text: str, index: int) -> Position:
    """1-based line and column of ``text[index]``, counting line breaks as the parser does."""
    head = text[:index]
    line = head.count("\n") + head.count("\r") - head.count("\r\n") + 1
    start = max(head.rfind("\n"), head.rfind("\r")) + 1
    col = index - start + 1
    if line == 1 and head.startswith("\ufeff"):
        col -= 1
    return line, col


def _too_big(size: int, file: str) -> RulesetLoadError:
    return _fail(f"file is {size} bytes; the limit is {limits.MAX_FILE_BYTES}", file, 1, 1)


def _decode(data: bytes, file: str) -> str:
    if len(data) > limits.MAX_FILE_BYTES:
        raise _too_big(len(data), file)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = data[: exc.start].decode("utf-8")
        line, col = _line_col(good, len(good))
        raise _fail(f"not valid UTF-8 (byte 0x{data[exc.start]:02x})", file, line, col) from None
    return text


def _check_text(text: str, file: str) -> str:
    """Refuse characters YAML does not allow; drop a leading byte order mark."""
    bad = _NOT_PRINTABLE.search(text)
    if bad is not None:
        line, col = _line_col(text, bad.start())
        raise _fail(f"character U+{ord(bad.group()):04X} is not allowed", file, line, col)
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


# -------------------------------------------------------------------------- scalars

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


def _resolve(text: str) -> Any:
    """The value of a plain scalar under the YAML 1.2 core schema."""
    if not text or text[0] not in _NUMBER_START:
        if text in _NULL:
            return None
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        return text
    try:
        if _INT10.match(text):
            return int(text)
        if _INT8.match(text):
            return int(text[2:], 8)
        if _INT16.match(text):
            return int(text[2:], 16)
    except ValueError:  # more digits than Python converts; keep the text
        return text
    if _FLOAT.match(text):
        return float(text)
    if text in _INF:
        return float("inf")
    if text in _NEG_INF:
        return float("-inf")
    if text in _NAN:
        return float("nan")
    return text


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


# --------------------------------------------------------------------------- events
#
# Both readers produce tuples (kind, line, col, value, flag, empty, anchor):
#   SCALAR: value = text, flag = plain (unquoted, not a block scalar),
#           empty = the implicit empty scalar of "key:" with nothing after it
#   MAP / SEQ: flag = flow style;  END: nothing;  ALIAS: anchor = the name
#   REFUSE: value = the message for a node that must not be loaded (a tagged one)

_SCALAR, _MAP, _SEQ, _END, _ALIAS, _REFUSE = range(6)


class _Anchor:
    __slots__ = ("value", "path", "size", "height", "done")

    def __init__(self, value: Any, path: Path | None, size: int, height: int, done: bool):
        self.value = value
        self.path = path
        self.size = size
        self.height = height
        self.done = done


_TOP_LEVEL = "the top level must be a mapping of keys to values"


def _key_problem(raw: Any, written: str | None) -> str:
    """Why ``raw`` cannot be a key; ``written`` is its text when it is a plain scalar."""
    if written is None:
        return f"keys must be strings, not {_kind_name(raw)}"
    if not written:
        return f"keys must be strings, not {_kind_name(raw)} (an empty key)"
    return f"keys must be strings, not {_kind_name(raw)} ({written!r}); put the key in quotes"


def _build(events: Iterable[tuple], file: str, text: str = "") -> Document:
    """Turn an event stream into a Document, enforcing every structural rule."""
    lines = text.split("\n")

    def quoted(line: int, col: int) -> bool:
        row = lines[line - 1] if 0 < line <= len(lines) else ""
        return 0 < col <= len(row) and row[col - 1] in "'\""

    keys: dict = {}
    values: dict = {}
    aliases: dict = {}
    anchors: dict = {}
    root: Any = None
    have_root = False
    count = 0
    alias_count = 0
    alias_nodes = 0
    max_depth = limits.MAX_DEPTH
    max_aliases = limits.MAX_ALIASES
    max_nodes = limits.MAX_NODES
    resolve = _resolve

    # The innermost open collection lives in these variables; its ancestors are saved
    # in ``outer`` as lists [in_map, box, path, index, depth, flow, anchor, start, deepest].
    in_map = False
    box: Any = None
    cpath: Path = ()
    key: str | None = None      # the key whose value comes next (None: a key comes next)
    key_pos: Position = (0, 0)
    index = 0
    depth = 0                   # 0: no collection is open
    flow = False
    c_anchor = None
    c_start = 0
    deepest = 0
    outer: list[list] = []

    def alias_target(name: str, line: int, col: int) -> _Anchor:
        nonlocal alias_count, alias_nodes
        alias_count += 1
        if alias_count > max_aliases:
            raise _Problem(f"too many aliases (more than {max_aliases})", line, col)
        target = anchors.get(name)
        if target is None or not target.done:
            raise _Problem(_alias_problem(name, target), line, col)
        alias_nodes += target.size
        if alias_nodes > max_nodes:
            raise _Problem(f"aliases expand to more than {max_nodes} nodes", line, col)
        return target

    try:
        for kind, line, col, value, flag, empty, anchor in events:
            # ------------------------------------------------------------ a key
            if in_map and key is None and kind != _END:
                if kind == _SCALAR:
                    if flag:
                        if value == "<<":
                            raise _Problem("merge keys ('<<') are not supported", line, col)
                        raw = resolve(value)
                    else:
                        raw = value
                    written = value
                elif kind == _ALIAS:
                    raw = alias_target(anchor, line, col).value
                    written = None
                    anchor = None
                elif kind == _REFUSE:
                    raise _Problem(value, line, col)
                else:
                    raise _Problem(_key_problem({} if kind == _MAP else [], None), line, col)
                if raw.__class__ is str:
                    name = raw
                elif isinstance(raw, int) and not isinstance(raw, bool):
                    name = str(raw)
                else:
                    raise _Problem(_key_problem(raw, written), line, col)
                path = cpath + (name,)
                if name in box:
                    first = keys[path]
                    raise _Problem(f"duplicate key {name!r} (first defined at line {first[0]}, "
                                   f"column {first[1]})", line, col, path)
                key = name
                key_pos = keys[path] = (line, col)
                count += 1
                if anchor is not None:
                    anchors[anchor] = _Anchor(raw, None, 1, 0, True)
                continue

            # ----------------------------------------------------- an end
            if kind == _END:
                if c_anchor is not None:
                    anchors[c_anchor] = _Anchor(box, cpath, count - c_start, deepest - depth + 1, True)
                inner = deepest
                if outer:
                    in_map, box, cpath, index, depth, flow, c_anchor, c_start, deepest = outer.pop()
                    key = None
                    if inner > deepest:
                        deepest = inner
                else:
                    in_map, box, cpath, depth = False, None, (), 0
                continue

            # --------------------------------------------------- a value
            if in_map:
                path = cpath + (key,)
            elif depth:
                path = cpath + (index,)
            else:
                if have_root:  # the readers never give a second document
                    raise _Problem("only one YAML document is allowed in a file", line, col)
                if kind == _REFUSE:
                    raise _Problem(value, line, col, ())
                if kind != _MAP:
                    raise _Problem(_TOP_LEVEL, line, col, ())
                path = ()

            if kind == _SCALAR:
                item = resolve(value) if flag else value
                count += 1
                if anchor is not None:
                    anchors[anchor] = _Anchor(item, None, 1, 0, True)
                # a quoted value is placed at its first character, past the quote, so columns
                # inside it (a formula's) count from where its text starts
                values[path] = key_pos if (empty and in_map) else (
                    line, col + 1 if not flag and quoted(line, col) else col)
            elif kind == _MAP or kind == _SEQ:
                if depth + 1 > max_depth:
                    raise _Problem(f"nesting deeper than {max_depth} levels", line, col)
                item = {} if kind == _MAP else []
                values[path] = (line, col)
                if anchor is not None:
                    anchors[anchor] = _Anchor(None, path, 0, 0, False)
            elif kind == _ALIAS:
                target = alias_target(anchor, line, col)
                if depth + target.height > max_depth:
                    raise _Problem(f"nesting deeper than {max_depth} levels", line, col)
                if depth + target.height > deepest:
                    deepest = depth + target.height
                count += target.size
                item = _copy(target.value)
                values[path] = (line, col)
                if target.path is not None:
                    aliases[path] = target.path
            else:  # _REFUSE
                raise _Problem(value, line, col, path)

            if in_map:
                box[key] = item
                key = None
            elif depth:
                box.append(item)
                index += 1
            else:
                root = item
                have_root = True
            if kind == _MAP or kind == _SEQ:
                if depth:
                    outer.append([in_map, box, cpath, index, depth, flow, c_anchor, c_start, deepest])
                in_map = kind == _MAP
                box = item
                cpath = path
                index = 0
                depth += 1
                flow = flag
                c_anchor = anchor
                c_start = count
                count += 1
                deepest = depth

    except _Problem as problem:
        where = cpath if problem.path is None else problem.path
        raise _fail(problem.message, file, problem.line, problem.col, json_path(where)) from None
    except _FlowTooDeep as deep:
        # The scanner stopped at the first flow collection past the limit, looking ahead
        # of the events seen so far: report the one at which the nesting limit is passed.
        block = sum(1 for saved in outer if not saved[5]) + (1 if depth and not flow else 0)
        index = min(max(max_depth - block, 0), len(deep.marks) - 1)
        mark = deep.marks[index]
        raise _fail(f"nesting deeper than {max_depth} levels", file, mark.line + 1,
                    mark.column + 1, json_path(cpath)) from None

    if not have_root:
        raise _fail(_TOP_LEVEL, file, 1, 1, "$")
    return Document(root, file, keys, values, aliases)


def _alias_problem(name: str, target: _Anchor | None) -> str:
    if target is None:
        return f"unknown alias '*{name}' (no anchor '&{name}' before it)"
    return f"alias '*{name}' is used inside the node it names"


# ------------------------------------------------------------ the full YAML parser


class _CheckingScanner(Scanner):
    """ruamel.yaml's scanner, noting tags and flow nesting and refusing old YAML versions."""

    def __init__(self, loader: Any = None) -> None:
        self.rs_tags: list = []
        self.rs_flow: list = []
        super().__init__(loader=loader)

    def fetch_tag(self) -> None:
        super().fetch_tag()
        self.rs_tags.append(self.tokens[-1])

    def scan_directive(self) -> Any:
        token = super().scan_directive()
        if token.name == "YAML" and tuple(token.value) != (1, 2):
            major, minor = token.value
            mark = token.start_mark
            raise _Problem(f"YAML {major}.{minor} is not supported; remove the %YAML directive",
                           mark.line + 1, mark.column + 1)
        return token

    def fetch_flow_collection_start(self, TokenClass: Any, to_push: Any) -> None:
        super().fetch_flow_collection_start(TokenClass, to_push)
        self.rs_flow.append(self.tokens[-1].start_mark)
        if len(self.rs_flow) > limits.MAX_DEPTH:
            raise _FlowTooDeep(list(self.rs_flow))

    def fetch_flow_collection_end(self, TokenClass: Any) -> None:
        super().fetch_flow_collection_end(TokenClass)
        del self.rs_flow[len(self.flow_context):]


def _tag_refusal(text: str, scanner: _CheckingScanner, fallback_mark: Any) -> tuple:
    """A REFUSE event for the first tag in the text (the first tagged node is refused)."""
    if scanner.rs_tags:
        token = scanner.rs_tags[0]
        start, end = token.start_mark, token.end_mark
        written = text[start.index:end.index]
    else:  # not expected: the scanner sees every tag
        start, written = fallback_mark, "!"
    return (_REFUSE, start.line + 1, start.column + 1, f"tags are not allowed ({written!r})",
            False, False, None)


def _syntax_problem(error: MarkedYAMLError) -> _Problem:
    mark = error.problem_mark or error.context_mark
    problem = error.problem or error.context or "invalid YAML"
    message = " ".join(str(problem).split())
    if error.context and error.problem:
        context = " ".join(str(error.context).split())
        cm = error.context_mark
        if cm is not None and mark is not None and (cm.line, cm.column) != (mark.line, mark.column):
            context += f" at line {cm.line + 1}, column {cm.column + 1}"
        message += f" ({context})"
    if mark is None:
        return _Problem(message, 1, 1)
    return _Problem(message, mark.line + 1, mark.column + 1)


def _yaml_events(text: str):
    """Events from ruamel.yaml's parser, with tags and extra documents refused."""
    yaml = YAML(typ="safe", pure=True)
    yaml.Scanner = _CheckingScanner
    stream = yaml.parse(text)
    documents = 0
    try:
        while True:
            try:
                event = next(stream)
            except StopIteration:
                return
            except MarkedYAMLError as error:
                if str(error.problem or "").startswith("found undefined tag handle"):
                    yield _tag_refusal(text, yaml.scanner, error.problem_mark)
                raise _syntax_problem(error) from None
            except YAMLError as error:  # not expected once the text has been checked
                first = (str(error).splitlines() or ["invalid YAML"])[0]
                raise _Problem(first, 1, 1) from None
            cls = type(event)
            mark = event.start_mark
            if cls is ScalarEvent:
                if event.ctag is not None:
                    yield _tag_refusal(text, yaml.scanner, mark)
                plain = event.style is None
                empty = (plain and not event.value and event.anchor is None
                         and mark.index == event.end_mark.index)
                yield (_SCALAR, mark.line + 1, mark.column + 1, event.value, plain, empty,
                       event.anchor)
            elif cls is MappingEndEvent or cls is SequenceEndEvent:
                yield (_END, mark.line + 1, mark.column + 1, None, False, False, None)
            elif cls is MappingStartEvent or cls is SequenceStartEvent:
                if event.ctag is not None:
                    yield _tag_refusal(text, yaml.scanner, mark)
                yield (_MAP if cls is MappingStartEvent else _SEQ, mark.line + 1, mark.column + 1,
                       None, bool(event.flow_style), False, event.anchor)
            elif cls is AliasEvent:
                yield (_ALIAS, mark.line + 1, mark.column + 1, None, False, False, event.anchor)
            elif cls is DocumentStartEvent:
                documents += 1
                if documents > 1:
                    raise _Problem("only one YAML document is allowed in a file",
                                   mark.line + 1, mark.column + 1)
            elif cls is StreamEndEvent:
                return
    finally:
        stream.close()


# ------------------------------------------------------------------ the quick reader
#
# It reads block mappings and sequences written one entry a line, single-line plain
# and quoted scalars, literal and folded block scalars, flow collections (also nested,
# and over several lines when broken at commas or brackets), and anchors and aliases
# on values.  Whenever it meets anything else it gives up (``_Unsupported``) and the
# full parser reads the whole text again, so it never has to judge an error or an
# unusual construct itself.

_KEY_PLAIN = re.compile(r"([^\s\-?:,\[\]{}#&*!|>'\"%@`][^:#,\[\]{}]*?) *:(?: +|$)")
_AFTER_QUOTED_KEY = re.compile(r" *:(?: +|$)")
_REST = re.compile(r"(?: +#.*| *)\Z")
_BLOCK_HEADER = re.compile(r"([|>])([-+]?)(?: +#.*| *)\Z")
_FLOW_PLAIN = re.compile(r"(?:[^\s\-?:,\[\]{}#&*!|>'\"%@`]|-[A-Za-z0-9_.(])[^,\[\]{}:#]*")
# Whole lines of the commonest shapes, each read with one match: "key: value", "key:",
# "- value" and "- key: value" with plain keys and values.  The code using them strips
# trailing spaces, takes a "#" as a comment only after a space, and leaves to the general
# code any value containing ": " or ending with ":" and any key over 1000 characters.
_K = r"[^\s\-?:,\[\]{}#&*!|>'\"%@`][^:#,\[\]{}]*"
_V = r"[^\s\-?:,\[\]{}#&*!|>'\"%@`][^#]*"
_LINE_PAIR = re.compile(rf"({_K}): +({_V})(#.*)?\Z")
_LINE_KEY = re.compile(rf"({_K}):(?: +#.*| *)\Z")
_ITEM_PAIR = re.compile(rf"- +({_K}): +({_V})(#.*)?\Z")
_ITEM_VALUE = re.compile(rf"- +({_V})(#.*)?\Z")
_ANCHOR = re.compile(r"&([A-Za-z0-9_-]+)(?: +|\Z)")
_ALIAS_NAME = re.compile(r"\*([A-Za-z0-9_-]+)")
_DOC_START = re.compile(r"---(?: +#.*| *)\Z")
_ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
    "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
    "L": "\u2028", "P": "\u2029",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
_HEX = frozenset("0123456789abcdefABCDEF")
_PLAIN_BAD_START = frozenset("-?:,[]{}#&*!|>'\"%@`")
_DASH_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.(")

# kinds of open block collections
_BMAP, _BSEQ, _ISEQ = 0, 1, 2


def _quoted(s: str, i: int) -> tuple[str, int]:
    """A single-line quoted scalar starting at ``s[i]``; returns (value, index after it)."""
    quote = s[i]
    j = i + 1
    n = len(s)
    if quote == "'":
        parts = []
        while True:
            k = s.find("'", j)
            if k < 0:
                raise _Unsupported
            parts.append(s[j:k])
            if k + 1 < n and s[k + 1] == "'":
                parts.append("'")
                j = k + 2
                continue
            return "".join(parts), k + 1
    k = s.find('"', j)
    if k < 0:
        raise _Unsupported
    if "\\" not in s[j:k]:
        return s[j:k], k + 1
    out = []
    while j < n:
        ch = s[j]
        if ch == '"':
            return "".join(out), j + 1
        if ch != "\\":
            out.append(ch)
            j += 1
            continue
        if j + 1 >= n:
            raise _Unsupported
        code = s[j + 1]
        if code in _ESCAPES:
            out.append(_ESCAPES[code])
            j += 2
        elif code in _HEX_ESCAPES:
            width = _HEX_ESCAPES[code]
            digits = s[j + 2:j + 2 + width]
            if len(digits) != width or not all(c in _HEX for c in digits):
                raise _Unsupported
            point = int(digits, 16)
            if 0xD800 <= point <= 0xDFFF or point > 0x10FFFF:
                raise _Unsupported
            out.append(chr(point))
            j += 2 + width
        else:
            raise _Unsupported
    raise _Unsupported


def _quick_events(text: str) -> list[tuple]:
    """Events for the common block style, or ``_Unsupported`` for anything else."""
    if "\t" in text or "\x85" in text or "\u2028" in text or "\u2029" in text or "\ufeff" in text:
        raise _Unsupported
    lines = text.split("\n")
    if "\r" in text:
        if text.count("\r") != text.count("\r\n"):
            raise _Unsupported  # a lone carriage return
        lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    ends_with_break = len(lines) > 1 and lines[-1] == ""
    if ends_with_break:
        lines.pop()
    total = len(lines)

    out: list[tuple] = []
    emit = out.append
    stack: list[list] = []  # open block collections: [kind, indent]
    pending = None          # (kind, line, col, indent) of a "key:" or "-" with its value below
    check = -1              # after a value on its own line, no later line may be indented more
    marker = False          # a "---" was read
    end_event = (_END, 0, 0, None, False, False, None)
    line_pair = _LINE_PAIR.match
    line_key = _LINE_KEY.match
    item_pair = _ITEM_PAIR.match
    item_value = _ITEM_VALUE.match

    def inline_value(s: str, c: int, lineno: int, holder: int, i: int, anchor=None) -> int:
        """Emit the value written at ``s[c:]`` (not empty), which has ``anchor`` (its name
        and column) if not None; return the next line to read."""
        nonlocal check
        first = s[c]
        name, col = anchor if anchor is not None else (None, c + 1)
        if first == "*":
            m = _ALIAS_NAME.match(s, c)
            if anchor is not None or m is None or not _REST.match(s, m.end()):
                raise _Unsupported
            emit((_ALIAS, lineno, c + 1, None, False, False, m.group(1)))
        elif first == '"' or first == "'":
            value, end = _quoted(s, c)
            if not _REST.match(s, end):
                raise _Unsupported
            emit((_SCALAR, lineno, col, value, False, False, name))
        elif first == "[" or first == "{":
            i, end = _flow(lines, i, c, holder, emit, anchor)
            if not _REST.match(lines[i], end):
                raise _Unsupported
        elif first == "|" or first == ">":
            return block_scalar(s, c, lineno, holder, i, anchor)
        else:
            if first in _PLAIN_BAD_START and not (first == "-" and s[c + 1:c + 2] in _DASH_START):
                raise _Unsupported
            rest = s[c:]
            cut = rest.find(" #")
            if cut >= 0:
                rest = rest[:cut]
            rest = rest.rstrip(" ")
            if ": " in rest or rest.endswith(":"):
                raise _Unsupported
            emit((_SCALAR, lineno, col, rest, True, False, name))
        check = holder
        return i + 1

    def block_scalar(s: str, c: int, lineno: int, holder: int, i: int, anchor) -> int:
        header = _BLOCK_HEADER.match(s, c)
        if header is None:
            raise _Unsupported
        folded = header.group(1) == ">"
        chomp = header.group(2)
        j = i + 1
        indent = -1
        body: list[str | None] = []
        while j < total:
            ln = lines[j]
            stripped = ln.lstrip(" ")
            if not stripped:
                # Blank lines before the first content line must be empty (the parser
                # refuses some with spaces); later ones may not reach into the content.
                if (indent < 0 and ln) or (indent >= 0 and len(ln) > indent):
                    raise _Unsupported
                body.append(None)
                j += 1
                continue
            width = len(ln) - len(stripped)
            if indent < 0:
                if width <= holder:
                    raise _Unsupported  # an empty block scalar
                indent = width
            if width < indent:
                break
            body.append(ln[indent:])
            j += 1
        if indent < 0 or (j == total and not ends_with_break):
            raise _Unsupported
        lead = 0
        while body[lead] is None:
            lead += 1
        last = len(body) - 1
        while body[last] is None:
            last -= 1
        trail = len(body) - 1 - last
        content = body[lead:last + 1]
        if folded:
            pieces: list[str] = []
            gap = 0
            for piece in content:
                if piece is None:
                    gap += 1
                    continue
                if piece[0] == " ":
                    raise _Unsupported  # a more indented line keeps its breaks
                if pieces:
                    pieces.append(" " if gap == 0 else "\n" * gap)
                pieces.append(piece)
                gap = 0
            value = "".join(pieces)
        else:
            value = "\n".join("" if piece is None else piece for piece in content)
        value = "\n" * lead + value
        if chomp == "":
            value += "\n"
        elif chomp == "+":
            value += "\n" * (trail + 1)
        name, col = anchor if anchor is not None else (None, c + 1)
        emit((_SCALAR, lineno, col, value, False, False, name))
        return j

    def key_at(s: str, c: int) -> tuple[str, bool, int] | None:
        """A mapping key at ``s[c:]``: (text, plain, index of its value), or None."""
        first = s[c]
        if first == '"' or first == "'":
            try:
                value, end = _quoted(s, c)
            except _Unsupported:
                return None
            m = _AFTER_QUOTED_KEY.match(s, end)
            if m is None:
                return None
            if end - c > 1000:
                raise _Unsupported  # longer than a YAML simple key may be
            return value, False, m.end()
        m = _KEY_PLAIN.match(s, c)
        if m is None:
            return None
        if m.end(1) - c > 1000:
            raise _Unsupported
        return m.group(1), True, m.end()

    def mapping_entry(s: str, c: int, lineno: int, i: int) -> int:
        """Emit the key and value of the entry at ``s[c:]`` in a mapping indented ``c``."""
        nonlocal pending
        found = key_at(s, c)
        if found is None:
            raise _Unsupported
        name, plain, vstart = found
        emit((_SCALAR, lineno, c + 1, name, plain, False, None))
        anchor = None
        if vstart < len(s) and s[vstart] == "&":
            m = _ANCHOR.match(s, vstart)
            if m is None:
                raise _Unsupported
            anchor = (m.group(1), vstart + 1)
            vstart = m.end()
        if vstart >= len(s) or s[vstart] == "#":
            pending = (_BMAP, lineno, c + 1, c, None if anchor is None else (anchor[0], lineno, anchor[1]))
            return i + 1
        return inline_value(s, vstart, lineno, c, i, anchor)

    i = 0
    while i < total:
        ln = lines[i]
        s = ln.lstrip(" ")
        if not s:
            i += 1
            continue
        if s[0] == "#":  # a comment line, wherever it is indented
            i += 1
            continue
        n = len(ln) - len(s)
        if check >= 0:
            if n > check:
                raise _Unsupported  # a continuation line or a misplaced block
            check = -1
        lineno = i + 1
        if n == 0 and (s[0] == "%" or s.startswith("---") or s.startswith("...")):
            if not out and not marker and _DOC_START.match(s):
                marker = True  # the "---" that may open the document
                i += 1
                continue
            raise _Unsupported
        is_entry = s[0] == "-" and (len(s) == 1 or s[1] == " ")

        if pending is not None:
            pkind, pline, pcol, pindent, panchor = pending
            pending = None
            # an anchored collection starts at its anchor
            name, aline, acol = panchor if panchor is not None else (None, lineno, n + 1)
            if n > pindent:
                if is_entry:
                    emit((_SEQ, aline, acol, None, False, False, name))
                    stack.append([_BSEQ, n])
                elif key_at(ln, n) is not None:
                    emit((_MAP, aline, acol, None, False, False, name))
                    stack.append([_BMAP, n])
                else:
                    raise _Unsupported
            elif pkind == _BMAP and n == pindent and is_entry:
                emit((_SEQ, aline, acol, None, False, False, name))
                stack.append([_ISEQ, n])
            elif pkind == _BMAP and panchor is None:
                emit((_SCALAR, pline, pcol, "", True, True, None))
            else:
                raise _Unsupported  # an empty sequence item, or an anchored empty value
        elif not stack:
            if out:
                raise _Unsupported
            if s[0] == "{":  # the whole document is one flow mapping (JSON, say)
                i, end = _flow(lines, i, n, -1, emit)
                if not _REST.match(lines[i], end):
                    raise _Unsupported
                for ln in lines[i + 1:]:
                    rest = ln.lstrip(" ")
                    if rest and rest[0] != "#":
                        raise _Unsupported
                return out
            if key_at(ln, n) is None:
                raise _Unsupported
            emit((_MAP, lineno, n + 1, None, False, False, None))
            stack.append([_BMAP, n])

        top = stack[-1]
        while top[1] > n or (top[1] == n and top[0] == _ISEQ and not is_entry):
            stack.pop()
            emit(end_event)
            if not stack:
                raise _Unsupported
            top = stack[-1]
        if top[1] != n:
            raise _Unsupported

        if top[0] == _BMAP:
            if is_entry:
                raise _Unsupported
            m = line_pair(ln, n)
            if m is not None:
                value = m.group(2)
                if m.group(3) is None or value[-1] == " ":
                    value = value.rstrip(" ")
                    name = m.group(1).rstrip(" ")
                    if ": " not in value and value[-1] != ":" and len(name) <= 1000:
                        emit((_SCALAR, lineno, n + 1, name, True, False, None))
                        emit((_SCALAR, lineno, m.start(2) + 1, value, True, False, None))
                        check = n
                        i += 1
                        continue
            m = line_key(ln, n)
            if m is not None:
                name = m.group(1).rstrip(" ")
                if len(name) <= 1000:
                    emit((_SCALAR, lineno, n + 1, name, True, False, None))
                    pending = (_BMAP, lineno, n + 1, n, None)
                    i += 1
                    continue
            i = mapping_entry(ln, n, lineno, i)
            continue

        if not is_entry:
            raise _Unsupported
        m = item_value(ln, n)
        if m is not None:
            value = m.group(1)
            if m.group(2) is None or value[-1] == " ":
                value = value.rstrip(" ")
                if ": " not in value and value[-1] != ":":
                    emit((_SCALAR, lineno, m.start(1) + 1, value, True, False, None))
                    check = n
                    i += 1
                    continue
        m = item_pair(ln, n)
        if m is not None:
            value = m.group(2)
            if m.group(3) is None or value[-1] == " ":
                value = value.rstrip(" ")
                name = m.group(1).rstrip(" ")
                if ": " not in value and value[-1] != ":" and len(name) <= 1000:
                    c = m.start(1)
                    emit((_MAP, lineno, c + 1, None, False, False, None))
                    stack.append([_BMAP, c])
                    emit((_SCALAR, lineno, c + 1, name, True, False, None))
                    emit((_SCALAR, lineno, m.start(2) + 1, value, True, False, None))
                    check = c
                    i += 1
                    continue
        c = n + 1
        size = len(ln)
        while c < size and ln[c] == " ":
            c += 1
        anchor = None
        if c < size and ln[c] == "&":
            m = _ANCHOR.match(ln, c)
            if m is None:
                raise _Unsupported
            anchor = (m.group(1), c + 1)
            c = m.end()
        if c >= size or ln[c] == "#":
            pending = (_BSEQ, lineno, c + 1, n, None if anchor is None else (anchor[0], lineno, anchor[1]))
            i += 1
            continue
        if ln[c] == "-" and (c + 1 == size or ln[c + 1] == " "):
            raise _Unsupported  # a sequence directly in a sequence item
        if key_at(ln, c) is not None:
            if anchor is not None:
                raise _Unsupported  # the anchor would name the first key
            emit((_MAP, lineno, c + 1, None, False, False, None))
            stack.append([_BMAP, c])
            i = mapping_entry(ln, c, lineno, i)
            continue
        i = inline_value(ln, c, lineno, n, i, anchor)

    if pending is not None:
        if pending[0] != _BMAP or pending[4] is not None:
            raise _Unsupported
        emit((_SCALAR, pending[1], pending[2], "", True, True, None))
    if not out:
        raise _Unsupported
    for _ in stack:
        emit(end_event)
    return out


def _flow(lines: list[str], i: int, k: int, holder: int, emit, anchor=None) -> tuple[int, int]:
    """Flow collections starting at ``lines[i][k]``, nested or not.

    Entries are scalars, aliases or flow collections, each perhaps with an anchor; a
    mapping's keys are scalars followed by ": " on the same line; a comma may follow the
    last entry.  A collection may go on over several lines, broken after an opening
    bracket, after a comma, or after an entry when the next line starts with a comma or
    a closing bracket; those lines are indented past ``holder``.  ``anchor`` (a name and
    a column) is that of the outermost collection.  Returns the line and the index just
    after the outermost closing bracket.
    """
    s = lines[i]
    n = len(s)
    open_maps: list[bool] = []  # for each open collection: is it a mapping?

    def gap(i: int, k: int) -> tuple[int, int, str, int]:
        """Skip spaces, an end-of-line comment and line breaks: (line, index, text, size)."""
        s = lines[i]
        n = len(s)
        while k < n and s[k] == " ":
            k += 1
        if k < n and not (s[k] == "#" and s[k - 1] == " "):
            return i, k, s, n
        while True:
            i += 1
            if i >= len(lines):
                raise _Unsupported
            s = lines[i]
            rest = s.lstrip(" ")
            if not rest:
                continue
            k = len(s) - len(rest)
            if k <= holder:
                raise _Unsupported
            if rest[0] != "#":
                return i, k, s, len(s)

    def key(i: int, k: int) -> tuple[int, int, str, int]:
        """A mapping key at ``lines[i][k]`` and the ": " after it."""
        start = k
        k = _flow_scalar(s, k, i + 1, emit)
        if k - start > 1000 or k + 1 >= n or s[k] != ":" or s[k + 1] != " ":
            raise _Unsupported
        return i, k + 2, s, n

    while True:
        # here an entry (or, first thing in a collection, its closing bracket) comes next
        while k < n and s[k] == " ":
            k += 1
        if k >= n:
            raise _Unsupported
        ch = s[k]
        if ch == "&":
            m = _ANCHOR.match(s, k)
            if anchor is not None or m is None or m.end() >= n:
                raise _Unsupported
            anchor = (m.group(1), k + 1)
            k = m.end()
            ch = s[k]
        name, col = anchor if anchor is not None else (None, k + 1)
        anchor = None
        if ch == "[" or ch == "{":
            if len(open_maps) >= limits.MAX_DEPTH:
                raise _Unsupported  # deeper than allowed: the full parser reports it
            is_map = ch == "{"
            emit((_MAP if is_map else _SEQ, i + 1, col, None, True, False, name))
            open_maps.append(is_map)
            i, k, s, n = gap(i, k + 1)
            if s[k] != ("}" if is_map else "]"):
                if is_map:
                    i, k, s, n = key(i, k)
                continue
        elif ch == "*":
            m = _ALIAS_NAME.match(s, k)
            if name is not None or m is None:
                raise _Unsupported
            emit((_ALIAS, i + 1, k + 1, None, False, False, m.group(1)))
            k = m.end()
        else:
            k = _flow_scalar(s, k, i + 1, emit, name, col)
        # after an entry: a comma and the next entry, or closing brackets
        while True:
            i, k, s, n = gap(i, k)
            ch = s[k]
            is_map = open_maps[-1]
            if ch == ",":
                i, k, s, n = gap(i, k + 1)
                if s[k] == ("}" if is_map else "]"):
                    continue  # a comma after the last entry
                if s[k] in "]},":
                    raise _Unsupported  # an empty entry
                if is_map:
                    i, k, s, n = key(i, k)
                break
            if ch != ("}" if is_map else "]"):
                raise _Unsupported
            emit((_END, i + 1, k + 1, None, False, False, None))
            open_maps.pop()
            k += 1
            if not open_maps:
                return i, k


def _flow_scalar(s: str, k: int, lineno: int, emit, name: str | None = None,
                 col: int | None = None) -> int:
    """A quoted or plain scalar at ``s[k]`` inside a flow collection (with the anchor
    ``name`` written at column ``col``, if any); returns the index after it and the
    spaces that follow."""
    n = len(s)
    while k < n and s[k] == " ":
        k += 1
    if k >= n:
        raise _Unsupported
    if col is None:
        col = k + 1
    ch = s[k]
    if ch == '"' or ch == "'":
        value, end = _quoted(s, k)
        emit((_SCALAR, lineno, col, value, False, False, name))
    else:
        m = _FLOW_PLAIN.match(s, k)
        if m is None:
            raise _Unsupported
        value = m.group().rstrip(" ")
        emit((_SCALAR, lineno, col, value, True, False, name))
        end = m.end()
    while end < n and s[end] == " ":
        end += 1
    return end


# ------------------------------------------------------------------------ loading


def _load(text: str, file: str, quick: bool = True) -> Document:
    text = _check_text(text, file)
    # Loading makes many small objects and no reference cycles, so the cycle collector
    # would only slow it down (by a third on a large file); it is paused meanwhile.
    collecting = gc.isenabled()
    gc.disable()
    try:
        if quick:
            try:
                events = _quick_events(text)
            except _Unsupported:
                pass
            else:
                return _build(events, file, text)
        return _build(_yaml_events(text), file, text)
    finally:
        if collecting:
            gc.enable()


def load_text(text: str | bytes, file: str = "<string>") -> Document:
    """Load a ruleset from text (or from UTF-8 bytes); ``file`` names it in messages."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        text = _decode(bytes(text), file)
    else:
        if 4 * len(text) > limits.MAX_FILE_BYTES:  # else it is surely small enough
            size = len(text.encode("utf-8", "surrogatepass"))
            if size > limits.MAX_FILE_BYTES:
                raise _too_big(size, file)
    return _load(text, file)


def load_file(path: str | os.PathLike, display_name: str | None = None) -> Document:
    """Load a ruleset file; ``display_name`` (default: the path as given) names it in messages."""
    file = display_name if display_name is not None else os.fsdecode(path)
    limit = limits.MAX_FILE_BYTES
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > limit:
                raise _too_big(size, file)
            data = handle.read(limit + 1)
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        raise RulesetLoadError(f"cannot read the file: {reason}", where=Location(file, 0, 0, "$")) from None
    if len(data) > limit:
        raise _fail(f"file is more than {limit} bytes; the limit is {limit}", file, 1, 1)
    return _load(_decode(data, file), file)
