"""Loading a ruleset file that has passed the schema, through the parse cache.

The file is read once; the SHA-256 of exactly those bytes is what the cache is keyed by,
so what was checked is always what is compiled.  A cached document is used only when its
record is intact and a marker says that these very bytes passed the schema; anything else
parses the bytes and checks them again.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from interpreter.errors import Invalid
from interpreter.hints import sorted_unique
from interpreter.load import cache
from interpreter.load.document import Document
from interpreter.load.yaml import load_text, read_bytes

__all__ = ["Loaded", "check_schema", "load_checked"]


@dataclass(frozen=True)
class Loaded:
    """A ruleset document that passed the schema, and what it was made from.

    ``digests`` are the SHA-256s of the bytes of its files; ``trusted`` says the schema
    check was skipped because the cache remembered these bytes passing it.
    """

    doc: Document
    digests: tuple[str, ...]
    trusted: bool


def check_schema(doc: Document) -> None:
    """Raise Invalid with every schema problem of a document."""
    from interpreter.load import schema  # jsonschema is imported only when a document is checked

    found = list(schema.iter_errors(doc))
    if found:
        raise Invalid(sorted_unique(found))


def load_checked(path: Path, shown: str, *, trust_cache: bool = True) -> Loaded:
    """The document of a ruleset file, checked against the schema (or known to have passed it).

    With ``trust_cache=False`` the file is parsed and checked whatever the cache holds (and
    the cache is brought up to date).
    """
    source = str(path)
    data = read_bytes(path, shown)
    digest = hashlib.sha256(data).hexdigest()
    where = cache.folder()
    doc = None
    if where is not None and trust_cache:
        doc = cache.read_document(where, cache.document_key(digest), shown, source)
        if doc is not None and cache.is_checked(where, cache.checked_key([digest])):
            return Loaded(doc, (digest,), True)
    stored = doc is not None
    if doc is None:
        doc = load_text(data, shown, source)
    check_schema(doc)
    if where is not None:
        if not stored:
            cache.write_document(where, cache.document_key(digest), doc)
        cache.mark_checked(where, cache.checked_key([digest]))
    return Loaded(doc, (digest,), False)
