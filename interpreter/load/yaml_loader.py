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
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

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

from interpreter import limits
from interpreter.errors import Location, RulesetLoadError

__all__ = ["Document", "Path", "json_path", "load_file", "load_text"]

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
            if isinstance(node, dict) and isinstance(step, str) and step in node or (isinstance(node, list) and isinstance(step, int) and not isinstance(step, bool)
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
    text = text.removeprefix("\ufeff")
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
    __slots__ = ("done", "height", "path", "size", "value")

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
                    deepest = max(deepest, inner)
                else:
                    in_map, box, cpath, depth = False, None, (), 0
                continue

            # --------------------------------------------------- a value
            if in_map:
                assert key is not None  # a key was read just before its value
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
                deepest = max(deepest, depth + target.height)
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


# ------------------------------------------------------------------------ loading


def _load(text: str, file: str, quick: bool = True) -> Document:
    text = _check_text(text, file)
    # Loading makes many small objects and no reference cycles, so the cycle collector
    # would only slow it down (by a third on a large file); it is paused meanwhile.
    collecting = gc.isenabled()
    gc.disable()
    try:
        if quick:
            from interpreter.load.yaml_quick import _quick_events  # imported here: it builds on this module's names

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
