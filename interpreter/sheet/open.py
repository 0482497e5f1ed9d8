"""Opening a character sheet together with the ruleset it names."""

from __future__ import annotations

from pathlib import Path

from interpreter.errors import BadParameter
from interpreter.load.bundled import bundled_ids
from interpreter.pipeline import compile_ref
from interpreter.ruleset.model import Ruleset
from interpreter.sheet.file import SheetFile


def sheet_ruleset_ref(ref: str, sheet_path: str) -> str:
    """The ruleset a sheet names: a bundled id, or a path relative to the sheet's folder."""
    if ref in bundled_ids():
        return ref
    beside = Path(sheet_path).parent / ref
    return str(beside) if beside.exists() else ref


def open_sheet(path: str) -> tuple[SheetFile, Ruleset]:
    """Read a sheet file and compile the ruleset it names."""
    handle = SheetFile.read(path)
    ref = handle.data.get("ruleset") if isinstance(handle.data, dict) else None
    if not isinstance(ref, str):
        raise BadParameter("the sheet does not name its ruleset", handle.doc.where(("ruleset",)),
                           "add 'ruleset: ID' at the top")
    return handle, compile_ref(sheet_ruleset_ref(ref, path))
