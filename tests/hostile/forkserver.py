"""Each case's command in a process forked from one that has already started Python and imported `rules`.

Hundreds of cases each start a Python and import the command line before doing their work; most of
them are refused in a few milliseconds after that.  A server started once per corpus thread does the
start-up once: it imports what a command imports, then for each case forks a child that takes the
case's limits, session, folder, environment, arguments and output files and runs `rules` as its main
program would.  The server waits for the child and reports its exit status, CPU time and peak
memory; the server's own start-up CPU is added to each case's CPU, so a case's bound still counts a
start-up as it did when each case started a Python of its own.  ``CORPUS_EXEC=1`` in the environment
starts a Python for each case instead (``case.LAUNCH``), to compare the two.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

SERVER = r"""
import json, os, resource, sys, time
sys.argv[0] = 'rules'
import interpreter.cli
import interpreter.cli.commands
import interpreter.cli.quick
import interpreter.cli.run_odds
import interpreter.cli.rolls
import interpreter.pipeline
from interpreter.cli import console
usage = resource.getrusage(resource.RUSAGE_SELF)
requests, answers = sys.stdin, sys.stdout
answers.write(json.dumps({"startup": usage.ru_utime + usage.ru_stime}) + "\n"); answers.flush()
kept = [sys.stdin, sys.stdout, sys.stderr]  # never collected, so never closing the child's new streams
for line in requests:
    job = json.loads(line)
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            os.setsid()
            resource.setrlimit(resource.RLIMIT_CPU, (job["cpu"], job["cpu"] + 1))
            resource.setrlimit(resource.RLIMIT_AS, (job["space"], job["space"]))
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
            for fd, path, how in ((0, os.devnull, os.O_RDONLY), (1, job["out"], flags), (2, job["err"], flags)):
                opened = os.open(path, how, 0o644)
                os.dup2(opened, fd)
                os.close(opened)
            os.chdir(job["cwd"])
            os.environ.clear()
            os.environ.update(job["env"])
            sys.stdin = sys.__stdin__ = open(0, closefd=False)
            sys.stdout = sys.__stdout__ = open(1, "w", encoding="utf-8", closefd=False)
            sys.stderr = sys.__stderr__ = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)
            sys.argv = ["rules", *job["args"]]
            try:
                console()  # (the console script's own entry: an everyday line is read without click)
                code = 0
            except SystemExit as done:
                if done.code is None or isinstance(done.code, int):
                    code = done.code or 0
                else:
                    print(done.code, file=sys.stderr)
                    code = 1
            except BaseException:
                import traceback
                traceback.print_exc()
                code = 1
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except Exception:
                    code = 120
        finally:
            os._exit(code)
    answers.write(json.dumps({"pid": pid}) + "\n"); answers.flush()
    _, status, usage = os.wait4(pid, 0)
    answers.write(json.dumps({"status": status, "cpu": usage.ru_utime + usage.ru_stime,
                              "peak": usage.ru_maxrss * 1024}) + "\n")
    answers.flush()
"""


COMPILED_START = 0.25  # seconds of CPU: a start-up beyond this compiled its modules from source


class ForkServer:
    """One server process; ``run`` is used by one thread at a time."""

    def __init__(self, env: dict[str, str]):
        self._start(env)
        if self.startup > COMPILED_START:  # it compiled the modules it imports: the next start reads them compiled
            self.close()
            self._start(env)

    def _start(self, env: dict[str, str]) -> None:
        self.closed = False
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env=env, text=True, bufsize=1)
        self.startup = float(json.loads(self._answer())["startup"])

    def _answer(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise OSError("the corpus's fork server ended")
        return line

    def run(self, args: list[str], cwd: Path, env: dict[str, str], cpu: int, space: int, out: Path,
            wall: float) -> tuple[int, float, int]:
        """(exit code, CPU seconds with the server's start-up, peak resident bytes); exit -9 when killed."""
        assert self.proc.stdin is not None
        job = {"args": args, "cwd": str(cwd), "env": env, "cpu": cpu, "space": space,
               "out": str(out.with_suffix(".out")), "err": str(out.with_suffix(".err"))}
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        pid = int(json.loads(self._answer())["pid"])
        timer = threading.Timer(wall, _kill_group, (pid,))
        timer.start()
        try:
            done = json.loads(self._answer())
        finally:
            timer.cancel()
        return os.waitstatus_to_exitcode(done["status"]), done["cpu"] + self.startup, int(done["peak"])

    def close(self) -> None:
        """End the server: it ends when its requests do."""
        self.closed = True
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                pipe.close()
        self.proc.wait(timeout=30)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


_LOCAL = threading.local()
_ALL: list[ForkServer] = []
_LOCK = threading.Lock()


def server(env: dict[str, str]) -> ForkServer:
    """This thread's server, started with the environment of the first case it runs (its PYTHONPATH)."""
    found: ForkServer | None = getattr(_LOCAL, "server", None)
    if found is None or found.closed:
        found = _LOCAL.server = ForkServer(env)
        with _LOCK:
            _ALL.append(found)
    return found


def close_all() -> None:
    with _LOCK:
        for each in _ALL:
            each.close()
        _ALL.clear()
