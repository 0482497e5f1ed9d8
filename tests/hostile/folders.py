"""Hostile cases of ruleset folders a bot fills, seen from the second command on.

The parse cache keeps an index of each ruleset folder (``interpreter/load/folder_index.py``): a command
after the first reads no file whose size and times are unchanged (a file changed within the last two
seconds is read again, for the clock may not have ticked since; the files here were all just written),
and `rules list` shows an unchanged valid ruleset without compiling it.  Each case runs a first command
unmeasured (``warm``), then the measured one within the corpus's 1 s of CPU; an edit made between the
two is seen (in a folder of 100 files: the point there is what is seen, not the size).
"""

from __future__ import annotations

import os
from pathlib import Path

from hostile.case import Case

COUNT = 1000


def _shelf(count: int = COUNT) -> dict[str, bytes]:
    """`count` small rulesets, `r0` to `r{count-1}`, each titled `R{i}`, in the folder `shelf`."""
    return {f"shelf/r{i}.yaml": f"ruleset: r{i}\ntitle: R{i}\nprocedures: {{}}\n".encode() for i in range(count)}


def _edited(folder: Path) -> None:
    """Between the two commands, `r7` becomes `q7` titled `E7`: the same size, its modification time a second on."""
    path = folder / "shelf" / "r7.yaml"
    before = path.stat()
    path.write_bytes(path.read_bytes().replace(b"r7", b"q7").replace(b"R7", b"E7"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 10**9))


def _added_and_removed(folder: Path) -> None:
    """Between the two commands, `r8.yaml` is removed and `r9.yaml` renamed, and a new file declares `n1`."""
    shelf = folder / "shelf"
    (shelf / "r8.yaml").unlink()
    (shelf / "r9.yaml").rename(shelf / "moved.yaml")
    (shelf / "new.yaml").write_bytes(b"ruleset: n1\ntitle: N1\nprocedures: {}\n")


def cases() -> list[Case]:
    """Every case of folders indexed between commands."""
    shelf = {"RULESMITH_PATH": "{dir}/shelf"}
    return [
        Case("folders", ["run", "r500", "nothing"], _shelf(), env=shelf, own_cache=True,
             warm=[["run", "r1", "nothing"]], names_file=False,
             note="1,000 rulesets, a second command (another id) after a first"),
        Case("folders", ["run", "nosuch", "x"], _shelf(), env=shelf, own_cache=True,
             warm=[["run", "nosuch", "x"]], names_file=False,
             note="1,000 rulesets, an unknown id asked twice: every file's id known from the first"),
        Case("folders", ["list"], _shelf(), exit=(0,), env=shelf, own_cache=True, warm=[["list"]], out="r999",
             note="1,000 rulesets listed after a first list: none compiled again (each was: over 3 s)"),
        Case("folders", ["list", "--json"], _shelf(100), exit=(0,), env=shelf, own_cache=True, warm=[["list"]],
             prepare=_edited, out='"id": "q7", "title": "E7"', never=('"r7"', '"R7"'),
             note="a ruleset edited between two lists (same size, its time moved on) is seen at once"),
        Case("folders", ["list"], _shelf(100), exit=(0,), env=shelf, own_cache=True, warm=[["list"]],
             prepare=_added_and_removed, out="N1", never=("r8.yaml", "r9.yaml"),
             note="a file removed, one renamed and one added between two lists: seen at once"),
    ]
