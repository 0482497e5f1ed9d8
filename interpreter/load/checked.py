"""Loading a ruleset that has passed the schema: its file, the files it extends, through the parse cache.

Each file is read once; the SHA-256 of exactly those bytes is what the cache is keyed by,
so what was checked is always what is compiled.  A file with ``extends:`` is an overlay:
its base is found (an id, or a path inside the folder of the file that names it), loaded the
same way, and the overlay applied to it as a JSON Merge Patch (see
:mod:`interpreter.load.overlay`).  The documents come from the cache when their records are
intact, and every document is checked against the schema, whether parsed or read back, but for
the records shipped with the bundled rulesets, made from documents that passed this very schema
(:mod:`interpreter.load.shipped`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from interpreter import limits
from interpreter.errors import Invalid, RulesError, RulesetLoadError, SchemaViolation
from interpreter.hints import sorted_unique
from interpreter.load import cache
from interpreter.load.document import Document, Path
from interpreter.load.find import Found, find, not_a_ruleset, ruleset_shaped
from interpreter.load.shipped import shipped_document
from interpreter.load.yaml import load_text, read_bytes
from interpreter.record import field, record

__all__ = ["Loaded", "check_schema", "in_file_order", "load_checked"]


@record
class Loaded:
    """A ruleset document that passed the schema, and what it was made from.

    ``files`` are the files read (the overlay first, its base last) and ``digests`` the
    SHA-256s of their bytes; ``trusted`` says every document came from the parse cache or the
    records shipped with the bundled rulesets (and passed the shape check all the same, unless
    ``shipped``: every one came from those records, made with the schema in use, and such a
    document is not checked again: ``load/shipped.py``).  For an
    overlay, ``extends`` is the id of the ruleset it extends and ``changes`` what it changed
    there, as (JSON path, what).
    """

    doc: Document
    digests: tuple[str, ...]
    trusted: bool
    files: tuple[str, ...] = ()
    extends: str | None = None
    changes: tuple[tuple[str, str], ...] = field(default=())
    shipped: bool = False


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
    """Raise Invalid with every schema problem of a document.

    The shape check answers first, in milliseconds; only a document that fails it is checked
    by jsonschema (imported then), which says what is wrong and where.
    """
    from interpreter.load.shape import ruleset_shape  # (a bundled ruleset's shipped document needs no check)

    if ruleset_shape()(doc.data):
        return
    from interpreter.load import schema

    found: list[RulesError] = list(schema.iter_errors(doc))
    if found:
        raise Invalid(in_file_order(found, doc), doc)  # the document goes along: later stages may check the rest


@record
class _File:
    path: str
    digest: str
    doc: Document
    stored: bool  # the document came from the cache
    size: int
    shipped: bool = False  # it came from the record shipped beside a bundled ruleset, made with this schema


def _read(path: str, shown: str, where: str | None, trust_cache: bool, used: list[bool],
          given: Mapping[str, Document]) -> _File:
    source = str(path)
    held = given.get(os.path.realpath(path)) if given else None
    if held is not None:  # text an editor holds, perhaps unsaved: it is never cached
        return _File(path, "", held, False, 0)
    data = read_bytes(path, shown)
    digest = cache.sha256(data)
    if where is not None and trust_cache:
        record = shipped_document(path, digest, shown, source)
        if record is not None:
            used.append(True)
            return _File(path, digest, record[0], True, len(data), record[1])
        doc = cache.read_document(where, cache.document_key(digest), shown, source)
        used.append(doc is not None)
        if doc is not None:
            return _File(path, digest, doc, True, len(data))
    return _File(path, digest, load_text(data, shown, source), False, len(data))


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except (OSError, ValueError):
        return 0  # (reading it says why it cannot be read)


def _chain(found: Found, where: str | None, trust_cache: bool, used: list[bool],
           given: Mapping[str, Document]) -> list[_File]:
    """The file and every file it extends, the overlay first.

    A base is found by id or by a path inside the folder of the file that names it (see
    :func:`interpreter.load.find.find`), and all the files together hold at most
    ``limits.MAX_CHAIN_BYTES``: a base that would pass it is refused before it is read.
    """
    files = [_read(found.file, found.shown, where, trust_cache, used, given)]
    seen = {os.path.realpath(found.file)}
    while "extends" in files[-1].doc.data:
        from interpreter.load.overlay import overlay_problems  # (only an overlay needs it)

        doc = files[-1].doc
        problems = overlay_problems(doc)
        if problems:
            raise Invalid(list(problems))
        at = doc.where(("extends",))
        if len(files) >= limits.MAX_CHAIN:
            raise RulesetLoadError(f"overlays may chain at most {limits.MAX_CHAIN} files deep", at)
        base = find(doc.data["extends"], os.path.dirname(files[-1].path), at)
        if os.path.realpath(base.file) in seen:
            raise RulesetLoadError(f"'extends: {doc.data['extends']}' makes a cycle: {base.shown} is already "
                                   "part of this chain of overlays", at, "one of them must extend another ruleset")
        seen.add(os.path.realpath(base.file))
        held = sum(f.size for f in files)
        if held + _size(base.file) > limits.MAX_CHAIN_BYTES:
            raise RulesetLoadError(f"this chain of overlays would hold {held + _size(base.file)} bytes with "
                                   f"{base.shown}; the limit is {limits.MAX_CHAIN_BYTES} in all", at)
        files.append(_read(base.file, base.shown, where, trust_cache, used, given))
        if base.origin == "path" and not ruleset_shaped(files[-1].doc.data):
            raise not_a_ruleset(base.shown, at)  # (a file beside this one, perhaps no ruleset at all: not quoted)
        if held + files[-1].size > limits.MAX_CHAIN_BYTES:  # (it grew while it was read)
            raise RulesetLoadError(f"this chain of overlays holds more than {limits.MAX_CHAIN_BYTES} bytes", at)
    return files


def _merge(files: list[_File]) -> tuple[Document, str | None, tuple[tuple[str, str], ...]]:
    """The merged document of a chain, the id its overlay extends and what the overlay changed."""
    top = files[0].doc
    if len(files) == 1:
        return top, None, ()
    from interpreter.load.overlay import MergedDocument, changes, inherited
    from interpreter.load.patches import Origin, apply

    data = base = files[-1].doc.data
    found: list[RulesError] = []
    moved: list[Mapping[Path, Origin]] = []
    for file in reversed(files[:-1]):
        own = file.doc.data.get("ruleset")
        if own is not None and own == data.get("ruleset"):
            found.append(SchemaViolation(f"'{own}' is the id of the ruleset this one extends",
                                         file.doc.where(("ruleset",)), "an overlay needs an id of its own"))
        base = data
        merged_data, origins, problems = apply(inherited(data), file.doc, f"'{data.get('ruleset')}'")
        data = merged_data if isinstance(merged_data, dict) else {}
        found += problems
        moved.insert(0, origins)
    if found:
        raise Invalid(in_file_order(found, top))
    skip = ("$.extends", "$.ruleset")
    changed = tuple(c for c in changes(base, top.data) if c[0] not in skip)
    merged = MergedDocument(data, top.file, top.positions, top.source, tuple(f.doc for f in files), tuple(moved))
    extends = base.get("ruleset")
    return merged, extends if isinstance(extends, str) else None, changed


def load_checked(found: Found | str | os.PathLike[str], shown: str | None = None, *,
                 trust_cache: bool = True, given: Mapping[str, Document] | None = None,
                 check: Callable[[Document], None] | None = None) -> Loaded:
    """The document of a ruleset, checked against the schema.

    ``found`` is where the ruleset is (or just its file, named ``shown`` in messages).  Documents
    come from the parse cache when it holds intact records for these exact bytes; they pass the
    same checks as parsed ones, and when they fail anything, the files themselves are parsed and
    checked instead (a record is never trusted more than the file).  With ``trust_cache=False``
    every file is parsed whatever the cache holds (and the cache is brought up to date).
    ``given`` maps the real paths of files whose text is already loaded (an editor's unsaved
    text) to their documents: those are used instead of the files, and never cached.  ``check``
    checks the merged document against the schema in place of :func:`check_schema` (it must find
    exactly what that finds: the language server's keeps the results of parts an edit left alone).
    """
    if not isinstance(found, Found):
        found = Found(os.fspath(found), shown if shown is not None else str(found), "path")
    where = cache.folder()
    given = given or {}
    checker = check or check_schema
    loaded = None
    if where is not None and trust_cache:
        used: list[bool] = []
        try:
            loaded = _load(found, where, True, used, given, checker)
        except Exception:  # (with a record involved, whatever went wrong may be the record's)
            if not any(used):
                raise
    if loaded is None:
        loaded = _load(found, where, False, [], given, checker)
    if found.origin == "user" and found.id is not None and loaded.doc.data.get("ruleset") != found.id:
        # the id the cache gave for the file is not the one it declares: look it up in the files themselves
        again = find(found.id, trust_cache=False)
        if again != found:
            return _load(again, where, False, [], given, checker)
    return loaded


def _load(found: Found, where: str | None, trust_cache: bool, used: list[bool], given: Mapping[str, Document],
          check: Callable[[Document], None]) -> Loaded:
    files = _chain(found, where, trust_cache, used, given)
    doc, extends, changed = _merge(files)
    digests = tuple(f.digest for f in files)
    paths = tuple(f.path for f in files)
    shipped = all(f.shipped for f in files)
    if not shipped or check is not check_schema:  # (a shipped record's document passed this very schema)
        check(doc)
    if where is not None:
        for file in files:
            if not file.stored and file.digest:
                cache.write_document(where, cache.document_key(file.digest), file.doc)
    stored = all(f.stored for f in files)
    return Loaded(doc, digests, stored, paths, extends, changed, shipped)
