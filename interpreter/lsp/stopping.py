"""A check of an open file that can be stopped: after limits.MAX_CHECK_SECONDS of its thread's CPU time, or at once
when a newer text of the same file arrives.

The check runs on a worker thread (session.Session); the event loop watches it and, to stop it, raises
:class:`Stopped` in that thread (CPython's asynchronous exception, delivered between two steps of Python code:
a call into C code, such as the YAML parser's, ends before it).  ``Stopped`` is no ``Exception``, so no
handler of the checks swallows it; what the checks keep between edits (parsed pieces, schema parts) is kept
by its text, each entry whole or absent, so a check stopped half way leaves it sound.  A check importing a
module is stopped once the import ends (a stop inside one could leave the import's lock held).  A stop that comes as
the check ends is not delivered to whatever the thread runs next: the check's end and every stop are taken
under one lock, and what is still pending when it ends is withdrawn.
"""

from __future__ import annotations

import asyncio
import ctypes
import sys
import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

from interpreter import limits

__all__ = ["Stoppable", "Stopped"]

T = TypeVar("T")
_TICK = 0.05  # seconds between two looks of the watch at a running check
_raise_in = ctypes.pythonapi.PyThreadState_SetAsyncExc
_raise_in.argtypes = [ctypes.c_ulong, ctypes.c_void_p]
_raise_in.restype = ctypes.c_int


class Stopped(BaseException):
    """Raised in a check's thread to stop it."""


class Stoppable(Generic[T]):
    """One check, run by :meth:`call` on a worker thread and watched from the event loop: stopped when its
    thread has taken ``limits.MAX_CHECK_SECONDS`` of CPU time (``why`` is then "time") or on :meth:`stop`
    (a newer text of the file arrived, or the file was closed).  ``call`` gives the check's result, or None when it was stopped."""

    def __init__(self, check: Callable[[], T]) -> None:
        self._check = check
        self._lock = threading.Lock()
        self._thread: int | None = None  # the thread running the check, while it runs
        self._clock: int | None = None  # that thread's CPU clock
        self._started = 0.0  # its CPU time when the check started
        self.why: str | None = None  # why it was stopped: "time", "superseded" or "closed"
        self._delivered = False  # whether Stopped was raised in its thread

    def call(self) -> T | None:
        """Run the check (on a worker thread)."""
        me = threading.get_ident()
        result: T | None = None
        try:  # (from the moment the thread is known, a stop may be raised in it: here, or in the check)
            with self._lock:
                if self.why is not None:  # stopped before it started
                    return None
                self._thread = me
                try:
                    self._clock = time.pthread_getcpuclockid(me)
                    self._started = time.clock_gettime(self._clock)
                except (AttributeError, OSError):  # no CPU clock of a thread here: the time it has been running
                    self._clock, self._started = None, time.monotonic()
            result = self._check()
        except Stopped:
            result = None
        while True:  # the end of the check, taken under the lock; a stop raised meanwhile is caught and withdrawn
            try:
                with self._lock:
                    self._thread = None
                    _raise_in(me, None)
                break
            except Stopped:
                continue
        return result if self.why is None else None

    def used(self) -> float:
        """The CPU time the check's thread has taken since the check started (0 before it starts)."""
        with self._lock:
            if self._thread is None:
                return 0.0
            now = time.clock_gettime(self._clock) if self._clock is not None else time.monotonic()
        return now - self._started

    def stop(self, why: str) -> None:
        """Stop the check: at once when it runs (but in an import, see _deliver), before it starts else."""
        if self.why is None:
            self.why = why
        self._deliver()

    def _deliver(self) -> None:
        """Raise Stopped in the check's thread, once, unless it is importing a module: a stop there could leave
        the import's lock held, so it waits for the import to end (watch() tries again)."""
        with self._lock:
            if self._thread is not None and not self._delivered and not _importing(self._thread):
                _raise_in(self._thread, id(Stopped))
                self._delivered = True

    async def watch(self, running: asyncio.Future[T | None]) -> None:
        """Stop the check once it has taken its time, and deliver a stop an import held back (from the event loop,
        until ``running`` is done)."""
        while not running.done():
            if self.why is None and self.used() >= limits.MAX_CHECK_SECONDS:
                self.why = "time"
            if self.why is not None:
                self._deliver()
            left = limits.MAX_CHECK_SECONDS - self.used() if self.why is None else 0.0
            await asyncio.wait({running}, timeout=min(max(left, 0.01), _TICK))  # (its failure is its caller's)


def _importing(thread: int) -> bool:
    """Whether a thread is running the import machinery."""
    frame = sys._current_frames().get(thread)
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False
