"""Character sheets on disk: read one, change a few values, write it back looking the same.

The bytes are read once and loaded by the safe loader (all its checks; ``doc.where``), and again by
ruamel.yaml's round-trip loader only when a change cannot be written where it stands (its tree is
edited then).  The new text is, best first:
the old text with each changed scalar rewritten where it stands (when only scalars changed), or
ruamel.yaml's round-trip output of the edited tree.  The first that loads again to exactly the
expected values is used.  Writes are atomic (``sheet/storage.py``) and keep one ``<name>.bak``
unless asked not to; a sheet with other hard links is refused (the rename would part it from
them), and a new sheet is never written through a link nor into a folder that does not exist.
``transaction`` holds the sheet's lock from the read until after the write.
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import io
import json
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError
from ruamel.yaml.scalarstring import ScalarString

from interpreter import limits
from interpreter.errors import Location, RulesError, RulesetLoadError
from interpreter.load.document import Document
from interpreter.load.yaml import load_text, read_bytes
from interpreter.sheet.splice import (
    SheetPath,
    document_prefix,
    indents,
    respelled,
    scalar_edits,
    scalar_spans,
    scalar_text,
)
from interpreter.sheet.storage import TEMP_MARK, atomic_write, lock_dir, locked, remove_stale_temporaries

__all__ = ["TEMP_MARK", "SheetFile", "SheetPath", "lock_dir", "new_sheet", "transaction"]

_MISSING: object = object()


class SheetFile:
    """One character sheet as read from disk, with the changes made to it so far."""

    path: Path
    data: Any
    doc: Document

    def __init__(self, path: Path, raw: bytes, doc: Document):
        self.path, self.data, self.doc = path, doc.data, doc
        self._real = Path(os.path.realpath(path))
        self._on_disk = raw  # the bytes the file holds: as read, then as last written
        self._bom = "\ufeff" if raw.startswith(b"\xef\xbb\xbf") else ""
        self._text = raw.decode("utf-8")[len(self._bom):]
        self._edited: tuple[CommentedMap, YAML] | None = None  # ruamel's tree, loaded when a change needs it
        self._now = copy.deepcopy(doc.data)  # the plain values with every change applied
        self._changes: list[tuple[SheetPath, object, object]] = []
        self._rendered: str | None = None
        self._holds_lock = False

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> SheetFile:
        """Read and check a sheet; a bad one raises RulesetLoadError with FILE:LINE:COL."""
        file = os.fspath(path)
        raw = read_bytes(path, file)  # a regular file only: a FIFO is refused, never waited on
        return cls(Path(path), raw, load_text(raw, file))

    def _tree(self) -> tuple[CommentedMap, YAML]:
        """ruamel.yaml's round-trip tree of the text as read, with every change so far made to it.

        It is loaded only when a change cannot be written in place (most changes can): parsing a
        sheet a second time costs as much as the first.
        """
        if self._edited is None:
            yaml = YAML()
            yaml.preserve_quotes, yaml.width = True, 1 << 20
            yaml.indent(*indents(self.doc))
            try:
                tree = yaml.load(self._text)
            except YAMLError as exc:
                message = f"cannot edit this sheet: {str(exc).splitlines()[0]}"
                raise RulesetLoadError(message, Location(self.doc.file, 1, 1)) from None
            for path, _, value in self._changes:
                _edit(tree, path, value)
            self._edited = (tree, yaml)
        return self._edited

    def get(self, path: SheetPath, default: object = None) -> object:
        """The value at ``path`` with the changes made so far, or ``default`` when there is none."""
        node = self._now
        for step in path:
            node = _child(node, step)
            if node is _MISSING:
                return default
        return copy.deepcopy(node)

    def set(self, path: SheetPath, value: object) -> None:
        """Change the value at ``path``, or add it when only its last mapping key is missing."""
        path = tuple(path)
        try:
            _check_value(value)
            parent = self._now
            for step in path[:-1]:
                parent = _child(parent, step)
            old = _child(parent, path[-1]) if path else _MISSING
            addable = bool(path) and isinstance(parent, dict) and isinstance(path[-1], str)
            if parent is _MISSING or old is _MISSING and not addable:
                raise RulesError("no such value in the sheet (only a missing mapping key can be added)")
        except RulesError as exc:
            raise exc.located(self.doc.where(path)) from None
        parent[path[-1]] = copy.deepcopy(value)
        if self._edited is not None:
            _edit(self._edited[0], path, value)
        self._changes.append((path, None if old is _MISSING else copy.deepcopy(old), copy.deepcopy(value)))
        self._rendered = None

    def changes(self) -> list[tuple[SheetPath, object, object]]:
        """Each change set() made, in order, as (path, old value or None, new value)."""
        return copy.deepcopy(self._changes)

    def render(self) -> str:
        """The sheet's new text: the text as read with only the changed values rewritten."""
        if not self._changes:
            return self._text
        if self._rendered is None:
            expected = json.dumps(self._now, sort_keys=True)
            # best first: scalars rewritten in place, ruamel's output as the text spelt it, ruamel's output
            for make in (self._spliced, lambda: self._dumped(True), lambda: self._dumped(False)):
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
        edits, spans, text = scalar_edits(self.data, self._now, ()), scalar_spans(self._text), self._text
        if edits is None or any(path not in spans for path, _ in edits):
            return None
        for path, value in sorted(edits, key=lambda edit: -spans[edit[0]][0]):  # from the end backwards
            start, end, style = spans[path]
            new = scalar_text(value, style, start < end)
            if new is None:
                return None
            text = text[:start] + new + text[end:]
        return text

    def _dumped(self, as_written: bool) -> str:
        """ruamel.yaml's round-trip output of the edited tree, with the sheet's line ends.

        ``as_written`` puts back what ruamel normalises: the lines up to an explicit ``---`` (it
        drops comments above it) and the spelling of unchanged scalars (``~``, ``True``, ``0x1F``).
        """
        out = io.StringIO()
        tree, yaml = self._tree()
        yaml.dump(tree, out)
        text, old = out.getvalue(), self._text.replace("\r\n", "\n")
        if as_written:
            text = document_prefix(old) + respelled(text, old, self.data, self._now)
        return text.replace("\n", "\r\n") if "\r\n" in self._text else text

    def diff(self) -> str:
        """A unified diff from the text as read to the text render() gives."""
        old, new = ([line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                     for line in text.splitlines(keepends=True)] for text in (self._text, self.render()))
        return "".join(difflib.unified_diff(old, new, str(self.path), str(self.path)))

    def write(self, backup: bool = True) -> None:
        """Write the changes back atomically (if there are any), keeping the old text in ``<name>.bak``."""
        if not self._changes:
            return
        new = (self._bom + self.render()).encode("utf-8")
        with contextlib.nullcontext() if self._holds_lock else locked(self._real):
            try:
                with open(self._real, "rb") as handle:
                    info = os.fstat(handle.fileno())
                    current, mode = handle.read(), info.st_mode & 0o7777
            except OSError as exc:
                raise RulesError(f"{self.path}: cannot read the sheet again: {exc.strerror or exc}") from None
            if current != self._on_disk:
                raise RulesError(f"{self.path}: the sheet changed on disk since it was read; nothing was written")
            if info.st_nlink > 1:  # a new file renamed over it would split it from its other names
                raise RulesError(f"{self.path}: the sheet has {info.st_nlink} hard links; writing it would part it "
                                 "from the others, so nothing was written",
                                 hint="make it a file of its own (cp it, then rm the link) to let rules change it")
            if not mode & 0o222 or not os.access(self._real, os.W_OK):
                raise RulesError(f"{self.path}: the sheet is read-only (mode {mode:04o}); nothing was written",
                                 hint="make it writable (chmod u+w) to let rules change it")
            remove_stale_temporaries(self._real)
            if backup:
                atomic_write(self._real.with_name(self._real.name + ".bak"), current, mode)
            atomic_write(self._real, new, mode)
        self._on_disk = new


