"""The parsed documents of the bundled rulesets, shipped beside them, so that a first command parses no YAML.

Parsing the largest bundled ruleset with ruamel.yaml costs a first command (an empty parse cache:
just installed, or a new user) more than starting Python.  So each bundled ``ID.yaml`` has beside
it ``ID.parsed.json``: its data and position tree exactly as the YAML reader gives them, with the
parse cache's record format (``cache.FORMAT``) and the SHA-256 of the YAML bytes it was made from.
It is used only for a file in the bundled folder whose bytes have that very SHA-256: editing a
bundled ruleset in a checkout makes its record stale, and the file is parsed as before.

``python tools/parsed_records.py`` writes the records again; ``tests/test_parsed_records.py``
fails when one differs from what parsing its file gives.  The records are part of the package, as
trusted as its code; their documents still pass the shape check like every other
(``load/checked.py``).  A bundled ruleset whose every file matched its record counts as compiled
before, as a marker in the parse cache would say (the tests compile each one for real): its
procedures are compiled when first asked for (``ruleset/lazy.py``).
"""

from __future__ import annotations

import json
import os
from functools import cache

from interpreter.load.bundled import rulesets_folder
from interpreter.load.cache import FORMAT
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
    """What a record holds: the format, the SHA-256 of the YAML bytes, the document's data and positions."""
    return {"format": FORMAT, "sha256": digest, "data": data, "positions": positions}


def shipped_document(path: str, digest: str, file: str, source: str | None = None) -> Document | None:
    """The shipped document of a bundled ruleset file whose bytes have SHA-256 ``digest``, or None."""
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
    return Document(data, file, positions, source)
