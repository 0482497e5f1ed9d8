"""The index of the ruleset folders, kept in the parse cache between commands.

For each ruleset folder the cache keeps one record (``folders/KEY.json``, the key made from the
folder's real path) naming each file it holds by its size, modification and change times, inode
and device, with the SHA-256 of its bytes, the id it declares (null: none, or not a ruleset) and
the line it is on.  A command lists the folder and asks the system for each file's size and times
(``load/find.py``): a file whose figures are all unchanged is known without being opened, and
only the files that changed, appeared or were renamed are read (a removed file is dropped from the
record).  A file changed less than ``SETTLED_NS`` before it was read could change again within the
same tick of the file system's clock and keep its figures: its entry is not trusted until read at
a later command, when it has settled.  (The change time, which no one can set back, changes
with every write: a copy that keeps a file's size and modification time is seen all the same.)

An entry of a valid ruleset that extends nothing and has no warnings also keeps what `rules list`
shows of it (its title and description, as compiled): listing a thousand rulesets compiles only
those that changed.  The record is written like every other (whole or not at all, never through a
link, pruned with its kind); one whose key, length or check fails, or whose body is not an index
of that very folder in every part, is ignored whole and made again.  It is trusted as much as the
other records (anyone who may write in the cache may forge one): at worst it makes a file stand
for another id, and the file is then read, and checked, when that id is loaded.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterable, Iterator

from interpreter import limits
from interpreter.load import cache

__all__ = ["SETTLED_NS", "Index", "Row", "indexed", "listing"]

SETTLED_NS = 2 * 10**9  # a file changed this long before it was read has settled (FAT's clock ticks every 2 s)
_ROW_CHARS = 2000  # the most title and description an entry keeps for `rules list`

Stat = tuple[int, int, int, int, int]  # size, modification time, change time (ns), inode, device
Known = tuple[str | None, int]  # the id a file declares (None: none) and its line
Row = tuple[str, str]  # what `rules list` shows of a ruleset: its title and its description


def _stat(info: os.stat_result) -> Stat:
    return info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev


class _Entry:
    """What the index holds of one file."""

    def __init__(self, figures: Stat, digest: str, known: Known, settled: bool, row: Row | None = None) -> None:
        self.stat, self.digest, self.known, self.settled, self.row = figures, digest, known, settled, row
        self.fresh = False  # read by this command

    def saved(self) -> list[object]:
        return [*self.stat, self.digest, self.known[0], self.known[1], self.settled,
                list(self.row) if self.row is not None else None]


def _entry(value: object) -> _Entry | None:
    """An entry as a record holds it, or None when it is not one in every part."""
    if not isinstance(value, list) or len(value) != 10:
        return None
    *figures, digest, ruleset_id, line, settled, row = value
    if not all(type(n) is int for n in figures) or type(line) is not int or type(settled) is not bool:
        return None
    if not isinstance(digest, str) or not (ruleset_id is None or isinstance(ruleset_id, str)):
        return None
    if row is not None and not (isinstance(row, list) and len(row) == 2 and all(isinstance(t, str) for t in row)):
        return None
    shown = (row[0], row[1]) if row is not None else None
    size, modified, changed, inode, device = figures
    return _Entry((size, modified, changed, inode, device), digest, (ruleset_id, line), settled, shown)


class _Folder:
    """One folder's record: what it held when read, and what this command saw."""

    def __init__(self, where: str, folder: str) -> None:
        self.real = os.path.realpath(folder)
        self.key = cache.folder_key(self.real)
        self.old = self._read(where)
        self.listed: dict[str, Stat] = {}
        self.now: dict[str, _Entry] = {}
        self.changed = False

    def _read(self, where: str) -> dict[str, _Entry]:
        body = cache.read_record(where, "folders", self.key)
        if not isinstance(body, dict) or body.get("folder") != self.real or not isinstance(body.get("files"), dict):
            return {}
        entries = {name: _entry(value) for name, value in body["files"].items()}
        if not all(isinstance(name, str) and entry is not None for name, entry in entries.items()):
            return {}  # a forged or damaged index: ignored whole, and made again
        return {name: entry for name, entry in entries.items() if entry is not None}


