"""Finding, loading, validating and compiling rulesets: the load -> validate -> compile pipeline."""

from __future__ import annotations

from pathlib import Path

from interpreter.errors import Invalid, RulesError, RulesetLoadError
from interpreter.hints import sorted_unique, suggest
from interpreter.load.bundled import bundled_ids, rulesets_dir
from interpreter.load.checked import load_checked
from interpreter.load.document import Document
from interpreter.ruleset.model import Ruleset


def resolve(ref: str) -> tuple[Path, str]:
    """The file of a bundled id or a path, and the name to show in messages."""
    if ref in bundled_ids():
        return rulesets_dir() / f"{ref}.yaml", f"rulesets/{ref}.yaml"
    path = Path(ref)
    if path.exists():
        return path, ref
    hint = suggest(ref, bundled_ids()) or "bundled rulesets: " + ", ".join(bundled_ids())
    raise RulesetLoadError(f"no bundled ruleset or file named '{ref}'", hint=hint)


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


# Rulesets compiled in this process: (file, shown name) -> (size and time, checked for real, ruleset).
_COMPILED: dict[tuple[str, str], tuple[tuple[int, int], bool, Ruleset]] = {}
_COMPILED_MAX = 32


def forget_compiled() -> None:
    """Drop the rulesets this process compiled (the next compile_ref loads its file again)."""
    _COMPILED.clear()


def compile_ref(ref: str, *, trust_cache: bool = True) -> Ruleset:
    """Load, validate and compile a ruleset; raise Invalid with every problem found.

    A file compiled before in this process and not changed since (same size and
    modification time) is not loaded again.  With ``trust_cache=False`` the file is parsed
    and checked against the schema even when the parse cache remembers it.
    """
    path, shown = resolve(ref)
    real = str(path.resolve())
    stat = path.stat()
    version = (stat.st_mtime_ns, stat.st_size)
    known = _COMPILED.get((real, shown))
    if known is not None and known[0] == version and (trust_cache or known[1]):
        return known[2]
    ruleset, for_real = _load_and_compile(Path(real), shown, trust_cache)
    if len(_COMPILED) >= _COMPILED_MAX:
        _COMPILED.pop(next(iter(_COMPILED)))
    _COMPILED[(real, shown)] = (version, for_real, ruleset)
    return ruleset


def _load_and_compile(path: Path, shown: str, trust_cache: bool) -> tuple[Ruleset, bool]:
    """The compiled ruleset, and whether its file was checked against the schema in this run."""
    loaded = load_checked(path, shown, trust_cache=trust_cache)
    try:
        return _compile(loaded.doc), not loaded.trusted
    except RulesError:
        raise
    except Exception:
        # The compiler relies on the shape the schema checked.  A document taken from the
        # cache on trust that breaks it was not what the cache claimed (a forged record):
        # check the file for real, which reports its problems as errors.
        if not loaded.trusted:
            raise
    return _compile(load_checked(path, shown, trust_cache=False).doc), True


def _compile(doc: Document) -> Ruleset:
    from interpreter.procedure.kinds import COMPILERS
    from interpreter.ruleset.compiler import Compiler

    try:
        return Compiler(doc, COMPILERS).compile()
    except Invalid as err:
        raise Invalid(sorted_unique(err.problems)) from None


def document(ref: str) -> Document:
    """The document a ruleset is compiled from (for an overlay, after merging it onto its base)."""
    path, shown = resolve(ref)
    return load_checked(Path(str(path.resolve())), shown).doc


def load_ruleset(ref: str) -> Ruleset:
    """A compiled ruleset from a bundled id or a path."""
    return compile_ref(ref)


__all__ = ["compile_ref", "document", "forget_compiled", "load_ruleset", "problems", "resolve"]
