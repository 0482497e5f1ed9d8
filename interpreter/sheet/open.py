"""Opening a character sheet together with the ruleset it names."""

from __future__ import annotations

import os
from pathlib import Path

from interpreter.errors import BadParameter, RulesetLoadError
from interpreter.hints import shown
from interpreter.pipeline import compile_ref
from interpreter.ruleset.model import Ruleset
from interpreter.sheet.file import SheetFile


def open_sheet(path: str) -> tuple[SheetFile, Ruleset]:
    """Read a sheet file and compile the ruleset it names."""
    handle = SheetFile.read(path)
    ref = handle.data.get("ruleset") if isinstance(handle.data, dict) else None
    if not isinstance(ref, str):
        raise BadParameter("the sheet does not name its ruleset", handle.doc.where(("ruleset",)),
                           "add 'ruleset: ID' at the top")
    # an id (bundled or in the user's ruleset folders), or a path relative to the sheet's folder
    try:
        return handle, compile_ref(ref, relative_to=Path(path).parent)
    except RulesetLoadError as err:
        if err.where is not None and err.where.line:
            raise  # a problem inside the ruleset is reported where it is
        reason = err.message.removeprefix("cannot read the file: ")
        message = err.message if reason == err.message else f"the sheet's ruleset {shown(ref)} cannot be read: {reason}"
        raise BadParameter(message, handle.doc.where(("ruleset",)), err.hint) from None


def create_sheet(ref: str, out: str, name: str) -> Ruleset:
    """Write a commented starting sheet of a ruleset that passes its creation rules; never over a file."""
    from interpreter.load.find import find
    from interpreter.sheet.file import new_sheet
    from interpreter.sheet.spread import new_sheet as sheet_text

    written = None  # an id is written as it is; a path relative to the sheet
    found = find(ref)
    if found.origin == "path":
        written = os.path.relpath(os.path.abspath(found.path), os.path.dirname(os.path.abspath(out)))
    rs = compile_ref(ref)
    new_sheet(out, sheet_text(rs, name, written, out))
    return rs
