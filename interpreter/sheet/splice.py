"""Where a sheet's values are written in its text, and how to write a new scalar in their place.

A sheet is changed by rewriting only the changed scalars where they stand, so that everything
else (comments, quoting, layout) stays byte for byte; these helpers find the spans, the style
of each scalar, and the indentation ruamel.yaml should use when it has to write the whole tree.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.events import (
    AliasEvent,
    CollectionEndEvent,
    CollectionStartEvent,
    DocumentStartEvent,
    MappingStartEvent,
    ScalarEvent,
)

from interpreter.load.document import Document

__all__ = ["SheetPath", "document_prefix", "indents", "respelled", "scalar_edits", "scalar_spans", "scalar_text"]

SheetPath = tuple[str | int, ...]
_PLAIN = re.compile(r"[^\W\d_][\w .'/()+-]*(?<! )")  # strings safe to write unquoted anywhere


def scalar_edits(old: object, new: object, path: SheetPath) -> list[tuple[SheetPath, object]] | None:
    """The scalars that differ between two values, or None if their shapes (keys, lengths) differ."""
    if isinstance(old, dict) and isinstance(new, dict) and list(old) == list(new):
        parts = [scalar_edits(old[k], new[k], path + (k,)) for k in old]
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        parts = [scalar_edits(o, n, path + (i,)) for i, (o, n) in enumerate(zip(old, new, strict=True))]
    elif isinstance(old, (dict, list)) or isinstance(new, (dict, list)):
        return None
    else:
        return [] if type(old) is type(new) and old == new else [(path, new)]
    return None if None in parts else [edit for part in parts if part for edit in part]


def scalar_spans(text: str) -> dict[SheetPath, tuple[int, int, str | None]]:
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


def scalar_text(value: object, style: str | None, written: bool) -> str | None:
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


def indents(doc: Document) -> tuple[int, int, int]:
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


def document_prefix(text: str) -> str:
    """The lines up to and including an explicit ``---`` that starts the document, or ''."""
    for event in YAML().parse(text):
        if isinstance(event, DocumentStartEvent):
            if not event.explicit:
                return ""
            end = text.find("\n", event.end_mark.index)
            return text[: end + 1] if end >= 0 else text + "\n"
    return ""


def respelled(dumped: str, original: str, old: object, new: object) -> str:
    """``dumped`` with each scalar whose value did not change written as ``original`` wrote it."""
    before, after = scalar_spans(original), scalar_spans(dumped)
    edits = []
    for path, (start, end, style) in before.items():
        if path not in after or style in ("|", ">") or after[path][2] in ("|", ">"):
            continue
        was, now = _at(old, path), _at(new, path)
        if was is _NONE or type(was) is not type(now) or was != now:
            continue
        written, (at, until, _) = original[start:end], after[path]
        if written and written != dumped[at:until] and "\n" not in written + dumped[at:until]:
            edits.append((at, until, written if at < until else " " + written))
    for at, until, written in sorted(edits, reverse=True):
        dumped = dumped[:at] + written + dumped[until:]
    return dumped


_NONE: object = object()


def _at(node: object, path: SheetPath) -> object:
    for step in path:
        if isinstance(node, dict):
            node = node.get(step, _NONE)
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            node = node[step]
        else:
            return _NONE
    return node
