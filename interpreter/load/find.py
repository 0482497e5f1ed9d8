"""Finding a ruleset: a bundled id, an id in the user's ruleset folders, or a path.

The user's ruleset folders are the directories in ``RULESMITH_PATH`` (separated like
``PATH``), then ``$XDG_CONFIG_HOME/rulesmith/rulesets`` (by default
``~/.config/rulesmith/rulesets``).  Every ``*.yaml`` ruleset there (a file with
``procedures:`` or ``extends:``; a sheet that strays there is not one) is known by its
``ruleset:`` id, read with the YAML reader's own rules from at most ``limits.MAX_FILE_BYTES``
(a larger file, a FIFO or a device is no ruleset), and kept in the parse cache for those exact bytes.  A
lookup of one id parses only the files that could declare it: a file whose bytes neither hold the id as
written nor a backslash (an escape that could spell it) declares another id, or none.  An id claimed by
two files is an error naming both; a file claiming the id of a bundled ruleset is passed over (the
bundled one is used) with one warning naming the file (``load/claims.py``).
Within :func:`one_look` (one command) each folder is listed and each file's id read once, however
many ids are looked up; the cache keeps each folder's index (``load/folder_index.py``), so that a later
command reads only the files whose size or times changed.

A path that a file names (an overlay's ``extends:``, a sheet's ``ruleset:``) must be relative
and lie inside the folder of that file, inside a ruleset folder, or inside a folder trusted for
the while (:func:`trusting`: the command line trusts the folder it is run from, so that
``campaign/sheets/marco.yaml`` may name ``../house.yaml`` when `rules` runs in ``campaign/``),
links resolved; an absolute path or one that leads out is refused before anything is opened, so
a ruleset or sheet from elsewhere cannot make rulesmith read (and quote) a file its user never named.

Bundled rulesets are named ``ID (bundled)`` in messages: once installed they live inside
the package, where no one edits them (``rules export ID`` writes a copy).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING

from interpreter.errors import Location, RulesetLoadError
from interpreter.hints import shown, suggest
from interpreter.load.bundled import bundled_ids, rulesets_folder
from interpreter.record import record

if TYPE_CHECKING:
    from pathlib import Path

    from interpreter.load.folder_index import Index

__all__ = ["Found", "bundled_name", "confined", "declares_ruleset", "find", "folder_index", "looks_like_path",
           "not_a_ruleset", "one_look", "ruleset_shaped", "trusting", "user_folders", "user_rulesets"]


@record
class Found:
    """Where a ruleset is: its file, the name messages show, and where it was found.

    (Paths are strings here: a command on a bundled ruleset never imports ``pathlib``.)
    """

    file: str
    shown: str
    origin: str  # "bundled", "user" (a ruleset folder) or "path"
    id: str | None = None  # the id it was found by

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


# What each ruleset-folder file declares, by (path, size, modification time, inode): a command asks for ids
# many times (every id it looks up, every collision it checks) and reads each file once; a long-lived process
# (the language server) sees files change: at most limits.MAX_DECLARED_FILES are remembered, oldest first out.
_DECLARED: dict[tuple[str, int, int, int], tuple[str | None, int]] = {}


def _parsed_id(data: bytes, path: str) -> tuple[str | None, int]:
    """The id a file's bytes declare and its line, read with the YAML reader's own rules; (None, 0) for no ruleset."""
    from interpreter.load.yaml import load_text

    try:
        doc = load_text(data, path)
    except RulesetLoadError:
        return None, 0
    top = doc.data
    value = top.get("ruleset")
    if not isinstance(value, str) or ("procedures" not in top and "extends" not in top):
        return None, 0  # (a sheet names its ruleset the same way, but has no procedures: or extends:)
    return value, doc.position(("ruleset",))[0]


def _may_declare(data: bytes, ruleset_id: str) -> bool:
    """Whether a file's bytes could declare an id: they hold it as written, or a backslash (a double-quoted
    escape could spell it); an id with a space or a quote (which a folded line could make) may be anywhere.

    The YAML reader takes UTF-8 alone, and a string it reads is written in the file as it is but for
    escapes, folded lines and doubled single quotes: bytes that pass neither test cannot declare the id.
    """
    if any(c.isspace() or c in "'\"" for c in ruleset_id):
        return True
    return ruleset_id.encode("utf-8", "surrogatepass") in data or b"\\" in data


def _declared(path: str, trust_cache: bool = True, asked: str | None = None) -> tuple[str | None, int]:
    """The `ruleset:` id a file in a ruleset folder declares and the line it is on; (None, 0) for a file
    that is not a ruleset or cannot be read (a FIFO, a device, a file past the size limit).

    The id of exact bytes is kept in the parse cache, so that a file is parsed once, not on every command.
    With ``asked``, a file not yet known whose bytes cannot declare that id (:func:`_may_declare`) is
    not parsed: (None, 0) then means only "not that id".
    """
    look = _LOOK.get()
    if look is not None and trust_cache and path in look.ids:
        return look.ids[path]
    known = _read_id(path, trust_cache, asked)
    if look is not None and known is not None and look.ids.get(path) != known:
        look.ids[path], look.by_id = known, None
    return known or (None, 0)


def _read_id(path: str, trust_cache: bool, asked: str | None) -> tuple[str | None, int] | None:
    """:func:`_declared` from the file (or the memo of its size and time); None for bytes that cannot declare ``asked``."""
    from interpreter import limits
    from interpreter.load import cache
    from interpreter.load.yaml import read_bytes

    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None, 0
    if not stat.S_ISREG(info.st_mode) or info.st_size > limits.MAX_FILE_BYTES:
        return None, 0
    memo = (path, info.st_size, info.st_mtime_ns, info.st_ino)
    if trust_cache and memo in _DECLARED:
        return _DECLARED[memo]
    try:
        data = read_bytes(path, path)  # (never waits on a FIFO swapped in meanwhile, never reads past the limit)
    except RulesetLoadError:
        return None, 0
    index = folder_index()  # (kept between commands: load/folder_index.py)
    if asked is not None and not _may_declare(data, asked):
        if index is not None:
            index.passed_over(path, info, data, asked)
        return None
    where = cache.folder()
    digest = cache.sha256(data) if where is not None else ""
    key = cache.id_key(digest) if where is not None else ""
    known = cache.read_id(where, key) if where is not None and trust_cache else None
    if known is None:
        known = _parsed_id(data, path)
        if where is not None:
            cache.write_id(where, key, *known)
    if index is not None:
        index.learn(path, info, digest, known)
    if len(_DECLARED) >= limits.MAX_DECLARED_FILES:
        del _DECLARED[next(iter(_DECLARED))]
    _DECLARED[memo] = known
    return known


class _Look:
    """What one command saw of the ruleset folders: their files (for these folders) and the files' ids."""
    def __init__(self) -> None:
        self.folders: list[str] = []
        self.files: list[str] = []
        self.ids: dict[str, tuple[str | None, int]] = {}
        self.by_id: dict[str | None, list[str]] | None = None  # (made from ids once every file's is known)
        self.index: Index | None = None  # the folders' index kept between commands


