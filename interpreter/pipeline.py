"""Finding, loading, validating and compiling rulesets: the load -> validate -> compile pipeline."""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path

from interpreter.errors import Invalid, RulesError, RulesetLoadError
from interpreter.hints import sorted_unique, suggest
from interpreter.load.bundled import bundled_ids, rulesets_dir, schema_path
from interpreter.load.yaml_loader import Document, load_file
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
    from interpreter.procedure.kinds import COMPILERS
    from interpreter.ruleset.compiler import Compiler

    doc = load_file(path, shown)
    check_schema(Path(path), doc)
    compiler = Compiler(doc, COMPILERS)
    try:
        return compiler.compile()
    except Invalid as err:
        raise Invalid(sorted_unique(err.problems)) from None


def _cache_dir() -> Path | None:
    """Where files that passed the schema are remembered, or None when remembering is off."""
    if os.environ.get("RULESMITH_CACHE", "").lower() in ("0", "off", "no", "false"):
        return None
    base = os.environ.get("RULESMITH_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "rulesmith")
    return Path(base) / "schema-valid"


def check_schema(path: Path, doc: Document) -> None:
    """Raise Invalid with every schema problem of a loaded file.

    A file whose exact bytes already passed this exact schema is not checked again: the
    answer cannot differ, and it spares every command the JSON Schema work.
    """
    folder = _cache_dir()
    marker = None
    if folder is not None:
        digest = hashlib.sha256(schema_path().read_bytes() + b"\0" + path.read_bytes()).hexdigest()
        marker = folder / digest
        if marker.exists():
            return
    from interpreter.load.schema import iter_errors  # imported only when a file has to be checked

    found = list(iter_errors(doc))
    if found:
        raise Invalid(sorted_unique(found))
    if marker is not None:
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
        except OSError:
            pass  # remembering is only a saving


def load_ruleset(ref: str) -> Ruleset:
    """A compiled ruleset from a bundled id or a path."""
    return compile_ref(ref)


__all__ = ["compile_ref", "load_ruleset", "problems", "resolve"]
