"""The parse cache: documents that were parsed, kept as JSON on disk, in a folder rulesmith marks as its own.

Parsing a large ruleset with ruamel.yaml takes a tenth of a second or more; reading it back from
here takes a millisecond or two.  The cache is the folder ``rulesmith`` inside the chosen one
(``$RULESMITH_CACHE_DIR``, else ``$XDG_CACHE_HOME``, else ``~/.cache``), marked by a
``CACHEDIR.TAG`` file (the Cache Directory Tagging format, which backup tools know to skip).
rulesmith writes only in a folder that holds that mark, or one it makes itself (an older
rulesmith's cache, holding only its own folders of records, is marked and used); a folder of that
name holding anything else is left alone and nothing is cached.  Inside it:

* ``documents/KEY.json``: one parsed file (its data and its position tree);
* ``ids/KEY.json``: the ``ruleset:`` id a file in a ruleset folder declares (null for none);
* ``folders/KEY.json``: the index of one ruleset folder (``load/folder_index.py``): for each file, by
  its size, times and inode, the id it declares, so that a later command reads only the files that changed;
* ``compiled/KEY``: an empty marker saying that a ruleset made of these exact files compiled
  without a problem (its procedures are then compiled one at a time, when a command first asks
  for each: ``ruleset/lazy.py``).
* ``warnings/KEY.json``: the warnings of a ruleset file made of these exact files, as `rules validate`
  gives them (printable lines), told by every command that loads it without compiling it again.

Every key is the SHA-256 of the record format, the rulesmith, ruamel.yaml and jsonschema
versions, the schema's hash and the SHA-256 of the exact bytes that were parsed (of every file,
for a marker).  A record starts with one line of JSON that repeats its key and holds the length
and CRC-32 of the rest; a record whose key, length or check does not match (written for other
bytes or another version, cut short, damaged) is ignored and the file is parsed again.

A record is never trusted more than the file: anyone who may write in the folder could forge one
as easily as rulesmith writes it.  So a record is opened without following a link or waiting on
a FIFO, only when it is a regular file of at most ``limits.MAX_RECORD_BYTES``; its document must
hold only what the YAML reader could have given (whole numbers within 64 bits, nesting within
``limits.MAX_DEPTH``); and every document, read from here or parsed, passes the shape check
before it is used (``load/checked.py``).  At worst a forged record is ignored, or stands for
another valid ruleset.  Records are JSON: reading one never runs code, whatever it holds.

Writing a record removes the oldest written beyond the newest ``limits.CACHE_KEEP`` of its kind
(at a process's first write of the kind, then at every quarter of that number written, so that a
command writing a thousand records does not list the folder a thousand times: a folder holds at most
a quarter more than it keeps, per process writing), so that editing a ruleset many times does not fill the disk; only files whose names the cache
gives its records (64 hexadecimal digits) and its own temporary files are ever removed.  The ids of
the files in ruleset folders keep as many records as one process remembers (``limits.
MAX_DECLARED_FILES``): a folder of a thousand rulesets is parsed once, not on every command.  A
kind's folder that is a link (or anything but a folder) is never written to nor pruned.
``RULESMITH_CACHE=off`` (or 0, no, false) turns the cache off.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import sys
import zlib
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from interpreter import limits
from interpreter.load.bundled import schema_file
from interpreter.load.document import Document
from interpreter.load.yaml import read_at_most

StrPath = str | os.PathLike[str]  # a folder or file: a string in the commands themselves, a Path in tests

__all__ = [
    "FORMAT", "MARK", "compiled_key", "document_key", "folder", "folder_key", "id_key", "is_checked", "mark_checked",
    "read_document", "read_id", "read_record", "schema_digest", "sha256", "versions", "write_document", "write_id",
    "write_record",
]

FORMAT = "rulesmith parse cache 3"  # changed whenever the record layout or the parser's output changes
MARK = "CACHEDIR.TAG"
_SIGNATURE = b"Signature: 8a477f597d28d172789f06886806bc55"
_TAG = _SIGNATURE + b"\n# This folder is the parse cache of rulesmith (rules): it may be removed at any time.\n"
_OWN_FOLDERS = ("documents", "ids", "folders", "compiled", "warnings", "checked")  # ("checked": an older one's)
# (patterns kept as text: `re` compiles one when it is first used, not at every start)
_RECORD = r"[0-9a-f]{64}(?:\.json)?\Z"
_TEMPORARY = r"\.tmp-[A-Za-z0-9_]{8}\Z"
_STALE_SECONDS = 3600  # a temporary file this old belongs to a writer that is gone

_DISTRIBUTIONS = ("rulesmith-rpg", "ruamel.yaml", "jsonschema")

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
    """The cache folder (``rulesmith`` inside the chosen one), or None when caching is turned off."""
    if os.environ.get("RULESMITH_CACHE", "").lower() in ("0", "off", "no", "false"):
        return None
    base = os.environ.get("RULESMITH_CACHE_DIR") or os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache")
    return os.path.join(base, "rulesmith")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


@cache
def versions() -> str:
    """The installed versions of rulesmith (rulesmith-rpg), ruamel.yaml and jsonschema, as one line.

    They are read from the ``*.dist-info`` folder names on ``sys.path``: importing
    ``importlib.metadata`` alone would cost more than a cached load.  Where rulesmith itself has no
    such folder it runs from a source checkout, and its version is told as ``checkout``.
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
    ours = _normal(_DISTRIBUTIONS[0])
    if ours not in found:  # run from a source checkout, not installed: its code is what the checkout holds
        found[ours] = "checkout"
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