_LOOK: ContextVar[_Look | None] = ContextVar("rulesmith_folder_look", default=None)


@contextlib.contextmanager
def one_look() -> Iterator[None]:
    """Meanwhile, the ruleset folders are listed once and each file's id read once (files are taken not
    to change meanwhile): a command that looks up a thousand ids does not read a thousand files each time."""
    token = _LOOK.set(look := _Look())
    try:
        yield
    finally:
        _LOOK.reset(token)
        if look.index is not None:
            look.index.save()


def folder_index() -> Index | None:
    """This command's index of the ruleset folders (:func:`one_look`) once they are listed, else None."""
    return look.index if (look := _LOOK.get()) is not None else None


def _folder_files() -> list[str]:
    """The `*.yaml` files of the user's ruleset folders in search order, each real file once."""
    look, folders = _LOOK.get(), user_folders()
    if look is not None and look.folders == folders:
        return look.files
    from interpreter.load.folder_index import indexed, listing
    listed = dict(listing(folders))  # (each file and its figures)
    if look is None:
        return list(listed)
    look.folders, look.files, look.index = folders, list(listed), indexed(listed.items())
    look.ids = dict(look.index.known) if look.index is not None else {}  # (the files unchanged since indexed)
    return look.files


def user_rulesets(trust_cache: bool = True) -> dict[str, list[str]]:
    """Every ruleset id in the user's folders and the files that declare it, in search order; a file
    claiming a bundled id is left out, with a warning (``load/claims.py``)."""
    found: dict[str, list[str]] = {}
    bundled = set(bundled_ids())
    for path in _folder_files():
        ruleset_id = _declared(path, trust_cache)[0]
        if ruleset_id in bundled:
            _claims_bundled(ruleset_id, path)
        elif ruleset_id is not None:
            found.setdefault(ruleset_id, []).append(path)
    return found


