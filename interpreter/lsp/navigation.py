"""Going to where a name is defined, finding where it is used, and the outline of a file."""

from __future__ import annotations

import os
import re
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path

from interpreter.errors import Location, RulesError
from interpreter.load.document import Document
from interpreter.lsp.context import Place, words_in
from interpreter.procedure.kinds import KINDS
from interpreter.ruleset.kind import naming

__all__ = ["SECTIONS", "base_of", "definition", "outline", "references"]

# The top-level sections that define names, and the kind of symbol each name is.
SECTIONS = {
    "constants": types.SymbolKind.Constant, "dice": types.SymbolKind.Variable, "traits": types.SymbolKind.Field,
    "derived": types.SymbolKind.Property, "tables": types.SymbolKind.Struct, "procedures": types.SymbolKind.Function,
    "notes": types.SymbolKind.String,
}


def _location(where: Location) -> types.Location | None:
    path = where.source or where.file
    if not path or not os.path.exists(path):
        return None
    position = types.Position(max(where.line - 1, 0), max(where.col - 1, 0))
    return types.Location(from_fs_path(os.path.abspath(path)) or path, types.Range(position, position))


def base_of(doc: Document, path: str, key: str = "extends") -> types.Location | None:
    """The file an overlay's `extends:` (or a sheet's `ruleset:`) names, opened at its first line."""
    from interpreter.load.find import find

    ref = doc.data.get(key) if isinstance(doc.data, dict) else None
    if not isinstance(ref, str):
        return None
    try:
        found = find(ref, os.path.dirname(path))
    except RulesError:
        return None
    start = types.Position(0, 0)
    return types.Location(from_fs_path(os.path.abspath(found.file)) or found.file, types.Range(start, start))


def definition(merged: Document, word: str, place: Place) -> types.Location | None:
    """Where a name is defined: the procedure a `call:` names, a parameter of the procedure around the cursor, else
    a top-level section's entry."""
    data = merged.data if isinstance(merged.data, dict) else {}
    keys = place.keys
    called = data.get("procedures")
    if (place.key in naming(KINDS, "procedure") or place.key == "procedure") and isinstance(called, dict) and word in called:  # a procedure's name
        return _location(merged.where(("procedures", word), key=True))
    if keys[:1] == ("procedures",) and len(keys) > 1:
        params = (data.get("procedures", {}).get(keys[1]) or {}).get("params") or {}
        if isinstance(params, dict) and word in params:
            return _location(merged.where(("procedures", keys[1], "params", word), key=True))
    for section in SECTIONS:
        entries = data.get(section)
        if isinstance(entries, dict) and word in entries:
            return _location(merged.where((section, word), key=True))
    return None


def references(uri: str, lines: list[str], word: str) -> list[types.Location]:
    """Every use of a name in a file's values (formulas, references), outside prose and comments."""
    out = []
    for row, line in enumerate(lines):
        for found, col in words_in(line):
            if found == word:
                out.append(types.Location(uri, types.Range(types.Position(row, col), types.Position(row, col + len(word)))))
    return out


def _range(doc: Document, path: tuple[Any, ...], lines: list[str]) -> types.Range:
    line, col = doc.position(path, key=True)
    row = max(line - 1, 0)
    end = len(lines[row]) if row < len(lines) else 0
    return types.Range(types.Position(row, max(col - 1, 0)), types.Position(row, end))


def outline(doc: Document, lines: list[str]) -> list[types.DocumentSymbol]:
    """The file's top-level keys, the named entries of each section below its key."""
    if not isinstance(doc.data, dict):
        return []
    out = []
    for key, value in doc.data.items():
        top = _range(doc, (key,), lines)
        children = []
        if key in SECTIONS and isinstance(value, dict):
            for name in value:
                at = _range(doc, (key, name), lines)
                children.append(types.DocumentSymbol(name=str(name), kind=SECTIONS[key], range=at, selection_range=at))
        detail = str(value) if not isinstance(value, (dict, list)) else None
        full = types.Range(top.start, children[-1].range.end) if children else top
        out.append(types.DocumentSymbol(name=str(key), kind=types.SymbolKind.Namespace, range=full,
                                        selection_range=top, detail=detail and re.sub(r"\s+", " ", detail)[:80],
                                        children=children or None))
    return out
