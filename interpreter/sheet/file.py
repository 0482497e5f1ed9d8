"""Character sheets on disk: read one, change a few values, write it back looking the same.

The bytes are read once and loaded twice: by the safe loader (all its checks; ``doc.where``)
and by ruamel.yaml's round-trip loader, whose tree ``set`` edits.  The new text is, best first:
the old text with each changed scalar rewritten where it stands (when only scalars changed); a
three-way merge putting only the lines ruamel.yaml's output changed into the old text (ruamel
normalises some text, such as ``~`` and comments above ``---``); ruamel's whole output.  The
first that loads again to exactly the expected values is used.  Writes are atomic and keep one
``<name>.bak``; ``transaction`` holds an ``fcntl.flock`` on ``.<name>.lock`` from the read until
after the write.  POSIX only (``fcntl``, directory fsync).
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import fcntl
import io
import json
import math
import os
import re
import secrets
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import AliasEvent, CollectionEndEvent, CollectionStartEvent, MappingStartEvent, ScalarEvent
from ruamel.yaml.scalarstring import ScalarString

from interpreter import limits
from interpreter.errors import Location, RulesError, RulesetLoadError
from interpreter.load.yaml_loader import Document, load_text

__all__ = ["SLOW_WRITE_ENV", "SheetFile", "SheetPath", "new_sheet", "transaction"]

SheetPath = tuple[str | int, ...]
SLOW_WRITE_ENV = "RULESMITH_TEST_SLOW_WRITE"  # test hook: seconds to pause inside each write
_MISSING: Any = object()
_PLAIN = re.compile(r"[^\W\d_][\w .'/()+-]*(?<! )")  # strings safe to write unquoted anywhere


class SheetFile:
    """One character sheet as read from disk, with the changes made to it so far."""

    path: Path
    data: Any
    doc: Document

    def __init__(self, path: Path, raw: bytes, doc: Document, tree: CommentedMap, yaml: YAML):
        self.path, self.data, self.doc = path, doc.data, doc
        self._real = Path(os.path.realpath(path))
        self._on_disk = raw  # the bytes the file holds: as read, then as last written
        self._bom = "\ufeff" if raw.startswith(b"\xef\xbb\xbf") else ""
        self._text = raw.decode("utf-8")[len(self._bom):]
        self._tree, self._yaml = tree, yaml
        self._now = copy.deepcopy(doc.data)  # the plain values with every change applied
        self._base: list[str] | None = None  # ruamel's output before the first change
        self._changes: list[tuple[SheetPath, Any, Any]] = []
        self._rendered: str | None = None
        self._holds_lock = False

    @classmethod
    def read(cls, path: str | os.PathLike) -> SheetFile:
        """Read and check a sheet; a bad one raises RulesetLoadError with FILE:LINE:COL."""
        file = os.fspath(path)
        try:
            with open(path, "rb") as handle:
                raw = handle.read(limits.MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise RulesetLoadError(f"cannot read the sheet: {exc.strerror or exc}", Location(file)) from None
        doc = load_text(raw, file)
        yaml = YAML()
        yaml.preserve_quotes, yaml.width = True, 1 << 20
        yaml.indent(*_indents(doc))
        try:
            tree = yaml.load(raw.decode("utf-8").removeprefix("\ufeff"))
        except YAMLError as exc:
            message = f"cannot edit this sheet: {str(exc).splitlines()[0]}"
            raise RulesetLoadError(message, Location(file, 1, 1)) from None
        return cls(Path(path), raw, doc, tree, yaml)

    def get(self, path: SheetPath, default: Any = None) -> Any:
        """The value at ``path`` with the changes made so far, or ``default`` when there is none."""
        node = self._now
        for step in path:
            node = _child(node, step)
            if node is _MISSING:
                return default
        return copy.deepcopy(node)

    def set(self, path: SheetPath, value: Any) -> None:
        """Change the value at ``path``, or add it when only its last mapping key is missing."""
        path = tuple(path)
        try:
            _check_value(value)
            parent, tree = self._now, self._tree
            for step in path[:-1]:
                parent, tree = _child(parent, step), _child(tree, step)
            old = _child(parent, path[-1]) if path else _MISSING
            addable = bool(path) and isinstance(parent, dict) and isinstance(path[-1], str)
            if tree is _MISSING or old is _MISSING and not addable:
                raise RulesError("no such value in the sheet (only a missing mapping key can be added)")
        except RulesError as exc:
            raise exc.located(self.doc.where(path)) from None
        if self._base is None:
            self._base = self._dump()
        parent[path[-1]] = copy.deepcopy(value)
        _assign(tree, _tree_key(tree, path[-1]), value)
        self._changes.append((path, None if old is _MISSING else copy.deepcopy(old), copy.deepcopy(value)))
        self._rendered = None

    def changes(self) -> list[tuple[SheetPath, Any, Any]]:
        """Each change set() made, in order, as (path, old value or None, new value)."""
        return copy.deepcopy(self._changes)

    def render(self) -> str:
        """The sheet's new text: the text as read with only the changed values rewritten."""
        if not self._changes:
            return self._text
        if self._rendered is None:
            expected = json.dumps(self._now, sort_keys=True)
            # best first: scalars rewritten in place, a merge of ruamel's edits, ruamel's whole output
            for make in (self._spliced, self._merged, lambda: self._crlf("".join(self._dump()))):
                text = make()
                with contextlib.suppress(RulesError):
                    if text is not None and json.dumps(load_text(text, str(self.path)).data, sort_keys=True) == expected:
                        self._rendered = text
                        break
            else:
                raise RulesError(f"{self.path}: the changed sheet would not hold the expected values "
                                 "(is a changed value shared through an anchor?); nothing was written")
        return self._rendered

    def _spliced(self) -> str | None:
        """The text as read with each changed scalar rewritten where it is, if only scalars changed."""
        edits, spans, text = _scalar_edits(self.data, self._now, ()), _scalar_spans(self._text), self._text
        if edits is None or any(path not in spans for path, _ in edits):
            return None
        for path, value in sorted(edits, key=lambda edit: -spans[edit[0]][0]):  # from the end backwards
            start, end, style = spans[path]
            new = _scalar_text(value, style, start < end)
            if new is None:
                return None
            text = text[:start] + new + text[end:]
        return text

    def _merged(self) -> str:
        """The text as read with the lines ruamel.yaml's output changed, merged in."""
        assert self._base is not None
        ours = self._text.replace("\r\n", "\n")
        merged = "".join(_merge(ours.splitlines(True), self._base, self._dump()))
        return self._crlf(merged if ours.endswith("\n") or not ours else merged.removesuffix("\n"))

    def _crlf(self, text: str) -> str:
        return text.replace("\n", "\r\n") if "\r\n" in self._text else text

    def diff(self) -> str:
        """A unified diff from the text as read to the text render() gives."""
        old, new = ([line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                     for line in text.splitlines(keepends=True)] for text in (self._text, self.render()))
        return "".join(difflib.unified_diff(old, new, str(self.path), str(self.path)))

    def write(self) -> None:
        """Write the changes back atomically (if there are any), keeping the old text in ``<name>.bak``."""
        if not self._changes:
            return
        new = (self._bom + self.render()).encode("utf-8")
        with contextlib.nullcontext() if self._holds_lock else _locked(self._real):
            try:
                with open(self._real, "rb") as handle:
                    current, mode = handle.read(), os.fstat(handle.fileno()).st_mode & 0o7777
            except OSError as exc:
                raise RulesError(f"{self.path}: cannot read the sheet again: {exc.strerror or exc}") from None
            if current != self._on_disk:
                raise RulesError(f"{self.path}: the sheet changed on disk since it was read; nothing was written")
            _atomic_write(self._real.with_name(self._real.name + ".bak"), current, mode)
            _atomic_write(self._real, new, mode, slow=True)
        self._on_disk = new

    def _dump(self) -> list[str]:
        out = io.StringIO()
        self._yaml.dump(self._tree, out)
        return out.getvalue().splitlines(keepends=True)


