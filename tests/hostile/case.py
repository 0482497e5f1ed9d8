"""One hostile case and how it is run: the checkout's own `rules` in a process of its own, bounded and measured.

The command runs in a child forked for it by a server that has started Python with the checkout first
on ``PYTHONPATH`` and imported `rules` once (``hostile/forkserver.py``; the server's start-up CPU is
added to the case's), so the code under test is this checkout's, never a `rules` installed elsewhere
on PATH.  The child sets its own limits before it runs the command (a CPU limit a little above the
case's bound and a 1 GiB address space, so a runaway case is stopped by the system rather than by the
machine running out), and its CPU time and peak memory are read from ``wait4`` when it ends.  With
``CORPUS_EXEC=1`` each command is a ``python -c LAUNCH ARGS`` of its own instead.  Its folder is
snapshot before and after: no file may change, appear or disappear there, but under the paths the
case may create (the cache).
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hostile import forkserver

ROOT = Path(__file__).resolve().parent.parent.parent
CPU_SECONDS = 1.0  # twice the 0.5 s a refusal is promised (start-up included), so a loaded machine does not fail it
MEMORY_BYTES = 300 << 20  # peak resident memory
ADDRESS_SPACE = 1 << 30  # the system's stop for a runaway case
WALL_SECONDS = 120  # a case still running then is waiting on something: it is killed
LAUNCH = (
    "import os, resource, signal, sys\n"
    "cpu, space = map(int, os.environ.pop('CORPUS_LIMITS').split())\n"
    "usage_to = os.environ.pop('CORPUS_USAGE')\n"
    "resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))\n"
    "resource.setrlimit(resource.RLIMIT_AS, (space, space))\n"
    # The command runs in a child forked from this small process: a process made by exec from a large
    # one (a test worker) reports that one's memory as its own peak, a child forked from a small one
    # its own peak alone. This process waits, writes the child's CPU and peak, and ends as it ended.
    "pid = os.fork()\n"
    "if pid:\n"
    "    os.close(0); os.close(1)\n"
    "    _, status, ru = os.wait4(pid, 0)\n"
    "    with open(usage_to, 'w') as f: f.write(f'{ru.ru_utime + ru.ru_stime} {ru.ru_maxrss * 1024}')\n"
    "    if os.WIFSIGNALED(status):\n"
    "        signal.signal(os.WTERMSIG(status), signal.SIG_DFL); os.kill(os.getpid(), os.WTERMSIG(status))\n"
    "    os._exit(os.waitstatus_to_exitcode(status))\n"
    "sys.argv[0] = 'rules'\n"
    "from interpreter.cli import console\n"
    "console()\n"
)


def measured(usage_file: Path, status: int, usage: object) -> tuple[int, float, int]:
    """(exit code, CPU seconds, peak resident bytes) of a command run by LAUNCH: its own figures as the
    process that forked it wrote them, or, when that process was killed first, what ``wait4`` said."""
    code = os.waitstatus_to_exitcode(status)
    try:
        cpu, peak = usage_file.read_text().split()
        return code, float(cpu), int(peak)
    except (OSError, ValueError):
        return code, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024  # type: ignore[attr-defined]


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill a command started in a session of its own, with the child LAUNCH forked."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


Files = dict[str, "bytes | Callable[[], bytes]"]


@dataclass
class Case:
    """A command line, the files it is given and what it must end in.

    ``files`` maps paths inside the case's folder to their bytes (or to a function making them, for
    large inputs made at test time); ``setup`` then makes what bytes cannot (FIFOs, links, sparse or
    hard-linked files).  ``warm`` commands run first, unmeasured (to fill the case's cache), then
    ``prepare`` (to forge what they wrote).  ``env`` values may name ``{dir}``, the case's folder.
    The case holds when the exit code is one of ``exit``; stderr is one line (or one located line per
    problem of a named file) for a refusal and ``stderr_lines`` lines for an answer; nothing says
    Traceback or internal error; ``out`` is in stdout; nothing of ``never`` is in stdout or stderr;
    CPU time and peak memory stay within ``cpu`` and ``memory``; and the folder is unchanged.
    """

    kind: str
    args: list[str]
    files: Files = field(default_factory=dict)
    setup: Callable[[Path], None] | None = None
    fifo: bool = False
    exit: tuple[int, ...] = (1, 2)
    cpu: float = CPU_SECONDS
    memory: int = MEMORY_BYTES
    env: dict[str, str] = field(default_factory=dict)
    own_cache: bool = False
    warm: list[list[str]] = field(default_factory=list)
    prepare: Callable[[Path], None] | None = None
    out: str | None = None
    never: tuple[str, ...] = ()
    stderr_lines: int = 0
    may_create: tuple[str, ...] = ()
    names_file: bool = True  # a refusal's line starts with the file it is about (not so for a command-line mistake)
    note: str = ""
    cwd: str = ""  # the folder (inside the case's) the command runs in: files named by files may lie under it

    def id(self) -> str:
        shown = " ".join(self.args)
        shown = "".join(c if c.isprintable() and c.isascii() else "?" for c in shown)
        return f"{self.kind}: {shown[:70]}" + (f" [{self.note}]" if self.note else "")


def _snapshot(folder: Path, skip: tuple[str, ...]) -> dict[str, tuple[object, ...]]:
    """Every path under a folder and what it is: a link's target, a file's digest (a huge file: size and time)."""
    seen: dict[str, tuple[object, ...]] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = str(path.relative_to(folder))
            if any(rel == s or rel.startswith(s + os.sep) for s in skip):
                continue
            info = path.lstat()
            if path.is_symlink():
                seen[rel] = ("link", os.readlink(path))
            elif path.is_dir():
                seen[rel] = ("folder",)
            elif path.is_file() and info.st_size <= 64 << 20:
                seen[rel] = ("file", hashlib.sha256(path.read_bytes()).hexdigest(), info.st_nlink)
            else:
                seen[rel] = ("other", info.st_mode, info.st_size, info.st_mtime_ns)
    return seen


# The environment the cases start from, read once: the cases run in threads while pytest changes os.environ
# (PYTEST_CURRENT_TEST) for each test, and a thread reading it then could find a name gone.
_ENVIRON = {k: v for k, v in os.environ.items() if not k.startswith(("RULESMITH", "_RULES_COMPLETE", "COMP_"))}


def environment(folder: Path, case: Case, shared_cache: Path) -> dict[str, str]:
    env = dict(_ENVIRON)
    env.update(PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
               PYTHONIOENCODING="utf-8", XDG_CONFIG_HOME=str(folder / ".config-none"),
               RULESMITH_CACHE_DIR=str(folder / "cache" if case.own_cache else shared_cache))
    env.update({k: v.replace("{dir}", str(folder)) for k, v in case.env.items()})
    return env


def launch(args: list[str], folder: Path, env: dict[str, str], cpu: float, out: Path) -> tuple[int, float, int]:
    """Run the checkout's `rules`; (exit code, CPU seconds, peak resident bytes), or exit -9 when killed.

    The command runs in a child of this thread's fork server (``hostile/forkserver.py``), or, with
    ``CORPUS_EXEC=1``, in a Python started for it."""
    if os.environ.get("CORPUS_EXEC") == "1":
        return launch_exec(args, folder, env, cpu, out)
    return forkserver.server(env).run(args, folder, env, math.ceil(cpu) + 2, ADDRESS_SPACE, out, WALL_SECONDS)


def launch_exec(args: list[str], folder: Path, env: dict[str, str], cpu: float, out: Path) -> tuple[int, float, int]:
    """Run the checkout's `rules` in a Python of its own (LAUNCH)."""
    usage_file = out.with_suffix(".usage")
    usage_file.unlink(missing_ok=True)
    env = dict(env, CORPUS_LIMITS=f"{math.ceil(cpu) + 2} {ADDRESS_SPACE}", CORPUS_USAGE=str(usage_file))
    with open(out.with_suffix(".out"), "wb") as stdout, open(out.with_suffix(".err"), "wb") as stderr:
        proc = subprocess.Popen([sys.executable, "-c", LAUNCH, *args], cwd=folder, env=env, stdin=subprocess.DEVNULL,
                                stdout=stdout, stderr=stderr, start_new_session=True)
        timer = threading.Timer(WALL_SECONDS, kill_group, (proc,))
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        proc.returncode, used, peak = measured(usage_file, status, usage)
    return proc.returncode, used, peak


def _json_error(out: str, problems: list[str]) -> list[str]:
    """The error of a --json refusal as the line it stands for (FILE:LINE:COL: ...), noting a malformed one."""
    import json

    try:
        error = json.loads(out)["error"]
        where = f"{error['file']}:{error['line']}:{error['column']}: " if error.get("file") else ""
        return [where + str(error["message"])]
    except (ValueError, KeyError, TypeError):
        problems.append(f"--json gave no error object: {out[:200]!r}")
        return []


def run_case(case: Case, folder: Path, outputs: Path, shared_cache: Path) -> str | None:
    """None when the case ended as promised, else what went wrong."""
    folder.mkdir(parents=True)
    for name, data in case.files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data() if callable(data) else data)
    if case.fifo:
        os.mkfifo(folder / "fifo.yaml")
    if case.setup is not None:
        case.setup(folder)
    env = environment(folder, case, shared_cache)
    for i, command in enumerate(case.warm):
        launch(command, folder, env, 60, outputs.with_name(f"{outputs.name}-warm{i}"))
    if case.prepare is not None:
        case.prepare(folder)
    skip = tuple(case.may_create) + (("cache",) if case.own_cache else ())
    before = _snapshot(folder, skip)
    try:
        code, cpu, memory = launch(case.args, folder / case.cwd, env, case.cpu, outputs)
    except (OSError, ValueError) as exc:
        return f"could not be run: {exc}"
    out = outputs.with_suffix(".out").read_bytes().decode("utf-8", "replace")
    err = outputs.with_suffix(".err").read_bytes().decode("utf-8", "replace")
    lines = err.strip("\n").split("\n") if err.strip() else []
    problems = []
    if code == -9:
        problems.append(f"did not end within {WALL_SECONDS} s (waiting on something?)")
    elif code not in case.exit:
        problems.append(f"exit code {code}, not {' or '.join(map(str, case.exit))}")
    named = [n.removeprefix(case.cwd + "/") if case.cwd else n for n in case.files]  # (as the command names them)
    involved = [n for n in named if n in case.args] + (["fifo.yaml"] if case.fifo else [])
    as_json = "--json" in case.args
    if as_json and code == 1:  # the error is one JSON object on stdout, and stderr says nothing
        lines = _json_error(out, problems)
    located = bool(involved) and all(line.startswith(tuple(involved)) for line in lines)
    if code != 0 and len(lines) != 1 and not (located and lines):  # a file's problems may be listed, one line each
        problems.append(f"{len(lines)} lines on stderr")
    if code == 0 and len(lines) != case.stderr_lines:
        problems.append(f"{len(lines)} lines on stderr, not {case.stderr_lines}")
    if "Traceback" in err or "internal error" in err or "internal error" in out:
        problems.append("reached the guard or printed a traceback")
    if involved and code == 1 and case.names_file and not located:
        problems.append("a line does not name the file")
    if case.out is not None and case.out not in out:
        problems.append(f"stdout lacks {case.out!r}")
    leaked = [word for word in case.never if word in out or word in err]
    if leaked:
        problems.append(f"the output holds {leaked}")
    if cpu > case.cpu:
        problems.append(f"{cpu:.2f} s of CPU, more than {case.cpu:g}")
    if memory > case.memory:
        problems.append(f"{memory >> 20} MB of memory, more than {case.memory >> 20}")
    after = _snapshot(folder, skip)
    if after != before:
        changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        problems.append(f"files changed, appeared or went: {changed[:5]}")
    return f"{'; '.join(problems)}: {err[:300]!r}" if problems else None
