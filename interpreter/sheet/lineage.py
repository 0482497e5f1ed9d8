"""Sheets of overlays and of their bases: a sheet made for one ruleset read with another that extends it, or that it extends.

An overlay changes a few rules of its base and keeps the rest, so a character of the base is a
character of the overlay too (and the other way round): the sheet is read with the rules it is run
with, checked against their standing rules as any sheet is, and the command says so in one line.
"""

from __future__ import annotations

from pathlib import Path

from interpreter.errors import RulesError
from interpreter.ruleset.model import CompiledRuleset

MAX_CHAIN = 16  # overlays of overlays followed at most this deep


def _same_file(a: str, b: str) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except (OSError, ValueError):
        return False


def chain(ruleset: CompiledRuleset) -> list[CompiledRuleset]:
    """The ruleset, the ruleset it extends, that one's base, and so on (each base found beside its overlay)."""
    from interpreter.pipeline import compile_ref

    out = [ruleset]
    while out[-1].extends is not None and len(out) < MAX_CHAIN:
        try:
            out.append(compile_ref(out[-1].extends, relative_to=Path(out[-1].file).parent))
        except RulesError:
            break
    return out


def names_exactly(value: object, ruleset: CompiledRuleset, sheet_file: str | None) -> bool:
    """Whether a sheet's `ruleset:` names this very ruleset: its id, or its file relative to the sheet."""
    if value == ruleset.id:
        return True
    if not isinstance(value, str) or sheet_file is None:
        return False
    return _same_file(str(Path(sheet_file).parent / value), ruleset.file)


def kin_note(value: object, ruleset: CompiledRuleset, sheet_file: str | None) -> str | None:
    """A one-line note when a sheet's `ruleset:` names a base or an overlay of `ruleset`; None when it names neither."""
    if not isinstance(value, str) or not value.strip() or names_exactly(value, ruleset, sheet_file):
        return None
    for base in chain(ruleset)[1:]:
        if names_exactly(value, base, sheet_file):
            return (f"note: the sheet is for '{value}', which '{ruleset.id}' extends: "
                    f"read with the rules of '{ruleset.id}'")
    from interpreter.pipeline import compile_ref

    folder = Path(sheet_file).parent if sheet_file is not None else None
    try:
        own = compile_ref(value, relative_to=folder)
    except (RulesError, OSError, ValueError):
        return None
    if any(base.id == ruleset.id and _same_file(base.file, ruleset.file) for base in chain(own)[1:]):
        return (f"note: the sheet is for '{value}', which extends '{ruleset.id}': "
                f"read with the rules of '{ruleset.id}'")
    return None


__all__ = ["MAX_CHAIN", "chain", "kin_note", "names_exactly"]
