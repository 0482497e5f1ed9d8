"""Loading a ruleset that has passed the schema: its file, the files it extends, through the parse cache.

Each file is read once; the SHA-256 of exactly those bytes is what the cache is keyed by,
so what was checked is always what is compiled.  A file with ``extends:`` is an overlay:
its base is found (an id or a path relative to the file), loaded the same way, and the
overlay applied to it as a JSON Merge Patch (see :mod:`interpreter.load.overlay`).  The
schema check is skipped only when a marker says that a ruleset made of these very bytes
passed it; the documents themselves come from the cache when their records are intact.
"""

from __future__ import annotations

import os

from interpreter.errors import Invalid, RulesError, RulesetLoadError, SchemaViolation
from interpreter.hints import sorted_unique
from interpreter.load import cache
from interpreter.load.document import Document
from interpreter.load.find import Found, find
from interpreter.load.yaml import load_text, read_bytes
from interpreter.record import field, record

__all__ = ["Loaded", "check_schema", "in_file_order", "load_checked"]


@record
class Loaded:
    """A ruleset document that passed the schema, and what it was made from.

    ``files`` are the files read (the overlay first, its base last) and ``digests`` the
    SHA-256s of their bytes; ``trusted`` says the schema check was skipped because the
    cache remembered these bytes passing it.  For an overlay, ``extends`` is the id of the
    ruleset it extends and ``changes`` what it changed there, as (JSON path, what).
    """

    doc: Document
    digests: tuple[str, ...]
    trusted: bool
    files: tuple[str, ...] = ()
    extends: str | None = None
    changes: tuple[tuple[str, str], ...] = field(default=())


def in_file_order(problems: list[RulesError], doc: Document) -> list[RulesError]:
    """Problems sorted by position, each once; for an overlay, those in the overlay file first,
    then those in the file it extends, and so on down the chain."""
    ordered = sorted_unique(problems)
    layers: tuple[Document, ...] = getattr(doc, "layers", ())  # (a merged document of an overlay chain has them)
    if not layers:
        return ordered
    rank = {layer.file: i for i, layer in enumerate(layers)}
    return sorted(ordered, key=lambda p: rank.get(p.where.file if p.where else "", len(rank)))


def check_schema(doc: Document) -> None:
    """Raise Invalid with every schema problem of a document."""
    from interpreter.load import schema  # jsonschema is imported only when a document is checked

    found: list[RulesError] = list(schema.iter_errors(doc))
    if found:
        raise Invalid(in_file_order(found, doc), doc)  # the document goes along: later stages may check the rest


@record
class _File:
    path: str
    digest: str
    doc: Document
    stored: bool  # the document came from the cache


def _read(path: str, shown: str, where: str | None, trust_cache: bool) -> _File:
    source = str(path)
    data = read_bytes(path, shown)
    digest = cache.sha256(data)
    if where is not None and trust_cache:
        doc = cache.read_document(where, cache.document_key(digest), shown, source)
        if doc is not None:
            return _File(path, digest, doc, True)
    return _File(path, digest, load_text(data, shown, source), False)


def _chain(found: Found, where: str | None, trust_cache: bool) -> list[_File]:
    """The file and every file it extends, the overlay first."""
    files = [_read(found.file, found.shown, where, trust_cache)]
    seen = {os.path.realpath(found.file)}
    while "extends" in files[-1].doc.data:
        from interpreter.load.overlay import MAX_CHAIN, overlay_problems  # (only an overlay needs them)

        doc = files[-1].doc
        problems = overlay_problems(doc)
        if problems:
            raise Invalid(list(problems))
        at = doc.where(("extends",))
        if len(files) >= MAX_CHAIN:
            raise RulesetLoadError(f"overlays may chain at most {MAX_CHAIN} files deep", at)
        base = find(doc.data["extends"], os.path.dirname(files[-1].path), at)
        if os.path.realpath(base.file) in seen:
            raise RulesetLoadError(f"'extends: {doc.data['extends']}' makes a cycle: {base.shown} is already "
                                   "part of this chain of overlays", at, "one of them must extend another ruleset")
        seen.add(os.path.realpath(base.file))
        files.append(_read(base.file, base.shown, where, trust_cache))
    return files


def _merge(files: list[_File]) -> tuple[Document, str | None, tuple[tuple[str, str], ...]]:
    """The merged document of a chain, the id its overlay extends and what the overlay changed."""
    top = files[0].doc
    if len(files) == 1:
        return top, None, ()
    from interpreter.load.overlay import MergedDocument, changes, inherited, merge_patch

    data = base = files[-1].doc.data
    found: list[RulesError] = []
    for file in reversed(files[:-1]):
        own = file.doc.data.get("ruleset")
        if own is not None and own == data.get("ruleset"):
            found.append(SchemaViolation(f"'{own}' is the id of the ruleset this one extends",
                                         file.doc.where(("ruleset",)), "an overlay needs an id of its own"))
        base = data
        data = merge_patch(inherited(data), file.doc.data)
    if found:
        raise Invalid(found)
    skip = ("$.extends", "$.ruleset")
    changed = tuple(c for c in changes(base, top.data) if c[0] not in skip)
    merged = MergedDocument(data, top.file, top.positions, top.source, tuple(f.doc for f in files))
    extends = base.get("ruleset")
    return merged, extends if isinstance(extends, str) else None, changed


def load_checked(found: Found | str | os.PathLike[str], shown: str | None = None, *,
                 trust_cache: bool = True) -> Loaded:
    """The document of a ruleset, checked against the schema (or known to have passed it).

    ``found`` is where the ruleset is (or just its file, named ``shown`` in messages).
    With ``trust_cache=False`` every file is parsed and the result checked whatever the
    cache holds (and the cache is brought up to date).
    """
    if not isinstance(found, Found):
        found = Found(os.fspath(found), shown if shown is not None else str(found), "path")
    where = cache.folder()
    files = _chain(found, where, trust_cache)
    doc, extends, changed = _merge(files)
    digests = tuple(f.digest for f in files)
    paths = tuple(f.path for f in files)
    if (where is not None and trust_cache and all(f.stored for f in files)
            and cache.is_checked(where, cache.checked_key(digests))):
        return Loaded(doc, digests, True, paths, extends, changed)
    check_schema(doc)
    if where is not None:
        for file in files:
            if not file.stored:
                cache.write_document(where, cache.document_key(file.digest), file.doc)
        cache.mark_checked(where, cache.checked_key(digests))
    return Loaded(doc, digests, False, paths, extends, changed)
