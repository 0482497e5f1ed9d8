"""The parsed documents of the bundled rulesets, shipped beside them, so that a first command parses no YAML.

Parsing the largest bundled ruleset with ruamel.yaml costs a first command (an empty parse cache:
just installed, or a new user) more than starting Python.  So each bundled ``ID.yaml`` has beside
it ``ID.parsed.json``: its data and position tree exactly as the YAML reader gives them, with the
parse cache's record format (``cache.FORMAT``) and the SHA-256 of the YAML bytes it was made from.
It is used only for a file in the bundled folder whose bytes have that very SHA-256: editing a
bundled ruleset in a checkout makes its record stale, and the file is parsed as before.

A record also names the SHA-256 of the schema its document passed when it was written (the tool
checks it).  The records are part of the package, as trusted as its code, so a document from a
record made with the schema in use now is not checked again, and a bundled ruleset whose every file
matched such a record counts as compiled before, as a marker in the parse cache would say (the
tests check and compile each one for real): its procedures are compiled when first asked for
(``ruleset/lazy.py``).  A record made with another schema is used as a parse cache record is: its
document passes the shape check first (``load/checked.py``).

``python tools/parsed_records.py`` writes the records again; ``tests/test_parsed_records.py``
fails when one differs from what parsing its file gives, or was made with another schema.
"""

from __future__ import annotations

import json
import os
from functools import cache

from interpreter.load.bundled import rulesets_folder
from interpreter.load.cache import FORMAT, schema_digest
from interpreter.load.document import Document, PositionNode

__all__ = ["SUFFIX", "body", "is_bundled", "record_path", "shipped_document"]

SUFFIX = ".parsed.json"


@cache
def _bundled_folder() -> str:
    return os.path.realpath(rulesets_folder())


def is_bundled(path: str) -> bool:
    """Whether a file is one of the bundled rulesets (in the bundled folder itself)."""
    name = os.path.basename(path)
    return name.endswith(".yaml") and os.path.dirname(os.path.realpath(path)) == _bundled_folder()


def record_path(path: str) -> str:
    """The record shipped beside a bundled ruleset's file."""
    return os.path.join(_bundled_folder(), os.path.basename(path)[: -len(".yaml")] + SUFFIX)


def body(digest: str, data: object, positions: PositionNode) -> dict[str, object]:
    """What a record holds: the format, the SHA-256s of the YAML bytes and of the schema, the document."""
    return {"format": FORMAT, "sha256": digest, "schema": schema_digest(), "data": data, "positions": positions}


def shipped_document(path: str, digest: str, file: str, source: str | None = None) -> tuple[Document, bool] | None:
    """The shipped document of a bundled ruleset file whose bytes have SHA-256 ``digest``, or None.

    With it, whether its record was made with the schema in use now (the document passed it).
    """
    if not is_bundled(path):
        return None
    try:
        with open(record_path(path), "rb") as handle:
            record = json.loads(handle.read())
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("format") != FORMAT or record.get("sha256") != digest:
        return None
    data, positions = record.get("data"), record.get("positions")
    if not isinstance(data, dict) or not isinstance(positions, list) or len(positions) < 3:
        return None
    return Document(data, file, positions, source), record.get("schema") == schema_digest()