def _declaring(ruleset_id: str, trust_cache: bool) -> list[str]:
    """The files of the user's folders that declare an id, in search order; only those that could are parsed."""
    files, look = _folder_files(), _LOOK.get()
    if look is not None and trust_cache and len(look.ids) == len(files):  # every file's id is known: an index
        if look.by_id is None:
            look.by_id = {}
            for path in files:
                look.by_id.setdefault(look.ids[path][0], []).append(path)
        return look.by_id.get(ruleset_id, [])
    return [path for path in files if _declared(path, trust_cache, ruleset_id)[0] == ruleset_id]


def _claims_bundled(ruleset_id: str, path: str) -> None:
    from interpreter.load.claims import warn  # (one warning per file: claims.py)
    warn(path, _id_location(path), ruleset_id)


def _collision(ruleset_id: str, paths: list[str]) -> RulesetLoadError:
    names = [_shown(p) for p in paths]
    return RulesetLoadError(f"ruleset id '{ruleset_id}' is declared by both {names[0]} and {names[1]}",
                            _id_location(paths[-1]), "give one of them another id")


def _id_location(path: str) -> Location:
    """Where a file declares its `ruleset:` id (its first line when that is not known)."""
    return Location(_shown(path), _declared(path)[1] or 1, 1, "$.ruleset", path)


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


def _inside(real: str, folder: str) -> bool:
    return real == folder or real.startswith(folder.rstrip(os.sep) + os.sep)


# Folders under which a file may name another by a path, besides its own and the ruleset folders: the
# command line's working folder while a command runs; none in the library unless a caller says so.
_TRUSTED: ContextVar[tuple[str, ...]] = ContextVar("rulesmith_trusted_folders", default=())


@contextlib.contextmanager
def trusting(*folders: str) -> Iterator[None]:
    """Meanwhile, let a file name a file anywhere under these folders too (links resolved)."""
    token = _TRUSTED.set(tuple(os.path.realpath(folder) for folder in folders))
    try:
        yield
    finally:
        _TRUSTED.reset(token)


def looks_like_path(ref: str) -> bool:
    """Whether a reference is read as a path (it holds a slash or ends in .yaml or .yml), else as an id."""
    return os.sep in ref or "/" in ref or ref.endswith((".yaml", ".yml"))


