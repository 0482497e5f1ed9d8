"""Opening a character sheet together with the ruleset it names."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from interpreter.errors import BadParameter, Location, RulesetLoadError
from interpreter.hints import shown
from interpreter.pipeline import compile_ref
from interpreter.ruleset.model import CompiledRuleset
from interpreter.sheet.file import SheetFile

if TYPE_CHECKING:
    from interpreter.load.document import Document


def open_sheet(path: str) -> tuple[SheetFile, CompiledRuleset]:
    """Read a sheet file and compile the ruleset it names."""
    handle = SheetFile.read(path)
    return handle, sheet_ruleset(handle.doc, path)


def sheet_ruleset(doc: Document, path: str, compile: Callable[[str, Path], CompiledRuleset] | None = None) -> CompiledRuleset:
    """The compiled ruleset a loaded sheet names (``compile(ref, folder)`` compiles it, when given)."""
    ref = doc.data.get("ruleset") if isinstance(doc.data, dict) else None
    if not isinstance(ref, str):
        raise BadParameter("the sheet does not name its ruleset", doc.where(("ruleset",)),
                           "add 'ruleset: ID' at the top")
    # an id (bundled or in the user's ruleset folders), or a path relative to the sheet's folder
    try:
        _a_ruleset_file(ref, Path(path).parent, doc.where(("ruleset",)))
        if compile is not None:
            return compile(ref, Path(path).parent)
        return compile_ref(ref, relative_to=Path(path).parent)
    except RulesetLoadError as err:
        if err.where is not None and err.where.line:
            raise  # a problem inside the ruleset is reported where it is
        reason = err.message.removeprefix("cannot read the file: ")
        message = err.message if reason == err.message else f"the sheet's ruleset {shown(ref)} cannot be read: {reason}"
        raise BadParameter(message, doc.where(("ruleset",)), err.hint) from None


def _a_ruleset_file(ref: str, folder: Path, where: Location | None) -> None:
    """Refuse a path that names a file that is no ruleset (a sheet's neighbour, a config file) without quoting it."""
    from interpreter.load.find import declares_ruleset, find, looks_like_path, not_a_ruleset

    if looks_like_path(ref):
        found = find(ref, folder)
        if found.origin == "path" and not declares_ruleset(found.file):
            raise not_a_ruleset(shown(ref), where)


def create_sheet(ref: str, out: str, name: str) -> CompiledRuleset:
    """Write a commented starting sheet of a ruleset that passes its creation rules; never over a file.

    It names no schema file: a sheet travels between players and machines, where this machine's path
    to the installed schema means nothing (docs/editors.md says how an editor finds the schema).
    """
    from interpreter.load.find import confined, find
    from interpreter.sheet.file import new_sheet
    from interpreter.sheet.new_character import new_sheet as sheet_text

    written = None  # an id is written as it is; a path relative to the sheet
    found = find(ref)
    if found.origin == "path":
        written = os.path.relpath(os.path.abspath(found.path), os.path.dirname(os.path.abspath(out)))
        try:  # (a sheet may name only a file inside its own folder, a trusted folder or a ruleset folder)
            confined(written, os.path.dirname(os.path.abspath(out)), None)
        except RulesetLoadError:
            raise BadParameter(f"{out}: a sheet names its ruleset by id or by a path inside the sheet's own folder "
                               f"(or the folder rules runs in), and {ref} lies outside it; nothing was written",
                               hint="run rules from a folder that holds both, or put the ruleset in a ruleset "
                                    "folder (RULESMITH_PATH) and give its id") from None
    rs = compile_ref(ref)
    new_sheet(out, sheet_text(rs, name, written, out))
    return rs
