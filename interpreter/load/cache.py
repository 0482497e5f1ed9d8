"""The parse cache: documents that were parsed and passed the schema, kept as JSON on disk.

Parsing a large ruleset with ruamel.yaml and checking it against the schema takes a tenth
of a second or more; reading it back from here takes a millisecond or two.  Two kinds of
entries live in the cache folder:

* ``documents/KEY.json``: one parsed file (its data and its position tree);
* ``checked/KEY``: an empty marker saying that a ruleset made of these exact files passed
  the schema; under another key, that it also compiled without a problem (its procedures
  are then compiled one at a time, when a command first asks for each: ``ruleset/lazy.py``).

Every key is the SHA-256 of the record format, the rulesmith, ruamel.yaml and jsonschema
versions, the schema's hash and the SHA-256 of the exact bytes that were parsed (of every
file, for a marker).  A record starts with one line of JSON that repeats its key and holds
the length and CRC-32 of the rest; a record whose key, length or check does not match (written
for other bytes or another version, cut short, damaged) is ignored and the file is parsed and
checked again.  (The check guards against damage, not against someone who may write in the
cache folder: they could write a matching SHA-256 as easily, and a CRC-32 of the hundred
kilobytes of a large record costs a fiftieth of its SHA-256.)  Records are JSON: reading one
never runs code, whatever it holds.

Writing a record removes the oldest written beyond the newest ``KEEP`` of its kind, so that
editing a ruleset many times does not fill the disk.

The folder is ``$RULESMITH_CACHE_DIR``, else ``$XDG_CACHE_HOME/rulesmith``, else
``~/.cache/rulesmith``; ``RULESMITH_CACHE=off`` (or 0, no, false) turns the cache off.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import zlib
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

from interpreter.load.bundled import schema_file
from interpreter.load.document import Document

StrPath = str | os.PathLike[str]  # a folder or file: a string in the commands themselves, a Path in tests

__all__ = [
    "FORMAT", "checked_key", "compiled_key", "document_key", "folder", "is_checked", "mark_checked", "read_document",
    "schema_digest", "sha256", "versions", "write_document",
]

FORMAT = "rulesmith parse cache 2"  # changed whenever the record layout or the parser's output changes

_DISTRIBUTIONS = ("rulesmith", "ruamel.yaml", "jsonschema")

if TYPE_CHECKING:
    from hashlib import sha256 as _sha256
else:
    try:  # the standard library's own SHA-256: hashlib would load OpenSSL first, milliseconds of a start
        from _sha256 import sha256 as _sha256
    except ImportError:  # (Python 3.12 and later name it differently)
        from hashlib import sha256 as _sha256


def sha256(data: bytes) -> str:
    """The SHA-256 of some bytes, as hex."""
    return _sha256(data).hexdigest()


def folder() -> str | None:
    """The cache folder, or None when caching is turned off."""
    if os.environ.get("RULESMITH_CACHE", "").lower() in ("0", "off", "no", "false"):
        return None
    base = os.environ.get("RULESMITH_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "rulesmith")
    return base


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


@cache
def versions() -> str:
    """The installed versions of rulesmith, ruamel.yaml and jsonschema, as one line.

    They are read from the ``*.dist-info`` folder names on ``sys.path``: importing
    ``importlib.metadata`` alone would cost more than a cached load.
    """
    wanted = {_normal(name): name for name in _DISTRIBUTIONS}
    found: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.endswith(".dist-info"):
                dist, _, version = name[: -len(".dist-info")].partition("-")
                normal = _normal(dist)
                if normal in wanted and normal not in found:
                    found[normal] = version
    if len(found) < len(wanted):
        from importlib import metadata  # only where the folder names did not tell

        for normal, name in wanted.items():
            if normal not in found:
                try:
                    found[normal] = metadata.version(name)
                except metadata.PackageNotFoundError:
                    found[normal] = "unknown"
    return "; ".join(f"{name} {found[_normal(name)]}" for name in _DISTRIBUTIONS)


@cache
def schema_digest() -> str:
    """The SHA-256 of the bundled ruleset schema."""
    with open(schema_file(), "rb") as handle:
        return sha256(handle.read())


def _key(*parts: str) -> str:
    text = "\0".join((FORMAT, versions(), schema_digest()) + parts)
    return sha256(text.encode("utf-8"))


def document_key(digest: str) -> str:
    """The key of the parsed document of a file whose bytes have SHA-256 ``digest``."""
    return _key("document", digest)


def checked_key(digests: Sequence[str]) -> str:
    """The key of the marker for a ruleset made of files with these SHA-256s (top file first)."""
    return _key("checked", *digests)


KEEP = 256  # records of each kind kept; writing one more removes the oldest written


def _write(path: str, data: bytes) -> None:
    """Write a file whole or not at all (a reader never sees half of it), then prune its folder."""
    import tempfile  # only a command that writes the cache needs it

    try:
        parent = os.path.dirname(path)
        os.makedirs(parent, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=parent, prefix=".tmp-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
        _prune(parent)
    except OSError:
        pass  # the cache is only a saving


def _prune(folder: str) -> None:
    """Remove the oldest records of a folder beyond the newest ``KEEP`` (each edit of a ruleset adds one)."""
    with os.scandir(folder) as entries:
        records = [(e.stat().st_mtime_ns, e.path) for e in entries if not e.name.startswith(".") and e.is_file()]
    if len(records) <= KEEP:
        return
    records.sort()
    for _, old in records[: len(records) - KEEP]:
        with contextlib.suppress(OSError):  # (another process may have removed it first)
            os.unlink(old)


def write_document(where: StrPath, key: str, doc: Document) -> None:
    """Store a parsed document under its key."""
    payload = json.dumps({"data": doc.data, "positions": doc.positions}, separators=(",", ":")).encode("utf-8")
    header = json.dumps({"format": FORMAT, "key": key, "versions": versions(), "length": len(payload),
                         "crc32": zlib.crc32(payload)})
    _write(os.path.join(where, "documents", f"{key}.json"), header.encode("utf-8") + b"\n" + payload)


def read_document(where: StrPath, key: str, file: str, source: str | None = None) -> Document | None:
    """The document stored under a key, or None when there is none or the record is not intact."""
    try:
        with open(os.path.join(where, "documents", f"{key}.json"), "rb") as handle:
            record = handle.read()
        head, newline, payload = record.partition(b"\n")
        header = json.loads(head)
        if (not newline or not isinstance(header, dict) or header.get("format") != FORMAT
                or header.get("key") != key or header.get("versions") != versions()
                or header.get("length") != len(payload) or header.get("crc32") != zlib.crc32(payload)):
            return None
        body = json.loads(payload)
        data, positions = body["data"], body["positions"]
        if not isinstance(data, dict) or not isinstance(positions, list) or len(positions) < 3:
            return None
    except (OSError, ValueError, TypeError, KeyError, RecursionError):
        return None  # no record, or one that is not ours: parse the file instead
    return Document(data, file, positions, source)


def compiled_key(digests: Sequence[str]) -> str:
    """The key of the marker saying that a ruleset made of files with these SHA-256s compiled without a problem."""
    return _key("compiled", *digests)


def is_checked(where: StrPath, key: str) -> bool:
    """Whether a ruleset with this checked key passed the schema before (or, with a compiled key, compiled)."""
    return os.path.isfile(os.path.join(where, "checked", key))


def mark_checked(where: StrPath, key: str) -> None:
    """Remember that a ruleset with this checked key passed the schema (or, with a compiled key, compiled)."""
    marker = os.path.join(where, "checked", key)
    if not os.path.isfile(marker):
        _write(marker, b"")
