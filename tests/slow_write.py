"""Run a `rules` command, or Python code, with every sheet write slowed down, so a test can kill it mid-write.

    python tests/slow_write.py SECONDS rules ARGS...     # the command line, as `rules ARGS...`
    python tests/slow_write.py SECONDS SCRIPT.py ARGS... # the script, with sys.argv[1:] == ARGS

Nothing in the interpreter knows about this: the wrapper makes os.write behave like a slow disk
for the temporary files of sheet writes (their names carry TEMP_MARK).  The first write to such a
file stores half the bytes and returns a short count, as os.write may; the writer must then write
the rest.  After each part the bytes are synced and the process sleeps SECONDS: one window with
the file half written, one with it whole but not yet renamed over the sheet.
"""

from __future__ import annotations

import os
import runpy
import sys
import time

from interpreter.sheet.file import TEMP_MARK

_open, _write = os.open, os.write
_slow: dict[int, int] = {}  # descriptor of a temporary file -> writes made to it


def _slow_open(path, flags, mode=0o777, *args, **kwargs):  # type: ignore[no-untyped-def]
    fd = _open(path, flags, mode, *args, **kwargs)
    if TEMP_MARK in os.fsdecode(path):
        _slow[fd] = 0
    else:
        _slow.pop(fd, None)
    return fd


def _slow_write(fd, data):  # type: ignore[no-untyped-def]
    if fd not in _slow:
        return _write(fd, data)
    _slow[fd] += 1
    data = memoryview(data)
    written = _write(fd, data[: max(1, len(data) // 2)] if _slow[fd] == 1 else data)
    os.fsync(fd)
    time.sleep(PAUSE)
    return written


if __name__ == "__main__":
    PAUSE = float(sys.argv[1])
    os.open, os.write = _slow_open, _slow_write
    if sys.argv[2].endswith(".py"):
        sys.argv = sys.argv[2:]
        runpy.run_path(sys.argv[0], run_name="__main__")
    else:
        from interpreter.cli import main

        sys.argv = ["rules", *sys.argv[3:]]
        main()