@contextlib.contextmanager
def transaction(path: str | os.PathLike) -> Iterator[SheetFile]:
    """Lock the sheet, read it and yield it (the caller may write()), then release the lock."""
    with _locked(Path(os.path.realpath(path))):
        sheet = SheetFile.read(path)
        sheet._holds_lock = True
        try:
            yield sheet
        finally:
            sheet._holds_lock = False  # a sheet used after its transaction locks on its own


def new_sheet(path: str | os.PathLike, text: str) -> None:
    """Create a sheet holding ``text`` (which must load), refusing if the file already exists."""
    load_text(text, os.fspath(path))
    real = Path(os.path.realpath(path))
    with _locked(real):
        _atomic_write(real, text.encode("utf-8"), None)


def _tree_key(node: Any, step: Any) -> Any:
    """The key in ruamel's tree for a step of a plain path (the plain key "1" is written ``1:``)."""
    if isinstance(node, CommentedMap) and step not in node:
        return next((k for k in node if not isinstance(k, str) and str(k) == step), step)
    return step


def _child(node: Any, step: Any) -> Any:
    if isinstance(node, dict) and isinstance(step, str):
        return node.get(_tree_key(node, step), _MISSING)
    if isinstance(node, list) and isinstance(step, int) and not isinstance(step, bool) and 0 <= step < len(node):
        return node[step]
    return _MISSING