def id_key(digest: str) -> str:
    """The key of the id declared by a file whose bytes have SHA-256 ``digest``."""
    return _key("id", digest)


def folder_key(real_folder: str) -> str:
    """The key of the index of a ruleset folder, by its real path."""
    return _key("folder", real_folder)


def compiled_key(digests: Sequence[str]) -> str:
    """The key of the marker saying that a ruleset made of files with these SHA-256s compiled without a problem."""
    return _key("compiled", *digests)


# ------------------------------------------------------------------------------------- the folder


def _is_ours(where: str) -> bool:
    """Whether the cache folder bears the mark; an unmarked one is marked when it holds only what a cache holds."""
    mark = os.path.join(where, MARK)
    if _read(mark, len(_TAG)) is not None:
        return True
    try:
        os.makedirs(where, mode=0o700, exist_ok=True)
        if not _holds_only_records(where, _OWN_FOLDERS):
            return False  # somebody else's folder: never write, never prune there
        _replace(mark, _TAG)
    except OSError:
        return False
    return True


def _holds_only_records(folder: str, subfolders: tuple[str, ...] = ()) -> bool:
    """Whether a folder holds nothing but cache records and temporary files (and such folders of them)."""
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name in subfolders and entry.is_dir(follow_symlinks=False):
                if not _holds_only_records(entry.path):
                    return False
            elif not (re.match(_RECORD, entry.name) or re.match(_TEMPORARY, entry.name)):
                return False
    return True