@contextlib.contextmanager
def transaction(path: str | os.PathLike[str]) -> Iterator[SheetFile]:
    """Lock the sheet, read it and yield it (the caller may write()), then release the lock."""
    with locked(Path(os.path.realpath(path))):
        sheet = SheetFile.read(path)
        sheet._holds_lock = True
        try:
            yield sheet
        finally:
            sheet._holds_lock = False  # a sheet used after its transaction locks on its own


def new_sheet(path: str | os.PathLike[str], text: str) -> None:
    """Create a sheet holding ``text`` (which must load), in a folder that exists, refusing any file or link there."""
    load_text(text, os.fspath(path))
    given = Path(path)
    folder = given.parent
    try:
        if not folder.is_dir():
            raise RulesError(f"{path}: the folder {folder} does not exist; nothing was written",
                             hint=f"make it first (mkdir -p {folder})")
        real = Path(os.path.realpath(folder)) / given.name  # the folder's links resolved, never the file's
        if real.is_symlink():
            raise RulesError(f"{path}: is a symbolic link; a new sheet is never written through one, "
                             "nothing was written")
    except (OSError, ValueError) as exc:
        raise RulesError(f"{path}: cannot write: {getattr(exc, 'strerror', None) or exc}") from None
    with locked(real):
        remove_stale_temporaries(real)
        atomic_write(real, text.encode("utf-8"), None)


def _edit(tree: object, path: SheetPath, value: object) -> None:
    """Make one change of set() to ruamel's tree."""
    for step in path[:-1]:
        tree = _child(tree, step)
    _assign(tree, _tree_key(tree, path[-1]), value)


def _tree_key(node: object, step: object) -> object:
    """The key in ruamel's tree for a step of a plain path (the plain key "1" is written ``1:``)."""
    if isinstance(node, CommentedMap) and step not in node:
        return next((k for k in node if not isinstance(k, str) and str(k) == step), step)
    return step


def _child(node: object, step: object) -> object:
    if isinstance(node, dict) and isinstance(step, str):
        return node.get(_tree_key(node, step), _MISSING)
    if isinstance(node, list) and isinstance(step, int) and not isinstance(step, bool) and 0 <= step < len(node):
        return node[step]
    return _MISSING


def _check_value(value: object, depth: int = 0) -> None:
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


def _fresh(value: object, old: object) -> object:
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
