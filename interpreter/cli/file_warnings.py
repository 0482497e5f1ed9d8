"""The warnings of a ruleset file, told once by every command that loads it.

`rules validate` lists what is valid but likely not meant: a constant an overlay adds that nothing
reads (a misspelled name), defaults that break the ruleset's own creation rules, dice that do not
say what they seem to, steps that do not do what they seem to (a `best_of` whose runs all tie).
Every other command that loads the file (`run`, `odds`, `diff`, `describe`, `sheet ...`) prints the
same lines on stderr, once each however often the command loads the file, so that a mistake is seen
where its effect is. Under `--json` they stay on stderr: stdout holds the
answer alone. They are told when the command has done its work: a refused command says its one line
alone. The bundled rulesets are kept free of warnings by the test suite and are not checked
again at every start, nor is a file whose warnings the parse cache remembers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING

from interpreter.cli import output
from interpreter.errors import RulesError

if TYPE_CHECKING:
    from interpreter.load.document import Document
    from interpreter.load.find import Found
    from interpreter.ruleset.model import CompiledRuleset

# The files whose warnings this command has told (None: no command is telling them).
_TOLD: ContextVar[set[str] | None] = ContextVar("told", default=None)
# The warnings to tell once the command has done its work, in the order found.
_PENDING: ContextVar[list[str] | None] = ContextVar("pending", default=None)


def unread(rs: CompiledRuleset, doc: Document | None) -> list[str]:
    """A warning for each constant an overlay adds that nothing reads (the name most likely meant in each)."""
    from interpreter.ruleset.unread import unread_constants

    if rs.extends is None or doc is None:
        return []
    return [str(w) for w in unread_constants(rs, doc.data, doc)]


def warnings_of(found: Found, rs: CompiledRuleset) -> list[str]:
    """Every warning of a ruleset file, as `rules validate` prints them (one located line each)."""
    from interpreter.load.checked import load_checked
    from interpreter.ruleset.dice_warnings import dice_warnings
    from interpreter.ruleset.step_warnings import step_warnings
    from interpreter.sheet.new_character import default_problems

    added = any(what == "added" and path.startswith("$.constants.") for path, what in rs.changes)
    doc = load_checked(found).doc if added else None
    creation = [f"{found.shown}: a sheet at the defaults breaks a creation rule: {message}"
                for message in default_problems(rs)]
    return unread(rs, doc) + creation + dice_warnings(rs, lambda: load_checked(found).doc) + step_warnings(rs)


def warnings_of_ref(ref: str) -> list[str]:
    """The warnings of a valid ruleset named by id or path."""
    from interpreter.load.find import find
    from interpreter.pipeline import compile_ref

    return warnings_of(find(ref), compile_ref(ref))


_MAX_WARNINGS = 10_000  # warnings of one record, each a line of at most as many characters


def _stored(body: object) -> list[str] | None:
    """The warnings of an intact record of what a check gives, a list of printable lines (so a forged record
    tells nothing a warning could not); else None."""
    warnings = body.get("warnings") if isinstance(body, dict) else None
    if not isinstance(warnings, list) or len(warnings) > _MAX_WARNINGS or not all(
            isinstance(w, str) and len(w) <= _MAX_WARNINGS and w.isprintable() for w in warnings):
        return None
    return warnings


def _key(found: Found, digests: tuple[str, ...]) -> str:
    from interpreter.load import cache

    return cache.compiled_key(("warnings", found.file, found.shown, *digests))  # (the warnings name the file)


def known_quiet(found: Found, digests: tuple[str, ...]) -> bool:
    """Whether the parse cache remembers that a file made of these bytes has no warnings."""
    from interpreter.load import cache

    where = cache.folder()
    return where is not None and _stored(cache.read_record(where, "warnings", _key(found, digests))) == []


def tell(found: Found, _loaded: CompiledRuleset, digests: tuple[str, ...]) -> None:
    """Print the warnings of a file this command loads, the first time it loads it.

    They are remembered in the parse cache (by the SHA-256 of its files and the names they give it), so
    that a later start does not work them out again: that would compile the file a second time, and parse
    YAML a cached run never needs."""
    from interpreter.load import cache

    told = _TOLD.get()
    if told is None or found.origin == "bundled" or found.file in told:
        return
    told.add(found.file)  # first: telling may load the file again
    where = cache.folder() if digests else None
    key = _key(found, digests)
    warnings = _stored(cache.read_record(where, "warnings", key)) if where is not None else None
    if warnings is None:
        from interpreter.pipeline import compile_ref

        try:  # on a ruleset checked for real: `rs` may compile its procedures as they are used, and one that
            # fails would fail the others after it (the error is the command's to give, where it runs it)
            warnings = warnings_of(found, compile_ref(found.file, trust_cache=False))
        except RulesError:
            return
        if where is not None and len(warnings) <= _MAX_WARNINGS:
            cache.write_record(where, "warnings", key, {"warnings": warnings})
    pending = _PENDING.get()
    if pending is not None:
        pending.extend(warnings)


@contextlib.contextmanager
def told_elsewhere() -> Iterator[None]:
    """While the block runs, nothing is told here (a command that prints the warnings its own way, as validate)."""
    mark = _TOLD.set(None)
    try:
        yield
    finally:
        _TOLD.reset(mark)


@contextlib.contextmanager
def telling() -> Iterator[None]:
    """While the block runs, every ruleset file loaded has its warnings printed once on stderr."""
    from interpreter.watchers import watching

    mark, pending = _TOLD.set(set()), _PENDING.set([])
    try:
        with watching(tell):
            yield
        _say(_PENDING.get())
    except SystemExit as done:
        if done.code in (None, 0):
            _say(_PENDING.get())
        raise
    finally:
        _TOLD.reset(mark)
        _PENDING.reset(pending)


def _say(warnings: list[str] | None) -> None:
    for warning in warnings or ():
        output.echo(f"warning: {warning}", err=True)


__all__ = ["known_quiet", "tell", "telling", "told_elsewhere", "unread", "warnings_of", "warnings_of_ref"]
