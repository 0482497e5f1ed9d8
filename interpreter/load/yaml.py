"""Reading a YAML file into a Document: plain data plus the position of every key and value.

A ruleset (or sheet) is one YAML 1.2 document whose top level is a mapping, read with
ruamel.yaml's parser (the only YAML parser used).  Refused, each with a
:class:`~interpreter.errors.RulesetLoadError` naming the line and column of the first
problem:

* more than ``limits.MAX_FILE_BYTES`` bytes, text that is not UTF-8 (a leading byte order
  mark is accepted and ignored), control characters;
* a ``%YAML`` directive other than ``%YAML 1.2``;
* tags of any kind (``!!str``, ``!foo``, ``!!python/...``): nothing is ever built from a tag;
* everything :mod:`interpreter.load.build` refuses: more than one document, a top level
  that is not a mapping, keys that are not strings, duplicate keys, merge keys, alias
  bombs and nesting past the limits.
"""

from __future__ import annotations

import os
import re
import stat
from functools import cache

from interpreter import limits
from interpreter.errors import Location, RulesetLoadError
from interpreter.load.document import Document


def read_at_most(fd: int, limit: int) -> bytes:
    """The bytes of an open file, up to one past ``limit`` (so that a file grown past it is told apart)."""
    chunks, size = [], 0
    while size <= limit:
        chunk = os.read(fd, limit + 1 - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


__all__ = ["decode", "load_file", "load_text", "read_bytes"]


@cache
def _not_printable() -> re.Pattern[str]:
    """The characters YAML does not allow (compiled when first needed: it takes milliseconds)."""
    return re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _line_col(text: str, index: int) -> tuple[int, int]:
    """1-based line and column of ``text[index]``, counting line breaks as the parser does."""
    head = text[:index]
    line = head.count("\n") + head.count("\r") - head.count("\r\n") + 1
    start = max(head.rfind("\n"), head.rfind("\r")) + 1
    col = index - start + 1
    if line == 1 and head.startswith("\ufeff"):
        col -= 1
    return line, col


def _fail(message: str, file: str, line: int, col: int) -> RulesetLoadError:
    return RulesetLoadError(message, where=Location(file, line, col, "$"))


def _too_big(size: int, file: str) -> RulesetLoadError:
    return _fail(f"file is {size} bytes; the limit is {limits.MAX_FILE_BYTES}", file, 1, 1)


def decode(data: bytes, file: str) -> str:
    """UTF-8 bytes as text, refusing files over the size limit and bytes that are not UTF-8."""
    if len(data) > limits.MAX_FILE_BYTES:
        raise _too_big(len(data), file)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = data[: exc.start].decode("utf-8")
        line, col = _line_col(good, len(good))
        raise _fail(f"not valid UTF-8 (byte 0x{data[exc.start]:02x})", file, line, col) from None


def _check_text(text: str, file: str) -> str:
    """Refuse characters YAML does not allow; drop a leading byte order mark."""
    bad = _not_printable().search(text)
    if bad is not None:
        line, col = _line_col(text, bad.start())
        raise _fail(f"character U+{ord(bad.group()):04X} is not allowed", file, line, col)
    return text.removeprefix("\ufeff")


def _parse(text: str, file: str, source: str | None) -> Document:
    # The parser is imported here, not above: a load the parse cache answers never needs it.
    from interpreter.load.build import build_document
    from interpreter.load.events import yaml_events

    text = _check_text(text, file)
    return build_document(yaml_events(text), file, text, source)


def load_text(text: str | bytes, file: str = "<string>", source: str | None = None) -> Document:
    """Load a document from text (or from UTF-8 bytes); ``file`` names it in messages.

    ``source`` is the path the text was read from, if any (errors then show its lines).
    """
    if isinstance(text, (bytes, bytearray, memoryview)):
        text = decode(bytes(text), file)
    elif 4 * len(text) > limits.MAX_FILE_BYTES:  # else it is surely small enough
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > limits.MAX_FILE_BYTES:
            raise _too_big(size, file)
    return _parse(text, file, source)


def read_bytes(path: str | os.PathLike[str], file: str) -> bytes:
    """The bytes of a regular file, read once, refusing a file over the size limit before reading it all.

    Only a regular file is read: a FIFO, a device or a folder is refused in one line (opening
    never waits for a writer), and so is a path the system cannot take (too long, a NUL).
    """
    limit = limits.MAX_FILE_BYTES
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except (OSError, ValueError) as exc:
        raise RulesetLoadError(f"cannot read the file: {_reason(exc)}", where=Location(file, 0, 0, "$")) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else "a FIFO" if stat.S_ISFIFO(info.st_mode) else \
                "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode) else "not a regular file"
            raise RulesetLoadError(f"cannot read the file: it is {kind}, not a regular file",
                                   where=Location(file, 0, 0, "$"))
        if info.st_size > limit:
            raise _too_big(info.st_size, file)
        data = read_at_most(fd, limit)
    except OSError as exc:
        raise RulesetLoadError(f"cannot read the file: {_reason(exc)}", where=Location(file, 0, 0, "$")) from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise _fail(f"file is more than {limit} bytes; the limit is {limit}", file, 1, 1)
    return data


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValueError):
        return "the path contains a NUL character"
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else exc.__class__.__name__


def load_file(path: str | os.PathLike[str], display_name: str | None = None) -> Document:
    """Load a file; ``display_name`` (default: the path as given) names it in messages."""
    source = os.fspath(path)
    file = display_name if display_name is not None else source
    return load_text(read_bytes(path, file), file, source)
