"""Finding, loading, validating and compiling rulesets: the load -> validate -> compile pipeline."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from interpreter.errors import Invalid, RulesError
from interpreter.load import cache
from interpreter.load.checked import Loaded, in_file_order, load_checked
from interpreter.load.document import Document
from interpreter.load.find import Found, find
from interpreter.procedure.kinds import KINDS
from interpreter.record import replace
from interpreter.ruleset.kind import Kinds
from interpreter.ruleset.model import CompiledRuleset
from interpreter.watchers import given as told

if TYPE_CHECKING:
    from pathlib import Path


def resolve(ref: str, relative_to: str | os.PathLike[str] | None = None) -> tuple[Path, str]:
    """The file of a ruleset id or path, and the name to show in messages."""
    found = find(ref, relative_to)
    return found.path, found.shown


def problems(ref: str) -> list[RulesError]:
    """Every problem of a ruleset, sorted by position; empty when it is valid.

    The file is parsed and checked against the schema whatever the parse cache says.
    """
    try:
        compile_ref(ref, trust_cache=False)
    except Invalid as err:
        return err.problems
    except RulesError as err:
        return [err]
    return []


# Rulesets compiled in this process: (file, shown name, user folders) -> (the size and time of
# each of its files, whether they were checked for real, the ruleset, the SHA-256 of each file).
_Stats = tuple[tuple[str, int, int], ...]
_COMPILED: dict[tuple[str, str, str, str], tuple[_Stats, bool, CompiledRuleset, tuple[str, ...]]] = {}
_COMPILED_MAX = 32


def forget_compiled() -> None:
    """Drop the rulesets this process compiled (the next compile_ref loads its file again)."""
    _COMPILED.clear()


def _stats(files: tuple[str, ...]) -> _Stats | None:
    try:
        return tuple((p, (s := os.stat(p)).st_mtime_ns, s.st_size) for p in files)
    except OSError:
        return None


def compile_ref(ref: str, *, trust_cache: bool = True, relative_to: str | os.PathLike[str] | None = None) -> CompiledRuleset:
    """Load, validate and compile a ruleset by id or path; raise Invalid with every problem found.

    A ruleset compiled before in this process whose files have not changed since (same
    size and modification time) is not loaded again.  With ``trust_cache=False`` the files
    are parsed and checked against the schema even when the parse cache remembers them.
    A path is relative to ``relative_to`` when given (a sheet's folder).
    """
    found = find(ref, relative_to)
    memo_key = (os.path.realpath(found.file), found.shown, os.environ.get("RULESMITH_PATH", ""),
                os.environ.get("XDG_CONFIG_HOME", ""))
    known = _COMPILED.get(memo_key)
    if known is not None and (trust_cache or known[1]) and _stats(tuple(f[0] for f in known[0])) == known[0]:
        return told(found, known[2], known[3])
    try:
        ruleset, loaded = _load_and_compile(found, trust_cache)
    except Invalid as err:
        raise every_stage(err) from None
    stats = _stats(loaded.files)
    if stats is not None:
        if len(_COMPILED) >= _COMPILED_MAX:
            _COMPILED.pop(next(iter(_COMPILED)))
        _COMPILED[memo_key] = (stats, not loaded.trusted, ruleset, loaded.digests)
    return told(found, ruleset, loaded.digests)


def _load_and_compile(found: Found, trust_cache: bool) -> tuple[CompiledRuleset, Loaded]:
    """The compiled ruleset, and what it was loaded from.

    When the cache says these exact bytes passed the schema and compiled before (or they are
    a bundled ruleset's, read from the records shipped with it), the procedures and tables are
    compiled when first used (see ``ruleset/lazy.py``); one that then fails to compile has the
    whole ruleset checked and compiled again for real.
    """
    loaded = load_checked(found, trust_cache=trust_cache)
    where = cache.folder()
    # (a shipped ruleset needs no marker: its key, which reads the installed versions, is not made)
    compiled = cache.compiled_key(loaded.digests) if where is not None and not loaded.shipped else ""
    try:
        if loaded.trusted and where is not None and (loaded.shipped or cache.is_checked(where, compiled)):
            return _compile(loaded, lambda: _load_and_compile(found, False)[0]), loaded
        ruleset = _compile(loaded)
        if where is not None:
            cache.mark_checked(where, compiled)
        return ruleset, loaded
    except RulesError:
        raise
    except Exception:
        # The compiler relies on the shape the schema checked.  A document taken from the
        # cache on trust that breaks it was not what the cache claimed (a forged record):
        # check the files for real, which reports their problems as errors.
        if not loaded.trusted:
            raise
    loaded = load_checked(found, trust_cache=False)
    return _compile(loaded), loaded


def _compile(loaded: Loaded, fresh: Callable[[], CompiledRuleset] | None = None, kinds: Kinds = KINDS) -> CompiledRuleset:
    from interpreter.ruleset.compiler import Compiler

    try:
        ruleset = Compiler(loaded.doc, kinds).compile(fresh)
    except Invalid as err:
        raise Invalid(in_file_order(err.problems, loaded.doc)) from None
    if loaded.extends is None:
        return ruleset
    return replace(ruleset, extends=loaded.extends, changes=loaded.changes)


def compile_documents(found: Found, given: Mapping[str, Document],
                      check: Callable[[Document], None] | None = None, kinds: Kinds = KINDS) -> tuple[CompiledRuleset, Loaded]:
    """Check and compile a ruleset whose files' text is held in memory (an editor's unsaved text).

    ``given`` maps real paths to the documents of that text; other files are read as usual.
    Every file is checked for real, as ``problems`` does (``check``, when given, stands in for
    the schema check: see ``load_checked``); raise Invalid with every problem found. ``kinds``
    are the step kinds its procedures may use (the language's own unless told).
    """
    try:
        loaded = load_checked(found, trust_cache=False, given=given, check=check)
    except Invalid as err:
        raise every_stage(err, kinds) from None
    return _compile(loaded, kinds=kinds), loaded


def every_stage(err: Invalid, kinds: Kinds = KINDS) -> Invalid:
    """The schema's problems of a document together with those the later stages find in the rest of it."""
    if not isinstance(err.document, Document):
        return err
    from interpreter.ruleset.partial import beyond_schema  # every stage's problems in one report
    from interpreter.ruleset.strays import placed

    every = placed(err.document, err.problems) + beyond_schema(err.document, err.problems, kinds)
    return Invalid(in_file_order(every, err.document))


def document(ref: str) -> Document:
    """The document a ruleset is compiled from (for an overlay, after merging it onto its base)."""
    return load_checked(find(ref)).doc


__all__ = ["compile_documents", "compile_ref", "document", "forget_compiled", "problems", "resolve"]