def _check_value(value: Any, depth: int = 0) -> None:
    """Refuse what a sheet cannot hold: only str-keyed dicts, lists, str, int, bool, finite float and None."""
    if depth > limits.MAX_DEPTH:
        raise RulesError("the new value is nested too deeply")
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        for item in value.values():
            _check_value(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_value(item, depth + 1)
    elif not (value is None or isinstance(value, (str, int)) or isinstance(value, float) and math.isfinite(value)):
        raise RulesError(f"a sheet cannot hold the value {value!r}")


def _assign(tree: Any, key: Any, value: Any) -> None:
    """Put ``value`` at ``tree[key]``, changing collections in place so their comments and styles stay."""
    old = tree.get(key) if isinstance(tree, dict) else tree[key]
    if isinstance(value, dict) and isinstance(old, CommentedMap):
        for k in [k for k in old if str(k) not in value]:
            del old[k]
        for k, item in value.items():
            _assign(old, _tree_key(old, k), item)
    elif isinstance(value, list) and isinstance(old, CommentedSeq):
        for i, item in enumerate(value[: len(old)]):
            _assign(old, i, item)
        while len(old) > len(value):
            del old[len(old) - 1]
        old.extend(_fresh(item, None) for item in value[len(old):])
    else:
        tree[key] = _fresh(value, old)


def _fresh(value: Any, old: Any) -> Any:
    """A ruamel node for a plain value, quoted or flow-styled like the node it replaces."""
    if isinstance(value, str) and isinstance(old, ScalarString):
        return type(old)(value)
    if not isinstance(value, (dict, list)):
        return value
    node: Any = (CommentedMap((k, _fresh(v, None)) for k, v in value.items()) if isinstance(value, dict)
                 else CommentedSeq(_fresh(v, None) for v in value))
    if isinstance(old, (CommentedMap, CommentedSeq)) and old.fa.flow_style():
        node.fa.set_flow_style()
    return node


def _scalar_edits(old: Any, new: Any, path: SheetPath) -> list[tuple[SheetPath, Any]] | None:
    """The scalars that differ between two values, or None if their shapes (keys, lengths) differ."""
    if isinstance(old, dict) and isinstance(new, dict) and list(old) == list(new):
        parts = [_scalar_edits(old[k], new[k], path + (k,)) for k in old]
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        parts = [_scalar_edits(o, n, path + (i,)) for i, (o, n) in enumerate(zip(old, new))]
    elif isinstance(old, (dict, list)) or isinstance(new, (dict, list)):
        return None
    else:
        return [] if type(old) is type(new) and old == new else [(path, new)]
    return None if None in parts else [edit for part in parts if part for edit in part]


def _scalar_spans(text: str) -> dict[SheetPath, tuple[int, int, str | None]]:
    """Where each scalar value is written: start and end offsets and quoting style, by path."""
    spans: dict[SheetPath, tuple[int, int, str | None]] = {}
    stack: list[list[Any]] = []  # per open collection: [is mapping, path, key or index, a key comes next]
    for event in YAML().parse(text):
        if not isinstance(event, (ScalarEvent, AliasEvent, CollectionStartEvent)):
            stack = stack[:-1] if isinstance(event, CollectionEndEvent) else stack
            continue
        path: SheetPath = ()
        if stack:
            top = stack[-1]
            if top[0] and top[3]:  # a key: remember it, and where it ends
                top[2:] = [getattr(event, "value", None), False, event.end_mark.index]
                continue
            path = top[1] + (top[2],)
            top[2:4] = [top[2], True] if top[0] else [top[2] + 1, False]
        if isinstance(event, ScalarEvent):
            start, end, style = event.start_mark.index, event.end_mark.index, event.style
            if start == end:  # an empty value ("key:" and nothing) is written just after the colon
                after = stack[-1][4] if stack and stack[-1][0] else -1
                start = end = after + 1
                style = style if text[after:after + 1] == ":" else "|"  # else: not in place
            spans[path] = (start, end, style)
        elif isinstance(event, CollectionStartEvent):
            is_map = isinstance(event, MappingStartEvent)
            stack.append([is_map, path, None if is_map else 0, True, 0])
    return spans


def _scalar_text(value: Any, style: str | None, written: bool) -> str | None:
    """How to write a new scalar in place of one written with ``style`` (None: plain, or empty)."""
    if style in ("|", ">"):
        return None
    if not isinstance(value, str):
        text = json.dumps(value)  # null, true, false and numbers are written as in JSON
    elif style == "'" and value.isprintable():
        text = "'" + value.replace("'", "''") + "'"
    elif style is None and _PLAIN.fullmatch(value) and value.lower() not in ("true", "false", "null"):
        text = value
    else:
        text = json.dumps(value, ensure_ascii=False)  # a JSON string is a YAML double-quoted one
    return text if written else " " + text


def _indents(doc: Document) -> tuple[int, int, int]:
    """The mapping indent, sequence indent and dash offset most used by the sheet's block collections."""
    maps: Counter[int] = Counter()
    seqs: Counter[tuple[int, int]] = Counter()

    def walk(node: Any, path: SheetPath) -> None:
        for step, value in node.items() if isinstance(node, dict) else enumerate(node):
            here = path + (step,)
            if not isinstance(value, (dict, list)):
                continue
            key, start = doc.where(here, key=True), doc.where(here)
            if isinstance(node, dict) and value and start.line > key.line:  # flow ones start on the key's line
                if isinstance(value, dict) and start.col > key.col:
                    maps[start.col - key.col] += 1
                elif isinstance(value, list) and doc.where(here + (0,)).col >= start.col + 2 >= key.col + 2:
                    seqs[(doc.where(here + (0,)).col - key.col, start.col - key.col)] += 1
            walk(value, here)

    walk(doc.data, ())
    mapping = maps.most_common(1)[0][0] if maps else 2
    sequence, offset = seqs.most_common(1)[0][0] if seqs else (mapping + 2, mapping)
    return mapping, sequence, offset


def _merge(ours: list[str], base: list[str], theirs: list[str]) -> list[str]:
    """Apply the base-to-theirs edits to ours, which differs from base only in layout (a diff3)."""
    def pairs(a: list[str], b: list[str]) -> dict[int, int]:
        """Lines of a paired with lines of b: equal ones, and same-sized replaced blocks line by line."""
        found: dict[int, int] = {}
        for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
            if op == "equal" or (op == "replace" and i2 - i1 == j2 - j1):
                found.update(zip(range(i1, i2), range(j1, j2)))
        return found

    to_ours, to_theirs = pairs(base, ours), pairs(base, theirs)
    anchors = [(b, to_ours[b], to_theirs[b]) for b in range(len(base)) if b in to_ours and b in to_theirs]
    out: list[str] = []
    b0 = o0 = t0 = 0
    for b, o, t in anchors + [(len(base), len(ours), len(theirs))]:
        bc, oc, tc = base[b0:b], ours[o0:o], theirs[t0:t]
        if oc == bc or tc == bc:
            out += tc if oc == bc else oc
        else:  # both differ: keep the lines only ours has (comments ruamel lost), take theirs for the rest
            placed = False
            for op, _, _, j1, j2 in difflib.SequenceMatcher(None, bc, oc, autojunk=False).get_opcodes():
                if op == "insert":
                    out += oc[j1:j2]
                elif not placed:
                    out, placed = out + tc, True
            out += [] if placed else tc
        if b < len(base):
            out.append(ours[o] if theirs[t] == base[b] else theirs[t])
        b0, o0, t0 = b + 1, o + 1, t + 1
    return out


@contextlib.contextmanager
def _locked(real: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``.<name>.lock`` beside the sheet (not on the sheet: its inode is replaced)."""
    try:
        fd = os.open(real.with_name(f".{real.name}.lock"), os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as exc:
        raise RulesError(f"{real}: cannot lock the sheet: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # which releases the lock


def _atomic_write(target: Path, data: bytes, mode: int | None, slow: bool = False) -> None:
    """Write a synced ``.<name>.tmp-<random>`` and rename it over ``target`` (or, with no mode, link it to a new one)."""
    tmp = target.with_name(f".{target.name}.tmp-{secrets.token_hex(8)}")
    pause = float(os.environ.get(SLOW_WRITE_ENV) or 0) if slow else 0.0
    try:
        with open(tmp, "xb") as handle:
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            for piece in (data[: len(data) // 2], data[len(data) // 2:]):
                handle.write(piece)
                handle.flush()
                if pause:  # the test hook: a window to kill the process in, mid-file and before the rename
                    os.fsync(handle.fileno())
                    time.sleep(pause)
            os.fsync(handle.fileno())
        if mode is None:
            os.link(tmp, target)
            os.unlink(tmp)
        else:
            os.replace(tmp, target)
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, FileExistsError) and mode is None:
            raise RulesError(f"{target}: the file already exists; nothing was written") from None
        raise RulesError(f"{target}: cannot write: {exc.strerror or exc}") from None
