"""A line on stderr that says how far a long command is: `rules diff: 7 of 23 cases, 4 s`.

It appears only once the command has run for about a second, only when stderr is a terminal (a
pipe, a file or a chat bot reading the output gets nothing) and never under `--json`. It is redrawn
in place a few times a second by a thread of its own, so the work itself only counts its steps
(`step()` adds one to a number), and it is wiped before the command prints its answer.
"""

from __future__ import annotations

import os
import sys
import time
from types import TracebackType
from typing import TYPE_CHECKING, Self, TextIO

if TYPE_CHECKING:
    import threading

DELAY = 1.0  # seconds of quiet before the line appears: a quick command shows none (RULESMITH_PROGRESS_AFTER)
EVERY = 0.25  # seconds between redraws


class Progress:
    """Progress of one job of `total` steps (None: unknown, the time alone is shown); a context manager."""

    def __init__(self, what: str, total: int | None = None, unit: str = "", *, quiet: bool = False,
                 stream: TextIO | None = None, delay: float | None = None):
        self.what, self.total, self.unit = what, total, unit
        self.done = 0
        self.stream = sys.stderr if stream is None else stream
        self.shown = 0  # the length of the line on the screen (0: none)
        self.delay = _delay() if delay is None else delay
        self._stop: threading.Event | None = None  # (made with the thread: a command on a pipe never imports threading)
        self._thread: threading.Thread | None = None
        self.enabled = not quiet and _is_terminal(self.stream)

    def step(self, count: int = 1) -> None:
        """Count steps done."""
        self.done += count

    def line(self, elapsed: float) -> str:
        """The text shown after `elapsed` seconds."""
        if self.total is None:
            return f"{self.what}, {elapsed:.0f} s"
        return f"{self.what}: {min(self.done, self.total)} of {self.total}{self.unit}, {elapsed:.0f} s"

    def _run(self, start: float, stop: threading.Event) -> None:
        if stop.wait(self.delay):
            return
        while True:
            self._draw(self.line(time.monotonic() - start))
            if stop.wait(EVERY):
                return

    def _draw(self, text: str) -> None:
        try:
            self.stream.write("\r" + text.ljust(self.shown))
            self.stream.flush()
        except (OSError, ValueError):  # the terminal went away: the work goes on without a word
            if self._stop is not None:
                self._stop.set()
            return
        self.shown = max(self.shown, len(text))

    def __enter__(self) -> Self:
        if self.enabled:
            import threading

            self._stop = threading.Event()
            self._thread = threading.Thread(target=self._run, args=(time.monotonic(), self._stop), daemon=True)
            self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._thread is None or self._stop is None:
            return
        self._stop.set()
        self._thread.join()
        if self.shown:  # wipe the line: what the command prints next starts at the left edge
            self._draw(" " * self.shown)
            self.stream.write("\r")
            self.stream.flush()


def _delay() -> float:
    """The seconds before the line appears: RULESMITH_PROGRESS_AFTER when it is a number of them, else DELAY."""
    try:
        return max(0.0, float(os.environ.get("RULESMITH_PROGRESS_AFTER", DELAY)))
    except ValueError:
        return DELAY


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


__all__ = ["DELAY", "Progress"]
