"""Where sheet writes happen on disk: a lock per sheet in one hidden folder, and atomic writes.

A write holds a ``filelock`` lock named after the sheet's real path, in ``lock_dir()``, never beside
the sheet; it writes a synced ``.<name>.rulesmith-tmp-<random>`` and renames it over the sheet (or
links it to a new name, so an existing file is never replaced); and it removes the temporary files
that writers killed mid-write left behind.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from interpreter import limits
from interpreter.errors import RulesError
from interpreter.sheet.changes import made

__all__ = ["TEMP_MARK", "atomic_write", "lock_dir", "locked", "remove_stale_temporaries", "sync_folder"]

TEMP_MARK = ".rulesmith-tmp-"  # in the name of every temporary file: .<name>.rulesmith-tmp-<random>


def lock_dir() -> Path:
    """The one folder of lock files: ``$XDG_RUNTIME_DIR/rulesmith/locks``, else ``rulesmith-<user>/locks`` in the temp folder."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        return Path(runtime) / "rulesmith" / "locks"
    user = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return Path(tempfile.gettempdir()) / f"rulesmith-{user}" / "locks"


@contextlib.contextmanager
def locked(real: Path) -> Iterator[None]:
    """Hold an exclusive lock named after the sheet's real path (not on the sheet: its inode is replaced).

    The lock file lives in ``lock_dir()`` so that no command leaves anything beside a sheet.
    ``filelock`` locks the same way on POSIX and on Windows; it is imported here, when a sheet is
    written, so that commands which never lock a sheet do not pay for importing it.
    """
    import filelock

    folder = lock_dir()
    name = hashlib.sha256(os.fsencode(real)).hexdigest()[:32] + ".lock"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        lock = filelock.FileLock(os.fspath(folder / name), timeout=limits.LOCK_WAIT_SECONDS)
        lock.acquire()
    except filelock.Timeout:
        raise RulesError(f"{real}: another rules command has held the sheet's lock for "
                         f"{limits.LOCK_WAIT_SECONDS:g} s; nothing was written",
                         hint="try again when it has finished") from None
    except OSError as exc:
        raise RulesError(f"{real}: cannot lock the sheet: {exc.strerror or exc}") from None
    try:
        yield
    finally:
        # The lock file goes with the lock. It is removed while still held: a command waiting on it then
        # finds it unlinked once it gets it and takes a new one (filelock 3.21 on checks), so no two hold one.
        with contextlib.suppress(OSError):
            os.unlink(folder / name)
        lock.release()


def remove_stale_temporaries(real: Path) -> None:
    """Remove the temporary files of this sheet (and its backup) that killed writers left behind.

    Called with the sheet's lock held: every writer holds it while its temporary file exists, so
    any such file made before the lock was taken belongs to a writer that is gone.
    """
    now = time.time()
    prefixes = (f".{real.name}{TEMP_MARK}", f".{real.name}.bak{TEMP_MARK}")
    with contextlib.suppress(OSError), os.scandir(real.parent) as entries:
        for entry in entries:
            if entry.name.startswith(prefixes):
                with contextlib.suppress(OSError):
                    if entry.is_file(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_mtime <= now:
                        os.unlink(entry.path)


def atomic_write(target: Path, data: bytes, mode: int | None) -> None:
    """Write a synced ``.<name>.rulesmith-tmp-<random>`` and rename it over ``target`` (or, with no mode,
    link it to a new one, so that an existing file is never replaced)."""
    tmp = target.with_name(f".{target.name}{TEMP_MARK}{secrets.token_hex(8)}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        try:
            if mode is not None:
                os.chmod(tmp, mode)
            view = memoryview(data)
            while view:  # os.write may write less than asked
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        if mode is None:
            os.link(tmp, target)
            os.unlink(tmp)
        else:
            os.replace(tmp, target)
        made(str(target))
        sync_folder(target.parent)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, FileExistsError) and mode is None:
            raise RulesError(f"{target}: the file already exists; nothing was written") from None
        raise RulesError(f"{target}: cannot write: {exc.strerror or exc}") from None


def sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (POSIX); folders cannot be opened for this on Windows."""
    if os.name != "posix":
        return
    dir_fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
