"""Finding a ruleset: a bundled id, an id in the user's ruleset folders, or a path.

The user's ruleset folders are the directories in ``RULESMITH_PATH`` (separated like
``PATH``), then ``$XDG_CONFIG_HOME/rulesmith/rulesets`` (by default
``~/.config/rulesmith/rulesets``).  Every ``*.yaml`` ruleset there (a file with
``procedures:`` or ``extends:``; a sheet that strays there is not one) is known by its
``ruleset:`` id.  An id claimed by two files, or by a file and a bundled ruleset, is an
error naming both.

Bundled rulesets are named ``ID (bundled)`` in messages: once installed they live inside
the package, where no one edits them (``rules export ID`` writes a copy).
"""

from __future__ import annotations

import os
import re
import stat
from typing import TYPE_CHECKING

from interpreter.errors import Location, RulesetLoadError
from interpreter.hints import shown, suggest
from interpreter.load.bundled import bundled_ids, rulesets_folder
from interpreter.record import record

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["Found", "bundled_name", "find", "user_folders", "user_rulesets"]

# The top-level `ruleset:` line of a block-style file; files written otherwise are parsed to find it.
_ID_LINE = re.compile(rb"^ruleset:[ \t]*([\"']?)([A-Za-z0-9_.-]+)\1[ \t]*(?:#[^\n]*)?\r?$", re.MULTILINE)
_RULESET_KEY = re.compile(rb"^(?:procedures|extends):", re.MULTILINE)


@record
class Found:
    """Where a ruleset is: its file, the name messages show, and where it was found.

    (Paths are strings here: a command on a bundled ruleset never imports ``pathlib``.)
    """

    file: str
    shown: str
    origin: str  # "bundled", "user" (a ruleset folder) or "path"

    @property
    def path(self) -> Path:
        """The file as a Path."""
        from pathlib import Path

        return Path(self.file)


def bundled_name(ruleset_id: str) -> str:
    """How messages name a bundled ruleset's file."""
    return f"{ruleset_id} (bundled)"


def user_folders() -> list[str]:
    """The user's ruleset folders, in the order they are searched."""
    folders = [entry for entry in os.environ.get("RULESMITH_PATH", "").split(os.pathsep) if entry]
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    folders.append(os.path.join(config, "rulesmith", "rulesets"))
    return folders


def _shown(path: str) -> str:
    """A path as messages show it: relative to the working folder when inside it."""
    try:
        real, here = os.path.realpath(path), os.path.realpath(os.getcwd())
    except (ValueError, OSError):
        return path
    if real.startswith(here + os.sep):
        return real[len(here) + 1:]
    return _plain(path)


def _plain(path: str) -> str:
    """A path without empty or `.` parts, as a Path shows it (`a/./b//c` is `a/b/c`)."""
    parts = [part for part in path.split(os.sep) if part not in ("", ".")]
    return (os.sep if path.startswith(os.sep) else "") + os.sep.join(parts) or "."


def _id_of(path: str) -> str | None:
    """The `ruleset:` id a ruleset file declares; None for a file that is not a ruleset (a sheet
    names its ruleset the same way, but has no `procedures:` or `extends:`) or cannot be read."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    found = _ID_LINE.search(data)
    if found is not None and _RULESET_KEY.search(data):
        return found.group(2).decode("ascii")
    from interpreter.load.yaml import load_text  # a file not in block style: parse it

    try:
        top = load_text(data, path).data
    except RulesetLoadError:
        return None
    value = top.get("ruleset")
    if not isinstance(value, str) or ("procedures" not in top and "extends" not in top):
        return None
    return value


def user_rulesets() -> dict[str, list[str]]:
    """Every ruleset id in the user's folders and the files that declare it, in search order."""
    found: dict[str, list[str]] = {}
    seen: set[str] = set()
    for folder in user_folders():
        try:
            files = sorted(os.path.join(folder, name) for name in os.listdir(folder)
                           if name.endswith(".yaml") and not name.startswith("."))
        except OSError:
            continue
        for path in files:
            real = os.path.realpath(path)
            if real in seen or not os.path.isfile(path):
                continue
            seen.add(real)
            ruleset_id = _id_of(path)
            if ruleset_id is not None:
                found.setdefault(ruleset_id, []).append(path)
    return found


def _collision(ruleset_id: str, paths: list[str]) -> RulesetLoadError:
    names = [bundled_name(ruleset_id)] if ruleset_id in bundled_ids() else []
    names += [_shown(p) for p in paths]
    return RulesetLoadError(f"ruleset id '{ruleset_id}' is declared by both {names[0]} and {names[1]}",
                            _id_location(paths[-1]), "give one of them another id")


def _id_location(path: str) -> Location:
    """Where a file declares its `ruleset:` id (its first line when the declaration is not found in block style)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        data = b""
    found = _ID_LINE.search(data)
    line = data.count(b"\n", 0, found.start()) + 1 if found is not None else 1
    return Location(_shown(path), line, 1, "$.ruleset", path)


def _names_a_file(path: str, ref: str, where: Location | None) -> bool:
    """Whether a path names a regular file; a FIFO, a device or a path the system cannot take is refused in one line."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return False
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "the path contains a NUL character"
        raise _unreadable(ref, reason, where) from None
    if stat.S_ISDIR(mode):
        return False  # a folder is not a ruleset: say what is known instead
    if not stat.S_ISREG(mode):
        kind = "a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else \
            "not a regular file"
        raise _unreadable(ref, f"it is {kind}, not a regular file", where)
    return True


def _unreadable(ref: str, reason: str, where: Location | None) -> RulesetLoadError:
    """A ruleset path that cannot be read: at the key that names it, else at the path itself (cut when long)."""
    if where is not None:
        return RulesetLoadError(f"cannot read the ruleset {shown(ref)}: {reason}", where)
    name = "".join(c if c.isprintable() else repr(c)[1:-1] for c in ref)
    name = name if len(name) <= 120 else f"{name[:60]}…{name[-20:]} ({len(name)} characters)"
    return RulesetLoadError(f"cannot read the file: {reason}", Location(name, 0, 0, "$"))


def find(ref: str, relative_to: str | os.PathLike[str] | None = None, where: Location | None = None) -> Found:
    """The ruleset a reference names: an id (bundled or in a user folder) or a path.

    A path is taken relative to ``relative_to`` (the folder of the file that names it)
    when given, else to the working folder.  ``where`` places the error when nothing is found.
    """
    looks_like_path = os.sep in ref or "/" in ref or ref.endswith((".yaml", ".yml"))
    if not looks_like_path:
        users = user_rulesets().get(ref, [])
        if users and (ref in bundled_ids() or len(users) > 1):
            raise _collision(ref, users)
        if users:
            return Found(users[0], _shown(users[0]), "user")
        if ref in bundled_ids():
            return Found(os.path.join(rulesets_folder(), f"{ref}.yaml"), bundled_name(ref), "bundled")
    path = ref
    if relative_to is not None and not os.path.isabs(path):
        path = os.path.join(relative_to, path)
    if _names_a_file(path, ref, where):
        return Found(path, ref if relative_to is None else _shown(path), "path")
    known = sorted(set(bundled_ids()) | set(user_rulesets()))
    hint = suggest(ref, known) or "known rulesets: " + ", ".join(known)
    raise RulesetLoadError(f"no ruleset id or file named '{ref}'", where, hint)