def confined(ref: str, relative_to: str | os.PathLike[str], where: Location | None) -> str:
    """The path a file names (``extends:``, a sheet's ``ruleset:``), refused unless it lies inside the
    folder of that file, inside a ruleset folder or inside a trusted folder (:func:`trusting`), links
    resolved first; nothing is opened to decide."""
    what = "a file may name another by a path inside its own folder, or by a ruleset id"
    if os.path.isabs(ref) or os.path.splitdrive(ref)[0]:
        raise RulesetLoadError(f"{shown(ref)} is an absolute path; {what}", where,
                               "put the file beside this one (or below it) and name it by a relative path")
    trusted = _TRUSTED.get()
    try:
        joined = os.path.join(relative_to, ref)
        real = os.path.realpath(joined)
        roots = [os.path.realpath(relative_to), *trusted] + [os.path.realpath(f) for f in user_folders()]
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "the path contains a NUL character"
        raise _unreadable(ref, reason, where) from None
    if not any(_inside(real, root) for root in roots) and trusted:
        raise RulesetLoadError(f"{shown(ref)} leads outside the folder of the file that names it and the folder "
                               "rules runs in; a file may name another by a path inside either, or by a ruleset id",
                               where, "put the file beside this one (or below it), or in a ruleset folder, or run "
                                      "rules from a folder that holds both files")
    if not any(_inside(real, root) for root in roots):
        raise RulesetLoadError(f"{shown(ref)} leads outside the folder of the file that names it; {what}", where,
                               "put the file beside this one (or below it), or in a ruleset folder")
    return real


def ruleset_shaped(top: object) -> bool:
    """Whether a file's top level is that of a ruleset: a `ruleset:` id, with `procedures:` or `extends:`."""
    return isinstance(top, dict) and isinstance(top.get("ruleset"), str) and ("procedures" in top or "extends" in top)


def declares_ruleset(path: str) -> bool:
    """Whether a regular file (within the size limit) is ruleset-shaped; read with the YAML reader's own rules."""
    return _declared(path)[0] is not None


def not_a_ruleset(shown_name: str, where: Location | None) -> RulesetLoadError:
    """The refusal of a file that a file names but that is no ruleset: nothing of its content is quoted."""
    return RulesetLoadError(f"{shown_name} is not a ruleset (no 'ruleset:' id with 'procedures:' or 'extends:'); "
                            "nothing of it is shown", where, "name a ruleset file, and check it with `rules validate`")


def find(ref: str, relative_to: str | os.PathLike[str] | None = None, where: Location | None = None, *,
         trust_cache: bool = True, paths: bool = True) -> Found:
    """The ruleset a reference names: an id (bundled or in a user folder) or a path.

    A path named by a file (``relative_to`` is then its folder) must lie inside that folder or
    inside a ruleset folder (:func:`confined`); a path given on the command line may be any path,
    relative to the working folder.  With ``paths=False`` only an id is found, and nothing else is
    opened.  ``where`` places the error when nothing is found.
    With ``trust_cache=False`` the ids of the ruleset folders are read from the files themselves.
    """
    if not looks_like_path(ref):
        users = _declaring(ref, trust_cache)
        if ref in bundled_ids():
            for path in users:
                _claims_bundled(ref, path)
            return Found(os.path.join(rulesets_folder(), f"{ref}.yaml"), bundled_name(ref), "bundled", ref)
        if len(users) > 1 and trust_cache:
            # the cache may have lied: ask the files that claim the id (those alone, not every folder again)
            users = [path for path in users if _declared(path, trust_cache=False)[0] == ref]
        if len(users) > 1:
            raise _collision(ref, users)
        if users:
            return Found(users[0], _shown(users[0]), "user", ref)
    path = ref if relative_to is None or not paths else confined(ref, relative_to, where)
    if paths and _names_a_file(path, ref, where):
        return Found(path, ref if relative_to is None else _shown(path), "path")
    known = sorted((set(bundled_ids()) | set(user_rulesets())) - {ref})  # (less an id the cache told wrongly)
    hint = suggest(ref, known) or "known rulesets: " + ", ".join(known)
    raise RulesetLoadError(f"no ruleset id {'or file ' if paths else ''}named '{ref}'", where, hint)