def _replace(path: str, data: bytes) -> None:
    """Write a file whole or not at all (a reader never sees half of it)."""
    import tempfile  # only a command that writes the cache needs it

    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _write(where: str, kind: str, name: str, data: bytes) -> None:
    """Write one record of a kind, then prune that kind's folder; nothing at all outside a marked folder."""
    try:
        if not _is_ours(where):
            return
        parent = os.path.join(where, kind)
        os.makedirs(parent, mode=0o700, exist_ok=True)
        if not stat.S_ISDIR(os.lstat(parent).st_mode):
            return  # a link in the cache's place: whatever it leads to is not the cache's to write or prune
        _replace(os.path.join(parent, name), data)
        keep = limits.MAX_DECLARED_FILES if kind == "ids" else limits.CACHE_KEEP
        written = _WRITTEN.get(kind, 0)
        _WRITTEN[kind] = written + 1
        if written % max(1, keep // 4) == 0:  # (the first write of a process, then every quarter of keep)
            _prune(parent, keep)
    except OSError:
        pass  # the cache is only a saving


_WRITTEN: dict[str, int] = {}  # records of each kind this process wrote


def _prune(parent: str, keep: int) -> None:
    """Remove the oldest records of a folder beyond the newest ``keep``, and stale temporary files.

    Only names the cache gives its own files are looked at: whatever else is there stays.
    """
    records, stale = [], []
    with os.scandir(parent) as entries:
        for entry in entries:
            with contextlib.suppress(OSError):
                if re.match(_RECORD, entry.name) and entry.is_file(follow_symlinks=False):
                    records.append((entry.stat(follow_symlinks=False).st_mtime_ns, entry.path))
                elif re.match(_TEMPORARY, entry.name) and entry.is_file(follow_symlinks=False):
                    stale.append((entry.stat(follow_symlinks=False).st_mtime_ns, entry.path))
    import time  # (only a write gets here)

    old_enough = time.time_ns() - _STALE_SECONDS * 10**9
    doomed = [path for mtime, path in stale if mtime < old_enough]
    if len(records) > keep:
        records.sort()
        doomed += [path for _, path in records[: len(records) - keep]]
    for path in doomed:
        with contextlib.suppress(OSError):  # (another process may have removed it first)
            os.unlink(path)


def _read(path: str, limit: int) -> bytes | None:
    """The bytes of a regular file of at most ``limit`` bytes; None for anything else (never waits, never follows a link)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        data = read_at_most(fd, limit)
    except OSError:
        return None
    finally:
        os.close(fd)
    return None if len(data) > limit else data


# ------------------------------------------------------------------------------------- records


def _record(key: str, body: object) -> bytes | None:
    payload = json.dumps(body, separators=(",", ":")).encode("utf-8")
    header = json.dumps({"format": FORMAT, "key": key, "versions": versions(), "length": len(payload),
                         "crc32": zlib.crc32(payload)})
    data = header.encode("utf-8") + b"\n" + payload
    return data if len(data) <= limits.MAX_RECORD_BYTES else None


def _body(path: str, key: str) -> object:
    """The body of an intact record with this key, or None."""
    record = _read(path, limits.MAX_RECORD_BYTES)
    if record is None:
        return None
    try:
        head, newline, payload = record.partition(b"\n")
        header = json.loads(head)
        if (not newline or not isinstance(header, dict) or header.get("format") != FORMAT
                or header.get("key") != key or header.get("versions") != versions()
                or header.get("length") != len(payload) or header.get("crc32") != zlib.crc32(payload)):
            return None
        return json.loads(payload)
    except (ValueError, TypeError, RecursionError):
        return None  # not a record of ours


def _as_parsed(value: Any, depth: int = 1) -> bool:
    """Whether data holds only what the YAML reader gives: 64-bit whole numbers, nesting within the limit."""
    if depth > limits.MAX_DEPTH:
        return False
    kind = type(value)
    if kind is dict:
        return all(_as_parsed(v, depth + 1) for v in value.values())
    if kind is list:
        return all(_as_parsed(v, depth + 1) for v in value)
    if kind is int:
        return bool(limits.INT_MIN <= value <= limits.INT_MAX)
    return True


def write_document(where: StrPath, key: str, doc: Document) -> None:
    """Store a parsed document under its key (a document too large for a record is not stored)."""
    data = _record(key, {"data": doc.data, "positions": doc.positions})
    if data is not None:
        _write(os.fspath(where), "documents", f"{key}.json", data)


def read_document(where: StrPath, key: str, file: str, source: str | None = None) -> Document | None:
    """The document stored under a key, or None when there is none or the record is not intact."""
    body = _body(os.path.join(where, "documents", f"{key}.json"), key)
    if not isinstance(body, dict):
        return None
    data, positions = body.get("data"), body.get("positions")
    if not isinstance(data, dict) or not isinstance(positions, list) or len(positions) < 3:
        return None
    try:
        parsed = _as_parsed(data)
    except RecursionError:
        parsed = False
    return Document(data, file, positions, source) if parsed else None


def write_id(where: StrPath, key: str, ruleset_id: str | None, line: int) -> None:
    """Store the id a ruleset-folder file declares (None: it is not a ruleset) and the line that declares it."""
    data = _record(key, {"id": ruleset_id, "line": line})
    if data is not None:
        _write(os.fspath(where), "ids", f"{key}.json", data)


def read_id(where: StrPath, key: str) -> tuple[str | None, int] | None:
    """The (id, line) stored under a key, or None when there is no intact record."""
    body = _body(os.path.join(where, "ids", f"{key}.json"), key)
    if not isinstance(body, dict):
        return None
    ruleset_id, line = body.get("id"), body.get("line")
    if not (ruleset_id is None or isinstance(ruleset_id, str)) or type(line) is not int:
        return None
    return ruleset_id, line


def write_record(where: StrPath, kind: str, key: str, body: object) -> None:
    """Store a JSON body under its key in one of the cache's own folders (``folders``: a ruleset folder's index,
    ``warnings``: a file's warnings); a body too large for a record is not stored."""
    data = _record(key, body) if kind in _OWN_FOLDERS else None
    if data is not None:
        _write(os.fspath(where), kind, f"{key}.json", data)


def read_record(where: StrPath, kind: str, key: str) -> object:
    """The body of the intact record under a key (its shape is for the caller to check), or None."""
    return _body(os.path.join(where, kind, f"{key}.json"), key) if kind in _OWN_FOLDERS else None


def is_checked(where: StrPath, key: str) -> bool:
    """Whether the marker of a compiled key is there: a ruleset made of these bytes compiled before."""
    try:
        return stat.S_ISREG(os.lstat(os.path.join(where, "compiled", key)).st_mode)
    except (OSError, ValueError):
        return False


def mark_checked(where: StrPath, key: str) -> None:
    """Remember that a ruleset with this compiled key compiled without a problem."""
    if not is_checked(where, key):
        _write(os.fspath(where), "compiled", key, b"")