class Index:
    """The index of the folders one command lists; :meth:`save` writes what changed."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.folders: dict[str, _Folder] = {}
        self.known: dict[str, Known] = {}  # the files whose id the index holds, their figures unchanged

    def _place(self, path: str) -> tuple[_Folder, str]:
        folder, name = os.path.split(path)
        if folder not in self.folders:
            self.folders[folder] = _Folder(self.where, folder)
        return self.folders[folder], name

    def see(self, path: str, info: os.stat_result) -> None:
        """Note a file of a folder's listing, and its id when the index holds it for these very figures."""
        place, name = self._place(path)
        figures = place.listed[name] = _stat(info)
        entry = place.old.get(name)
        if entry is not None and entry.stat == figures:
            place.now[name] = entry
            if entry.settled:
                self.known[path] = entry.known

    def learn(self, path: str, info: os.stat_result, digest: str, known: Known) -> None:
        """Keep the id a listed file's bytes (of this SHA-256, read with these figures) declare."""
        folder, name = os.path.split(path)
        place = self.folders.get(folder)
        figures = _stat(info)
        if place is None or place.listed.get(name) != figures:
            return  # not a file of the listing, or one changed since
        settled = time.time_ns() - max(info.st_mtime_ns, info.st_ctime_ns) > SETTLED_NS
        before = place.now.get(name)
        row = before.row if before is not None and before.digest == digest else None
        entry = _Entry(figures, digest, known, settled, row)
        entry.fresh = True
        if before is None or before.saved() != entry.saved():
            place.changed = True
        place.now[name] = entry

    def passed_over(self, path: str, info: os.stat_result, data: bytes, ruleset_id: str) -> None:
        """A listed file read by a lookup, whose bytes cannot declare an id: its entry is kept (and may settle)
        when made from these very bytes, and dropped when it says they declare that id."""
        folder, name = os.path.split(path)
        place = self.folders.get(folder)
        entry = place.now.get(name) if place is not None else None
        if place is None or entry is None:
            return
        if entry.known[0] == ruleset_id:
            del place.now[name]  # (a forged entry: the bytes cannot declare what it says)
            place.changed = True
        elif entry.digest == (digest := cache.sha256(data)):  # (hashed only for a file the index holds)
            self.learn(path, info, digest, entry.known)

    def row(self, path: str) -> Row | None:
        """What `rules list` showed of a file whose bytes are known to be unchanged, if kept."""
        entry = self._current(path)
        return entry.row if entry is not None else None

    def keep_row(self, path: str, row: Row) -> None:
        """Keep what `rules list` shows of a valid ruleset file that extends nothing and has no warnings."""
        entry = self._current(path)
        if entry is not None and entry.row != row and len(row[0]) + len(row[1]) <= _ROW_CHARS:
            entry.row = row
            self._place(path)[0].changed = True

    def _current(self, path: str) -> _Entry | None:
        folder, name = os.path.split(path)
        place = self.folders.get(folder)
        entry = place.now.get(name) if place is not None else None
        return entry if entry is not None and (entry.settled or entry.fresh) else None

    def save(self) -> None:
        """Write the record of each folder whose files changed, appeared or went (each entry listed now)."""
        for place in self.folders.values():
            kept = {name: entry for name, entry in place.now.items() if name in place.listed}
            if not place.changed and kept.keys() == place.old.keys():
                continue
            names = sorted(kept)[: limits.MAX_DECLARED_FILES]
            cache.write_record(self.where, "folders", place.key, {"folder": place.real,
                                                      "files": {name: kept[name].saved() for name in names}})


def listing(folders: Iterable[str]) -> Iterator[tuple[str, os.stat_result]]:
    """Each regular `*.yaml` file of the folders, in order (links followed), and its figures; each real file once."""
    seen: set[str] = set()
    for folder in folders:
        try:
            names, real_folder = sorted(os.listdir(folder)), os.path.realpath(folder)
        except (OSError, ValueError):
            continue
        for name in names:
            if not name.endswith(".yaml") or name.startswith("."):
                continue
            path = os.path.join(folder, name)
            try:
                real = os.path.realpath(path) if os.path.islink(path) else os.path.join(real_folder, name)
                info = os.stat(path)
            except (OSError, ValueError):
                continue
            if real not in seen and stat.S_ISREG(info.st_mode):
                seen.add(real)
                yield path, info


def indexed(listed: Iterable[tuple[str, os.stat_result]]) -> Index | None:
    """The index of the files of a listing (path and figures of each), or None when the cache is off."""
    where = cache.folder()
    if where is None:
        return None
    index = Index(where)
    for path, info in listed:
        index.see(path, info)
    return index
