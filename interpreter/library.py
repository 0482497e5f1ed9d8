"""Finding, loading, validating and compiling rulesets: the load -> validate -> compile pipeline."""

from __future__ import annotations

import difflib
from functools import lru_cache
from pathlib import Path

from .errors import Invalid, RulesError, RulesetLoadError
from .loader import load_file
from .model import Ruleset
from .resources import bundled_ids, rulesets_dir
from .validate import iter_errors, sorted_unique


def resolve(ref: str) -> tuple[Path, str]:
    """The file of a bundled id or a path, and the name to show in messages."""
    if ref in bundled_ids():
        return rulesets_dir() / f"{ref}.yaml", f"rulesets/{ref}.yaml"
    path = Path(ref)
    if path.exists():
        return path, ref
    close = difflib.get_close_matches(ref, bundled_ids(), n=1)
    hint = f"did you mean '{close[0]}'?" if close else "bundled rulesets: " + ", ".join(bundled_ids())
    raise RulesetLoadError(f"no bundled ruleset or file named '{ref}'", hint=hint)


def problems(ref: str) -> list[RulesError]:
    """Every problem of a ruleset, sorted by position; empty when it is valid."""
    try:
        compile_ref(ref)
    except Invalid as err:
        return err.problems
    except RulesError as err:
        return [err]
    return []


def compile_ref(ref: str) -> Ruleset:
    """Load, validate and compile a ruleset; raise Invalid with every problem found."""
    path, shown = resolve(ref)
    stat = path.stat()
    return _compile_cached(str(path.resolve()), shown, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=32)
def _compile_cached(path: str, shown: str, mtime: int, size: int) -> Ruleset:
    from .compiler import Compiler

    doc = load_file(path, shown)
    found = list(iter_errors(doc))
    if found:
        raise Invalid(sorted_unique(found))
    compiler = Compiler(doc)
    try:
        return compiler.compile()
    except Invalid as err:
        raise Invalid(sorted_unique(err.problems)) from None


def load_ruleset(ref: str) -> Ruleset:
    """A compiled ruleset from a bundled id or a path."""
    return compile_ref(ref)


__all__ = ["resolve", "problems", "compile_ref", "load_ruleset"]
