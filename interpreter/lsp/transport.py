"""The server's side of the wire: frames read within bounds, and an answer to every request.

A frame is headers, a blank line and a body of ``Content-Length`` bytes.  The length is checked
before anything is read: a body over :data:`MAX_FRAME` is not held, it is read through in small
chunks (its first bytes kept to say which request or file it was) and answered with an error; a
length over :data:`MAX_SKIP`, or a header line over :data:`MAX_HEADER`, leaves no way to find the
next frame, so the server says why on stderr and ends (exit 1).  A body that is not JSON, a
message that is not JSON-RPC, and a request whose params do not fit the protocol's types are
answered with the JSON-RPC error for each; a notification of that kind is dropped.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import BinaryIO

from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest, JsonRpcParseError
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from interpreter import limits

__all__ = ["MAX_FRAME", "MAX_HEADER", "MAX_SKIP", "Protocol", "serve_frames"]

MAX_FRAME = 8 * limits.MAX_FILE_BYTES  # a file at the size limit, written as JSON with room for escapes
MAX_SKIP = 64 * MAX_FRAME  # past this, reading a body through to find the next frame is not worth waiting for
MAX_HEADER = 4096  # bytes of one header line
_HEAD = 4096  # bytes of a refused body kept to name the request or file it was
_CHUNK = 1 << 16
_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')
_METHOD = re.compile(rb'"method"\s*:\s*"([A-Za-z/$_]{1,100})"')
_URI = re.compile(rb'"uri"\s*:\s*"((?:[^"\\]|\\.){1,2000})"')

logger = logging.getLogger(__name__)


class _Dropped:
    """A message already answered (or a notification dropped) while it was read."""


class Protocol(LanguageServerProtocol):
    """The protocol, answering a request whose params do not fit with an error instead of dropping it."""

    def structure_message(self, data: dict[str, object]) -> object:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if "method" in data and "id" in data:
                self.refuse(data["id"], exc.code, f"{exc.message or 'invalid params'} for {data['method']!s:.100}")
            return _Dropped()

    def handle_message(self, message: object) -> None:
        if isinstance(message, _Dropped):
            return
        if not hasattr(message, "jsonrpc"):  # JSON, but not a JSON-RPC message
            self.refuse(None, JsonRpcInvalidRequest.CODE, "not a JSON-RPC message")
            return
        super().handle_message(message)  # type: ignore[arg-type]

    def refuse(self, msg_id: object, code: int, message: str) -> None:
        """Answer a request (``msg_id`` None when it cannot be told) with a JSON-RPC error."""
        known = msg_id if isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool) else None
        self._send_data({"jsonrpc": "2.0", "id": known, "error": {"code": code, "message": message}})  # id null kept


def _read_through(stdin: BinaryIO, length: int) -> tuple[bytes, int]:
    """Read a body without holding it: (its first bytes, how many bytes were read in all)."""
    head = b""
    done = 0
    while done < length:
        chunk = stdin.read(min(_CHUNK, length - done))
        if not chunk:
            break
        if len(head) < _HEAD:
            head += chunk[:_HEAD - len(head)]
        done += len(chunk)
    return head, done


def _quit(why: str) -> int:
    print(f"rules lsp: {why}; the server ends (an editor restarts it)", file=sys.stderr, flush=True)
    return 1


# Above the complexity gate (C901): one loop over a frame's header, size checks, body and dispatch.
async def serve_frames(server: LanguageServer, stdin: BinaryIO,  # noqa: C901
                       too_big: Callable[[str, str, int], None]) -> int:
    """Read and handle frames until the input ends (0) or cannot be followed (1, said on stderr).

    ``too_big(method, uri, length)`` is told of each body that was refused for its size.
    """
    protocol = server.protocol
    assert isinstance(protocol, Protocol)
    reader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rules-read")
    loop = asyncio.get_running_loop()
    stop = server._stop_event
    while stop is None or not stop.is_set():
        length: int | None = None
        while True:
            line = await loop.run_in_executor(reader, stdin.readline, MAX_HEADER)
            if not line:
                return 0
            if not line.endswith(b"\n"):
                return _quit(f"a header line longer than {MAX_HEADER} bytes")
            if not line.strip():
                if length is not None:
                    break
                continue
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                if not value.strip().isdigit():
                    return _quit("a Content-Length that is not a number")
                length = int(value.strip())
        if length > MAX_SKIP:
            return _quit(f"a message of {length} bytes announced, more than the {MAX_FRAME} a message may have")
        if length > MAX_FRAME:
            head, done = await loop.run_in_executor(reader, _read_through, stdin, length)
            if done < length:
                return 0
            _refused(protocol, head, length, too_big)
            continue
        body = await loop.run_in_executor(reader, stdin.read, length)
        if len(body) < length:
            return 0
        try:
            message = json.loads(body, object_hook=protocol.structure_message)
        except (ValueError, RecursionError):
            protocol.refuse(None, JsonRpcParseError.CODE, "the message is not JSON")
            continue
        try:
            protocol.handle_message(message)
        except (SystemExit, KeyboardInterrupt):
            raise
        except Exception:  # one message's failure is logged; the next is read
            logger.exception("could not handle a message")
    return 0


def _refused(protocol: Protocol, head: bytes, length: int, too_big: Callable[[str, str, int], None]) -> None:
    """Answer a body refused for its size, as far as its first bytes say what it was."""
    found_id, method, uri = _ID.search(head), _METHOD.search(head), _URI.search(head)
    name = method.group(1).decode() if method else ""
    if found_id is not None and method is not None:
        try:
            msg_id = json.loads(found_id.group(1))
        except ValueError:
            msg_id = None
        protocol.refuse(msg_id, JsonRpcInvalidRequest.CODE,
                        f"a message of {length} bytes, more than the {MAX_FRAME} a message may have")
    if uri is not None:
        try:
            shown = json.loads(b'"' + uri.group(1) + b'"')
        except ValueError:
            return
        too_big(name, str(shown), length)
