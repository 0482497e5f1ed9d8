"""Checking an open file with the real validator: a ruleset, an overlay merged with its base, or a sheet.

What is checked is exactly what `rules validate FILE` and `rules sheet check FILE` check; the only
difference is that the text comes from the editor (saved or not) and is loaded in pieces
(:mod:`interpreter.lsp.pieces`).  Each problem is kept with the file it is in: an overlay's problem
may lie in the base it extends, a sheet's in the ruleset it names.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from interpreter.errors import Invalid, Location, RulesError
from interpreter.load.document import Document
from interpreter.load.find import Found, find
from interpreter.lsp.pieces import Pieces
from interpreter.lsp.schema_check import SchemaCheck
from interpreter.record import field, record
from interpreter.ruleset.model import CompiledRuleset

__all__ = ["KINDS", "DocumentChecks", "Report", "kind_of", "shown_path"]

KINDS = ("ruleset", "overlay", "sheet", "other")
_NO_SHEET = ("procedures", "examples", "notes")  # what a sheet at the defaults never reads
_TOP_KEYS = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:", re.MULTILINE)
_MODELINE = re.compile(r"\A(?:[ \t]*#[^\n]*\n){0,4}?[ \t]*# yaml-language-server: \$schema=\S*?(ruleset|overlay|sheet)"
                       r"\.schema\.json[ \t]*$", re.MULTILINE)
_WARNING = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?:(?P<path>\$\S*): )?(?P<message>.*)$")


def kind_of(text: str) -> str | None:
    """What a file declares itself: an overlay (an `extends:` key), a ruleset or a sheet (a `ruleset:` key, a
    ruleset's with its sections), the kind its schema modeline names; None for any other YAML file."""
    keys = set(_TOP_KEYS.findall(text))
    if "extends" in keys:
        return "overlay"
    if "ruleset" in keys:
        return "ruleset" if keys & {"procedures", "title", "tables", "derived", "constants"} else "sheet"
    found = _MODELINE.match(text)
    return found.group(1) if found else None


def shown_path(path: str) -> str:
    """A path as `rules validate` shows the one it was given: relative to the working folder when inside it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative


@record
class Report:
    """What checking one open file found.

    ``problems`` maps the real path of each file with problems to them; ``ruleset`` is the compiled
    ruleset (the one a sheet names, for a sheet) when there was no problem; ``doc`` the file's own
    document when it could be loaded, ``merged`` the document the ruleset was compiled from.
    ``warnings`` are those `rules validate` prints, each placed in the file; ``partial`` is the
    ruleset compiled from the parts of a file with problems that have none (see ``salvage``);
    ``base`` the compiled base an overlay extends.
    """

    path: str
    kind: str
    problems: dict[str, list[RulesError]]
    warnings: list[RulesError] = field(default_factory=list)
    ruleset: CompiledRuleset | None = None
    doc: Document | None = None
    merged: Document | None = None
    partial: CompiledRuleset | None = None
    base: CompiledRuleset | None = None

    @property
    def names(self) -> CompiledRuleset | None:
        """The ruleset whose names the features offer: the compiled one, else the parts that compile, else the base."""
        return self.ruleset or self.partial or self.base


def _file_of(problem: RulesError, path: str) -> str:
    where = problem.where
    if where is None or not (where.source or where.file):
        return path
    return os.path.realpath(where.source or where.file)


def _sorted(problems: list[RulesError], path: str) -> dict[str, list[RulesError]]:
    out: dict[str, list[RulesError]] = {}
    for problem in problems:
        out.setdefault(_file_of(problem, path), []).append(problem)
    return out


class _Given(Mapping[str, Document]):
    """The documents of the open files by real path, each loaded only when a check asks for it (a file the
    one checked does not use is never parsed for it); one that does not load is read from disk instead."""

    def __init__(self, checks: DocumentChecks, own: str, doc: Document, texts: Mapping[str, str]) -> None:
        self._checks, self._own, self._doc, self._texts = checks, own, doc, texts
        self._loaded: dict[str, Document | None] = {own: doc}

    def __getitem__(self, path: str) -> Document:
        if path not in self._loaded:
            from interpreter.errors import RulesetLoadError

            text = self._texts[path]
            self._loaded[path] = None
            # a file that does not load is reported when it is checked; here it is read from disk
            with contextlib.suppress(RulesetLoadError):
                if kind_of(text) in ("ruleset", "overlay"):
                    self._loaded[path] = self._checks.load(path, text)
        found = self._loaded[path]
        if found is None:
            raise KeyError(path)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter({self._own: None, **dict.fromkeys(self._texts)})

    def __len__(self) -> int:
        return len({self._own, *self._texts})


class DocumentChecks:
    """Checks open files; keeps the pieces of their texts (and so most of the parsing) from one edit to the next."""

    def __init__(self) -> None:
        self._pieces: dict[str, Pieces] = {}
        self.schema = SchemaCheck()
        self._defaults: dict[str, list[str]] = {}  # what default_problems found, by the data it depends on

    def load(self, path: str, text: str) -> Document:
        """The document of an open file's text (raise RulesetLoadError as loading the file would)."""
        real = os.path.realpath(path)
        pieces = self._pieces.setdefault(real, Pieces())
        return pieces.load(text, shown_path(path), path)

    def forget(self, path: str) -> None:
        """Drop what is kept of a file that was closed."""
        self._pieces.pop(os.path.realpath(path), None)

    def check(self, path: str, text: str, others: Mapping[str, str]) -> Report:
        """Check an open file; ``others`` holds the text of the other open files, by real path."""
        from interpreter.errors import RulesetLoadError

        real = os.path.realpath(path)
        kind = kind_of(text)
        if kind is None:  # some other YAML file: not this server's to judge
            return Report(real, "other", {})
        try:
            doc = self.load(path, text)
        except RulesetLoadError as err:
            return Report(real, kind, _sorted([err], real))
        given = _Given(self, real, doc, others)
        if kind == "sheet":
            return self._check_sheet(path, doc, given)
        return self._check_ruleset(path, doc, given, kind)

    def _compile(self, found: Found, given: Mapping[str, Document]) -> tuple[CompiledRuleset, Document]:
        from interpreter.pipeline import compile_documents

        ruleset, loaded = compile_documents(found, given, self.schema)
        return ruleset, loaded.doc

    def _check_ruleset(self, path: str, doc: Document, given: Mapping[str, Document], kind: str) -> Report:
        from interpreter.lsp.salvage import salvage

        real = os.path.realpath(path)
        base = _base(doc, path) if kind == "overlay" else None
        try:
            ruleset, merged = self._compile(Found(path, doc.file, "path"), given)
        except (Invalid, RulesError) as err:
            problems = err.problems if isinstance(err, Invalid) else [err]
            own = [p for p in problems if _file_of(p, real) == real]
            partial = salvage(doc, own) if kind == "ruleset" else None
            return Report(real, kind, _sorted(problems, real), doc=doc, partial=partial, base=base)
        warnings = self._warnings(ruleset, doc, merged) + _unread(ruleset, merged) + _dice_warnings(ruleset, merged)
        return Report(real, kind, {}, warnings, ruleset, doc, merged, base=base)

    def _warnings(self, ruleset: CompiledRuleset, doc: Document, merged: Document) -> list[RulesError]:
        """The creation-rule warnings `rules validate` gives a valid ruleset, placed at the `sheet:` key
        (else at the top).

        They come from a sheet at the defaults checked by the creation rules, which read no
        procedure: an edit to the procedures alone keeps them.
        """
        from interpreter.sheet.new_character import default_problems

        data = merged.data if isinstance(merged.data, dict) else {}
        key = json.dumps({k: v for k, v in data.items() if k not in _NO_SHEET}, default=repr)
        found = self._defaults.get(key)
        if found is None:
            found = self._defaults[key] = default_problems(ruleset)
            while len(self._defaults) > 64:
                self._defaults.pop(next(iter(self._defaults)))
        at = doc.where(("sheet",), key=True) if isinstance(doc.data, dict) and "sheet" in doc.data else doc.where(())
        return [RulesError(f"a sheet at the defaults breaks a creation rule: {message}", at) for message in found]

    def _check_sheet(self, path: str, doc: Document, given: Mapping[str, Document]) -> Report:
        from interpreter.pipeline import compile_ref
        from interpreter.sheet.creation import check
        from interpreter.sheet.open import sheet_ruleset

        real = os.path.realpath(path)
        merged: list[Document] = []

        def compile(ref: str, folder: Path) -> CompiledRuleset:
            found = find(ref, folder)
            if os.path.realpath(found.file) in given:  # the ruleset is open too: its text as it stands
                ruleset, base = self._compile(found, given)
                merged.append(base)
                return ruleset
            return compile_ref(ref, relative_to=folder)

        compiler: Callable[[str, Path], CompiledRuleset] = compile
        try:
            ruleset = sheet_ruleset(doc, path, compiler)
        except Invalid as err:
            return Report(real, "sheet", _sorted(err.problems, real), doc=doc)
        except RulesError as err:
            return Report(real, "sheet", _sorted([err], real), doc=doc)
        problems = check(ruleset, doc.data, doc)
        return Report(real, "sheet", _sorted(problems, real), ruleset=ruleset, doc=doc,
                      merged=merged[0] if merged else None)



def _base(doc: Document, path: str) -> CompiledRuleset | None:
    """The compiled base an overlay extends, as it is saved (None when it does not compile)."""
    from interpreter.pipeline import compile_ref

    ref = doc.data.get("extends") if isinstance(doc.data, dict) else None
    try:
        return compile_ref(ref, relative_to=os.path.dirname(path)) if isinstance(ref, str) else None
    except RulesError:
        return None


def _unread(ruleset: CompiledRuleset, merged: Document) -> list[RulesError]:
    """The constants an overlay adds that nothing reads (a misspelt one, most often), as `rules validate` warns."""
    from interpreter.ruleset.unread import unread_constants

    return unread_constants(ruleset, merged.data, merged) if ruleset.extends is not None else []


def _dice_warnings(ruleset: CompiledRuleset, merged: Document) -> list[RulesError]:
    """The dice expressions and steps that likely do not say what was meant, as `rules validate` warns, each at
    its place."""
    from interpreter.ruleset.dice_warnings import dice_warnings
    from interpreter.ruleset.step_warnings import step_warnings

    out = []
    for line in dice_warnings(ruleset, lambda: merged) + step_warnings(ruleset):
        found = _WARNING.match(line)
        if found is not None:
            where = Location(found["file"], int(found["line"]), int(found["col"]), found["path"] or "")
            out.append(RulesError(found["message"], where))
    return out
