"""A procedure run or its odds with a character sheet: the sheet checked, bound, and its changes worked out.

This is the one place that puts a sheet and a procedure together; the library (interpreter.api)
and the command line both call it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from interpreter.errors import BadParameter
from interpreter.procedure.odds import ExactOdds
from interpreter.procedure.odds import odds as procedure_odds
from interpreter.procedure.run import RunResult, run_to_end
from interpreter.record import replace
from interpreter.ruleset.derived import final_states, refresh
from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset
from interpreter.ruleset.params import find_procedure, trait_argument
from interpreter.ruleset.texts import fill
from interpreter.sheet.bind import bind, changed_paths, names_ruleset
from interpreter.sheet.creation import refuse_broken

if TYPE_CHECKING:
    from interpreter.load.document import Document


def kin(ruleset: CompiledRuleset, data: Mapping[str, object], doc: Document | None) -> str | None:
    """The one-line note to show when the sheet is for a base or an overlay of this ruleset (see sheet.lineage)."""
    from interpreter.sheet.lineage import kin_note

    return kin_note(data.get("ruleset"), ruleset, doc.file if doc is not None else None)


def bound(ruleset: CompiledRuleset, data: Mapping[str, object], doc: Document | None, procedure: str | None = None) -> dict[str, object]:
    """A sheet's names for a run, once the sheet is known to be for this ruleset (or a base or an overlay
    of it) and to keep its standing rules; with `procedure`, also once it is known that the procedure
    may act on the sheet (see `refuse_final`)."""
    if not names_ruleset(data.get("ruleset"), ruleset, doc.file if doc is not None else None):
        raise BadParameter(f"the sheet is for ruleset '{data.get('ruleset')}', not '{ruleset.id}'",
                           doc.where(("ruleset",)) if doc is not None else None)
    refuse_broken(ruleset, data, doc)
    names = bind(ruleset, data, doc)
    if procedure is not None:
        refuse_final(ruleset, find_procedure(ruleset, procedure), names, doc)
    return names


def refuse_final(ruleset: CompiledRuleset, proc: CompiledProcedure, names: Mapping[str, object], doc: Document | None) -> None:
    """Refuse a sheet in a final state (such as dead) unless the procedure names it under `acts_on_final`.

    This is the one check of final states: a run, its odds (and their sweeps), a diff with a sheet and
    the library all come through here before a procedure sees the sheet.
    """
    for name in final_states(ruleset, names):
        if name in proc.acts_on_final or ruleset.sheet is None:
            continue
        state = ruleset.sheet.final[name]
        said = fill(state.message, names) if state.message else f"'{state.when.text}' holds"
        at = tuple(int(p) if p.isdigit() else p for p in state.at.split(".")) if state.at else ()
        raise BadParameter(f"the character is {name}: {said}; procedure '{proc.name}' does not act on a sheet "
                           "in that final state", doc.where(at) if doc is not None else None,
                           f"a procedure that may (a house rule) lists it: acts_on_final: [{name}]")


def run(ruleset: CompiledRuleset, name: str, args: Mapping[str, object], source: object, data: Mapping[str, object],
        doc: Document | None) -> RunResult:
    """Run a procedure once with a sheet; `RunResult.changes` lists what it changed, as sheet paths."""
    proc = find_procedure(ruleset, name)
    names = bound(ruleset, data, doc, name)
    result, final = run_to_end(ruleset, name, args, source, names)
    if proc.sheet == "none":
        return result
    for param in proc.params:  # a trait parameter's new value is the trait's (`stat=STR`)
        trait = trait_argument(ruleset, str(args[param.name]).strip()) if param.type == "trait" and \
            args.get(param.name) is not None else None
        if trait is not None:
            final[trait] = final[param.name]
    if ruleset.sheet is not None:
        refresh(ruleset, final)
    return replace(result, changes=tuple(changed_paths(ruleset, names, final, data)))


def odds(ruleset: CompiledRuleset, name: str, args: Mapping[str, object], data: Mapping[str, object], doc: Document | None) -> ExactOdds:
    """The exact odds of a procedure for the character of a sheet (which is read, never written)."""
    return procedure_odds(ruleset, name, args, bound(ruleset, data, doc, name))


def apply(handle: Any, result: RunResult) -> None:
    """Set a run's changes on an open sheet file (written by the caller, or not for a dry run)."""
    for path, _old, new in result.changes:
        handle.set(path, new)


def run_on_file(ruleset: CompiledRuleset, name: str, args: Mapping[str, object], source: object, path: str, *,
                write: bool, backup: bool = True, after: Callable[[], None] | None = None,
                told: Callable[[str], None] | None = None) -> tuple[RunResult, Any]:
    """Run a procedure with the sheet in a file; with `write`, the changes are written back atomically.

    `after` runs once the procedure has run and before anything is written (the check that given
    dice were all used): when it raises, the file is left as it was. Without `write` nothing is
    written and no lock is taken; the handle returned can still show what would change. `told` is
    given the note to show when the sheet is for a base or an overlay of the ruleset (see `kin`).
    """
    from interpreter.sheet.file import SheetFile, transaction

    def note(handle: Any) -> None:
        said = kin(ruleset, handle.data, handle.doc) if told is not None else None
        if said is not None and told is not None:
            told(said)

    if not write:
        handle = SheetFile.read(path)
        note(handle)
        result = run(ruleset, name, args, source, handle.data, handle.doc)
        if after is not None:
            after()
        apply(handle, result)
        return result, handle
    with transaction(path) as handle:
        note(handle)
        result = run(ruleset, name, args, source, handle.data, handle.doc)
        if after is not None:
            after()
        apply(handle, result)
        if result.changes:
            handle.write(backup=backup)
    return result, handle
