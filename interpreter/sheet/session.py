"""A procedure run or its odds with a character sheet: the sheet checked, bound, and its changes worked out.

This is the one place that puts a sheet and a procedure together; the library (interpreter.api)
and the command line both call it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from interpreter.errors import BadParameter
from interpreter.procedure.odds import Odds
from interpreter.procedure.odds import odds as procedure_odds
from interpreter.procedure.run import Result, run_to_end
from interpreter.record import replace
from interpreter.ruleset.derived import refresh
from interpreter.ruleset.model import Ruleset
from interpreter.ruleset.params import find_procedure
from interpreter.sheet.bind import bind, changed_paths, names_ruleset
from interpreter.sheet.creation import refuse_broken


def bound(ruleset: Ruleset, data: Mapping[str, Any], doc: Any) -> dict[str, Any]:
    """A sheet's names for a run, once the sheet is known to be for this ruleset and to keep its standing rules."""
    if not names_ruleset(data.get("ruleset"), ruleset, doc.file if doc is not None else None):
        raise BadParameter(f"the sheet is for ruleset '{data.get('ruleset')}', not '{ruleset.id}'",
                           doc.where(("ruleset",)) if doc is not None else None)
    refuse_broken(ruleset, data, doc)
    return bind(ruleset, data, doc)


def run(ruleset: Ruleset, name: str, args: Mapping[str, Any], source: Any, data: Mapping[str, Any],
        doc: Any) -> Result:
    """Run a procedure once with a sheet; `Result.changes` lists what it changed, as sheet paths."""
    proc = find_procedure(ruleset, name)
    names = bound(ruleset, data, doc)
    result, final = run_to_end(ruleset, name, args, source, names)
    if proc.sheet == "none":
        return result
    for param in proc.params:  # a trait parameter's new value is the trait's (`stat=STR`)
        if param.type == "trait" and param.name in args:
            final[str(args[param.name]).strip()] = final[param.name]
    if ruleset.sheet is not None:
        refresh(ruleset, final)
    return replace(result, changes=tuple(changed_paths(ruleset, names, final, data)))


def odds(ruleset: Ruleset, name: str, args: Mapping[str, Any], data: Mapping[str, Any], doc: Any) -> Odds:
    """The exact odds of a procedure for the character of a sheet (which is read, never written)."""
    return procedure_odds(ruleset, name, args, bound(ruleset, data, doc))


def apply(handle: Any, result: Result) -> None:
    """Set a run's changes on an open sheet file (written by the caller, or not for a dry run)."""
    for path, _old, new in result.changes:
        handle.set(path, new)


def run_on_file(ruleset: Ruleset, name: str, args: Mapping[str, Any], source: Any, path: str, *,
                write: bool, backup: bool = True, after: Callable[[], None] | None = None) -> tuple[Result, Any]:
    """Run a procedure with the sheet in a file; with `write`, the changes are written back atomically.

    `after` runs once the procedure has run and before anything is written (the check that given
    dice were all used): when it raises, the file is left as it was. Without `write` nothing is
    written and no lock is taken; the handle returned can still show what would change.
    """
    from interpreter.sheet.file import SheetFile, transaction

    if not write:
        handle = SheetFile.read(path)
        result = run(ruleset, name, args, source, handle.data, handle.doc)
        if after is not None:
            after()
        apply(handle, result)
        return result, handle
    with transaction(path) as handle:
        result = run(ruleset, name, args, source, handle.data, handle.doc)
        if after is not None:
            after()
        apply(handle, result)
        if result.changes:
            handle.write(backup=backup)
    return result, handle
