"""A real interactive shell in a pseudo-terminal, for testing completion as a user's Tab key drives it.

`Terminal(["bash", ...])` starts the shell; `type(text)` sends keys; `until(pattern)` reads the
screen's output until a regular expression matches (escape sequences removed), with a generous
guard against a hang. Each shell is set up so that Ctrl-T prints the line being edited as
`LINE<...>`, which `line()` reads back.
"""

from __future__ import annotations

import contextlib
import os
import pty
import re
import select
import signal
import time
from collections.abc import Sequence

GUARD = 60.0  # seconds: a hang, not slowness (each Tab starts a Python process)
_ESCAPES = re.compile(r"\x1b\[[0-9;?<=>]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78MNOPc]|\r")


class Terminal:
    """One interactive shell on a pseudo-terminal."""

    def __init__(self, argv: Sequence[str], env: dict[str, str], cwd: str):
        # pty.fork makes the terminal the shell's controlling terminal, as a terminal window's is (fish insists)
        pid, fd = pty.fork()
        if pid == 0:  # the child: become the shell
            try:
                os.chdir(cwd)
                os.execvpe(argv[0], list(argv), env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self.seen = ""

    def ended(self) -> bool:
        """Whether the shell has ended."""
        return os.waitpid(self.pid, os.WNOHANG) != (0, 0)

    def type(self, keys: str) -> None:
        """Send keys as typed (a Tab as '\\t', Enter as '\\r')."""
        os.write(self.fd, keys.encode("utf-8"))

    def until(self, pattern: str, guard: float = GUARD) -> re.Match[str]:
        """Read output until the pattern matches what was shown since the last match; that match."""
        end = time.monotonic() + guard
        compiled = re.compile(pattern, re.DOTALL)
        while True:
            found = compiled.search(self.seen)
            if found is not None:
                self.seen = self.seen[found.end():]
                return found
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {pattern!r} in the shell's output: {self.seen[-2000:]!r}")
            ready, _, _ = select.select([self.fd], [], [], min(left, 0.5))
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    chunk = b""
                if not chunk and self.ended():
                    raise AssertionError(f"the shell ended; its output: {self.seen[-2000:]!r}")
                self.seen += _ESCAPES.sub("", chunk.decode("utf-8", "replace"))

    def line(self) -> str:
        """The line being edited, as the shell holds it (printed by the Ctrl-T binding)."""
        self.type("\x14")
        return self.until(r"LINE<(.*?)>").group(1)

    def clear(self) -> None:
        """Throw the line being edited away (Ctrl-U in every shell here) and forget what was shown."""
        self.type("\x15")
        time.sleep(0.2)
        self.seen = ""

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        os.close(self.fd)
