"""The second round of hostile inputs: what a security review did to the surfaces added in the second round.

The parse cache (a folder of notes beside it, forged records, records that are FIFOs or links to
/dev/zero), files named by files (``extends:`` and a sheet's ``ruleset:`` reaching out of their folder),
ruleset folders (an id inside a quoted title, a sparse 3 GB file, large files on every command), names
(a newline at the end, control characters in what is printed), nesting (the schema check of nested
steps), creation rules and track sizes (loops of one dot, boxes by the billion), writes (links, hard
links, missing folders) and shell completion.  Large inputs are made here, when the corpus runs.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Callable
from pathlib import Path

from hostile.case import Case
from hostile.round_one import NWOD_SHEET

GOOD = """\
ruleset: good
title: Good
procedures:
  p:
    outcomes: {ok: fine, bad: not fine}
    steps:
      - decide: [{outcome: ok}]
"""
SECRET = "password: hunter2-SECRET\nruleset: x\nkey_name: visible\n"
SAFE = ("hunter2", "password", "key_name")


def _e(text: str) -> bytes:
    return text.encode("utf-8")


# ----------------------------------------------------------------------------- the parse cache


def _only_record(folder: Path) -> Path:
    records = sorted((folder / "cache" / "rulesmith" / "documents").glob("*.json"))
    assert len(records) == 1, records
    return records[0]


def _forged(body: dict) -> Callable[[Path], None]:
    """Write over the case's one record another body, under its own key, with a length and check that match."""

    def forge(folder: Path) -> None:
        record = _only_record(folder)
        header = json.loads(record.read_bytes().partition(b"\n")[0])
        payload = json.dumps(body, separators=(",", ":")).encode("utf-8")
        header.update(length=len(payload), crc32=zlib.crc32(payload))
        record.write_bytes(json.dumps(header).encode("utf-8") + b"\n" + payload)

    return forge


def _replaced(how: str) -> Callable[[Path], None]:
    def replace(folder: Path) -> None:
        record = _only_record(folder)
        record.unlink()
        if how == "fifo":
            os.mkfifo(record)
        elif how == "zero":
            record.symlink_to("/dev/zero")
        else:
            with open(record, "wb") as handle:
                handle.truncate(4 << 30)

    return replace


INVALID = {"ruleset": "../../../../etc/x", "title": "Bad", "procedures": {"p": {
    "params": {"n": {"type": "evil"}}, "outcomes": {"ok": "bad"}, "steps": [{"decide": [{"outcome": "ok"}]}]}}}
VALID_DATA = {"ruleset": "good", "title": "Good", "procedures": {"p": {
    "outcomes": {"ok": "fine", "bad": "not fine"}, "steps": [{"decide": [{"outcome": "ok"}]}]}}}
RECORD_NAMES = {"fifo": "a FIFO", "zero": "a link to /dev/zero", "sparse": "a sparse 4 GB file"}


def _notes(where: str) -> dict[str, bytes]:
    return {f"{where}/note{i}.txt": _e(f"note {i}\n") for i in range(300)}


def cache_cases() -> list[Case]:
    out = []
    for where in ("mine/documents", "mine/checked", "mine/rulesmith/documents"):
        mine = where != "mine/rulesmith/documents"  # (a folder named rulesmith, not the cache's: nothing written)
        out.append(Case("cache", ["run", "good.yaml", "p"], {"good.yaml": _e(GOOD), **_notes(where)}, exit=(0,),
                        env={"RULESMITH_CACHE_DIR": "{dir}/mine"}, may_create=("mine/rulesmith",) if mine else (),
                        out="good p: ok", note=f"300 notes in {where}"))
    forged = {
        "an invalid document": {"data": INVALID, "positions": [1, 1, None]},
        "positions of Infinity": {"data": VALID_DATA, "positions": [float("inf"), float("nan"), None]},
        "an invalid document placed at Infinity": {"data": INVALID, "positions": [float("inf"), 1, None]},
        "a number past 64 bits": {"data": {**INVALID, "ruleset": "good", "constants": {"n": 10**30}},
                                  "positions": [1, 1, None]},
    }
    for name, body in forged.items():
        for command in (["run", "good.yaml", "p"], ["describe", "good.yaml"], ["odds", "good.yaml", "p"]):
            out.append(Case("cache", command, {"good.yaml": _e(GOOD)}, exit=(0,), own_cache=True,
                            warm=[["run", "good.yaml", "p"]], prepare=_forged(body), never=("Bad", "evil", "etc/x"),
                            note=f"a forged record: {name}"))
    for how, words in RECORD_NAMES.items():
        out.append(Case("cache", ["run", "good.yaml", "p"], {"good.yaml": _e(GOOD)}, exit=(0,), own_cache=True,
                        warm=[["run", "good.yaml", "p"]], prepare=_replaced(how), out="good p: ok",
                        note=f"a record that is {words}"))
    return out


# ----------------------------------------------------------------------------- files named by files


OVERLAY = "extends: {base}\nruleset: house\ntitle: House\n"


def _link(name: str, target: str) -> Callable[[Path], None]:
    def link(folder: Path) -> None:
        (folder / name).symlink_to(target)

    return link


def _chain(count: int, size: int) -> dict[str, Callable[[], bytes]]:
    """An overlay chain of files of `size` bytes each, c0.yaml extending c1.yaml and so on."""

    def make(i: int) -> Callable[[], bytes]:
        head = f"extends: c{i + 1}.yaml\nruleset: c{i}\ntitle: \""
        return lambda: _e(head + "a" * (size - len(head) - 2) + "\"\n")

    return {f"c{i}.yaml": make(i) for i in range(count)}


def named_cases() -> list[Case]:
    secret = {"secret/creds.yaml": _e(SECRET)}
    out = []
    # (each command runs in the folder of the file it names: `rules` trusts the folder it runs in, and a bot
    # runs it where only the users' files are)
    for base in ("/etc/passwd", "../../secret/creds.yaml", "../../../../../../../../etc/passwd"):
        files = {**secret, "a/b/house.yaml": _e(OVERLAY.format(base=base))}
        for command in (["validate", "house.yaml"], ["run", "house.yaml", "p"], ["run", "house.yaml", "p", "--json"]):
            out.append(Case("named", command, files, never=(*SAFE, "root:"), note=f"extends: {base}", cwd="a/b"))
    out.append(Case("named", ["validate", "house.yaml"],
                    {**secret, "a/house.yaml": _e(OVERLAY.format(base="base.yaml"))},
                    setup=_link("a/base.yaml", "../secret/creds.yaml"), never=SAFE, note="a link that points out",
                    cwd="a"))
    for ref in ("../secret/creds.yaml", "/etc/passwd"):
        sheet = _e(f'ruleset: "{ref}"\nname: Ana\n')
        for command in (["sheet", "check", "s.yaml"], ["sheet", "show", "s.yaml", "--json"],
                        ["run", "nwod", "take_damage", "amount=1", "type=lethal", "--sheet", "s.yaml"]):
            out.append(Case("named", command, {**secret, "a/s.yaml": sheet}, never=(*SAFE, "root:"),
                            note=f"a sheet's ruleset: {ref}", cwd="a"))
    out.append(Case("named", ["validate", "c0.yaml"], _chain(16, 700_000),
                    note="16 overlays of 700 KB: refused before the second is read"))
    out.append(Case("named", ["sheet", "new", "../c.yaml", "-o", "x.yaml"],
                    {"c.yaml": _e(GOOD), "sheets/keep.txt": b"k\n"}, names_file=False,
                    note="a sheet whose ruleset path would lead out", cwd="sheets"))
    return out + campaign_cases()


def campaign_cases() -> list[Case]:
    """A GM's own layout runs from the campaign's folder; what leads out of it is still refused; a chart
    names no file that exists unless forced."""
    secret = {"secret/creds.yaml": _e(SECRET)}
    house = {"campaign/house.yaml": _e(GOOD), "campaign/sheets/marco.yaml": _e('ruleset: "../house.yaml"\nname: M\n')}
    out = [Case("named", ["sheet", "check", "sheets/marco.yaml"], {**secret, **house}, exit=(0,), cwd="campaign",
                out="valid", note="a sheet naming ../house.yaml, run from the campaign"),
           Case("named", ["sheet", "check", "marco.yaml"], {**secret, **house}, cwd="campaign/sheets",
                never=SAFE, note="the same sheet, run from its own folder")]
    for ref in ("../secret/creds.yaml", "/etc/passwd", "../../etc/passwd"):
        sheet = {"campaign/sheets/ana.yaml": _e(f'ruleset: "{ref}"\nname: Ana\n')}
        out.append(Case("named", ["sheet", "check", "sheets/ana.yaml"], {**secret, **house, **sheet}, cwd="campaign",
                        never=(*SAFE, "root:"), note=f"a sheet's ruleset {ref}, run from the campaign"))
    page = {"page.html": b"<!DOCTYPE html><title>mine</title>\n"}
    for command in (["odds", "nwod", "action", "pool=3"], ["odds", "3d6"], ["diff", "nwod", "nwod", "action", "pool=3"]):
        out.append(Case("command line", [*command, "--plot", "page.html"], page, names_file=False,
                        note="--plot over a page it did not write"))
    return out


# ----------------------------------------------------------------------------- writes


def _hard_link(folder: Path) -> None:
    os.link(folder / "s.yaml", folder / "twin.yaml")


def _dangling(folder: Path) -> None:
    (folder / "elsewhere").mkdir()
    (folder / "new.yaml").symlink_to(folder / "elsewhere" / "target.yaml")


def _keys(count: int) -> Callable[[], bytes]:
    return lambda: _e(NWOD_SHEET + "".join(f"extra{i}: {i}\n" for i in range(count)))


def _long_name(size: int) -> Callable[[], bytes]:
    return lambda: _e(NWOD_SHEET.replace('name: "Vera"', 'name: "Vera ' + "x" * size + '"'))


def write_cases() -> list[Case]:
    damage = ["run", "nwod", "take_damage", "amount=1", "type=lethal", "--sheet", "s.yaml"]
    return [
        Case("writes", damage, {"s.yaml": _keys(5000)}, cpu=1.5,
             note="5,000 extra keys: its normal time is one parse of 100 KB"),
        Case("writes", [*damage, "--dry-run"], {"s.yaml": _long_name(900_000)}, exit=(0,), cpu=3.0,
             out="state.health", note="a valid 900 KB sheet: its normal time is two parses of 900 KB"),
        Case("writes", ["sheet", "new", "nwod", "-o", "new.yaml"], setup=_dangling, note="a dangling link"),
        Case("writes", ["sheet", "new", "nwod", "-o", "no/such/dir/x.yaml"], note="a folder that does not exist"),
        Case("writes", damage, {"s.yaml": _e(NWOD_SHEET)}, setup=_hard_link, note="a hard-linked sheet"),
        Case("writes", [*damage, "--json"], {"s.yaml": _e(NWOD_SHEET)}, setup=_hard_link, note="a hard-linked sheet"),
    ]


# ----------------------------------------------------------------------------- names


def name_cases() -> list[Case]:
    newline_id = GOOD.replace("ruleset: good", 'ruleset: "nl2\\n"')
    newline_proc = GOOD.replace("  p:", '  "p\\n":')
    shelf = {"RULESMITH_PATH": "{dir}/shelf"}
    quoted = GOOD.replace("ruleset: good", "ruleset: real").replace("title: Good", 'title: "A title\nruleset: shown\nend"')
    other = GOOD.replace("ruleset: good", "ruleset: other").replace("title: Good", 'title: "x\nruleset: real\ny"')
    escaped = GOOD.replace("title: Good", 'title: "Evil\\x1b[2J\\rTitle\\u2028more"')
    sheet = NWOD_SHEET.replace('name: "Vera"', 'name: "Vera\\r\\nEvil\\u2028Line\\x1b[2J\\x85"')
    return [
        Case("names", ["validate", "r.yaml"], {"r.yaml": _e(newline_id)}, note="an id ending in a newline"),
        Case("names", ["validate", "r.yaml"], {"r.yaml": _e(newline_proc)}, note="a procedure ending in a newline"),
        Case("names", ["run", "r.yaml", "p\n"], {"r.yaml": _e(newline_proc)}, note="a procedure ending in a newline"),
        Case("names", ["run", "good.yaml", "p\n"], {"good.yaml": _e(GOOD)}, names_file=False,
             note="a procedure asked with a newline"),
        Case("names", ["sheet", "show", "s.yaml"], {"s.yaml": _e(sheet)}, exit=(0,), out="Vera\\r\\nEvil\\u2028Line",
             never=("\r", "\u2028", "\x1b", "\x85"), note="a sheet's name holding CR, LF, U+2028, ESC"),
        Case("names", ["list"], {"shelf/e.yaml": _e(escaped)}, exit=(0,), env=shelf, out="good         Evil\\x1b",
             never=("\x1b", "\r", "\u2028"), note="a title holding ESC and CR"),
        Case("names", ["run", "shown", "p"], {"shelf/real.yaml": _e(quoted)}, env=shelf,
             note="ruleset: shown inside a quoted title"),
        Case("names", ["run", "real", "p"], {"shelf/real.yaml": _e(quoted)}, exit=(0,), env=shelf, out="real p: ok",
             note="ruleset: shown inside a quoted title"),
        Case("names", ["list", "--json"], {"shelf/real.yaml": _e(quoted)}, exit=(0,), env=shelf,
             out='"id": "real"', never=('"id": "shown"',), note="ruleset: shown inside a quoted title"),
        Case("names", ["run", "real", "p"], {"shelf/a.yaml": _e(quoted), "shelf/b.yaml": _e(other)}, exit=(0,),
             env=shelf, out="real p: ok", note="an id quoted in another file's title is no collision"),
    ]


# ----------------------------------------------------------------------------- nesting


def nested(depth: int, kind: str = "repeat", inner: str = "- let: {x: 1}") -> str:
    lines = ["ruleset: deep", "title: Deep", "procedures:", "  p:", "    outcomes: {done: done}", "    steps:"]
    indent = "      "
    for _ in range(depth):
        lines += [f"{indent}- {kind}: 1", f"{indent}  steps:"]
        indent += "    "
    lines += [indent + inner, "      - decide: [{outcome: done}]"]
    return "\n".join(lines) + "\n"


def nesting_cases() -> list[Case]:
    shelf = {"RULESMITH_PATH": "{dir}/shelf"}
    out = []
    for depth, kind in ((12, "repeat"), (8, "repeat"), (7, "best_of"), (20, "repeat")):
        files = {"deep.yaml": _e(nested(depth, kind))}
        note = f"{depth} nested {kind}"
        warned = int(kind == "best_of")  # the outermost best_of sets no outcome: one warning, not one per level
        out.append(Case("nesting", ["validate", "deep.yaml"], files, exit=(0,), out="deep.yaml: valid", note=note,
                        stderr_lines=warned))
        out.append(Case("nesting", ["run", "deep.yaml", "p"], files, exit=(0,), out="deep p: done", note=note,
                        stderr_lines=warned))  # (every command that loads a file gives its warnings)
        out.append(Case("nesting", ["validate", "bad.yaml"], {"bad.yaml": _e(nested(depth, kind, "- rol: {x: 1d6}"))},
                        note=f"{note}, the innermost step misspelt"))
    deep = {"shelf/deep.yaml": _e(nested(12))}
    out.append(Case("nesting", ["list"], deep, exit=(0,), env=shelf, out="deep", note="12 nested repeat in a folder"))
    completing = {**shelf, "_RULES_COMPLETE": "bash_complete", "COMP_WORDS": "rules run deep ", "COMP_CWORD": "3"}
    out.append(Case("nesting", [], deep, exit=(0,), env=completing, out="plain,p",
                    note="completion of 12 nested repeat in a folder"))
    return out


# ----------------------------------------------------------------------------- creation rules and tracks


BOUNDED = """\
ruleset: bounded
title: Bounded
constants: {base: 0, total: 6, merit_points: 7, per: 2}
traits:
  STA: {min: 1, max: 5, default: 1}
  B: {min: 1, max: 5, default: 1}
procedures:
  noop:
    outcomes: {done: done}
    steps:
      - decide: [{outcome: done}]
sheet:
  fields:
    merits: {kind: points, total: merit_points, default: {X: 4, Y: 3}}
  tracks:
    health: {kind: boxes, size: 2 + STA * per, types: [hit]}
  creation:
    - {budget: stats, traits: [STA, B], total: total, base: base}
"""
SHEET = """\
ruleset: r.yaml
name: Ada
traits: {STA: 3, B: 3}
choices:
  merits: {X: 4, Y: 3}
state:
  health: [null, null, null, null, null, null, null, null]
"""


def creation_cases() -> list[Case]:
    far = BOUNDED.replace("base: 0,", "base: -1000000000000,")
    open_b = BOUNDED.replace("B: {min: 1, max: 5, default: 1}", "B: {min: 1, default: 1}")
    open_sta = BOUNDED.replace("STA: {min: 1, max: 5, default: 1}", "STA: {min: 1, default: 1}")
    huge_b = SHEET.replace("B: 3", "B: 9223372036854775807")
    boxes = BOUNDED.replace("size: 2 + STA * per", "size: 100000000")
    out = [
        Case("creation", ["validate", "r.yaml"], {"r.yaml": _e(far)}, exit=(0,), stderr_lines=1, out="valid",
             note="a budget base of -1000000000000 (a warning: the defaults break it)"),
        Case("creation", ["sheet", "new", "r.yaml", "-o", "n.yaml"], {"r.yaml": _e(far)}, names_file=False,
             note="a budget base of -1000000000000"),
        Case("creation", ["sheet", "check", "--creation", "s.yaml"], {"r.yaml": _e(open_b), "s.yaml": _e(huge_b)},
             note="a trait of 9223372036854775807"),
        Case("creation", ["sheet", "check", "--creation", "s.yaml"],
             {"r.yaml": _e(open_b.replace("base: base}", "base: base, dot_cost: dot}")), "s.yaml": _e(huge_b)},
             note="a trait of 9223372036854775807, a cost by the dot"),
        Case("creation", ["sheet", "new", "r.yaml", "-o", "n.yaml"],
             {"r.yaml": _e(BOUNDED.replace("merit_points: 7", "merit_points: 1000000000000"))}, exit=(0,),
             out="wrote n.yaml", may_create=("n.yaml",), note="a points total of 1e12",
             stderr_lines=2),  # the file's two warnings (its defaults break its own budgets), told as validate does
        Case("creation", ["sheet", "new", "r.yaml", "-o", "n.yaml"],
             {"r.yaml": _e(open_sta.replace("total: 6,", "total: 1000000000000,"))}, names_file=False,
             note="a budget of 1e12 dots"),
        Case("tracks", ["validate", "r.yaml"], {"r.yaml": _e(boxes)}, note="a track of 100000000 boxes"),
        Case("tracks", ["sheet", "new", "r.yaml", "-o", "n.yaml"], {"r.yaml": _e(boxes)},
             note="a track of 100000000 boxes"),
    ]
    for sta in ("4000000000000", "40000000"):
        files = {"r.yaml": _e(open_sta), "s.yaml": _e(SHEET.replace("STA: 3", f"STA: {sta}"))}
        for command in (["sheet", "check", "s.yaml"], ["sheet", "show", "s.yaml"],
                        ["run", "r.yaml", "noop", "--sheet", "s.yaml"]):
            out.append(Case("tracks", command, files, note=f"2 + STA * 2 boxes at STA {sta}"))
    return out


# ----------------------------------------------------------------------------- ruleset folders and completion


def _sparse(name: str, size: int) -> Callable[[Path], None]:
    def make(folder: Path) -> None:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as handle:
            handle.truncate(size)
        os.mkfifo(path.parent / "fifo.yaml")

    return make


def _large(i: int) -> Callable[[], bytes]:
    head = f'{{ruleset: big{i}, procedures: {{}}, title: "'
    return lambda: _e(head + "t" * (685_000 - len(head) - 3) + '"}\n')


def folder_cases() -> list[Case]:
    shelf = {"RULESMITH_PATH": "{dir}/shelf"}
    large = {f"shelf/big{i}.yaml": _large(i) for i in range(10)}
    action = ["run", "nwod", "action", "pool=2", "--seed", "1"]
    return [
        Case("folders", action, setup=_sparse("shelf/huge.yaml", 3 << 30), exit=(0,), env=shelf, out="nwod action:",
             note="a sparse 3 GB file and a FIFO in the folder"),
        Case("folders", ["list"], setup=_sparse("shelf/huge.yaml", 3 << 30), exit=(0,), env=shelf, out="nwod",
             note="a sparse 3 GB file and a FIFO in the folder"),
        Case("folders", action, large, exit=(0,), env=shelf, own_cache=True, warm=[["list"]], out="nwod action:",
             note="ten 685 KB flow-style files in the folder, read once before"),
        Case("completion", [], env={"_RULES_COMPLETE": "bash_complete", "COMP_CWORD": "abc"},
             note="COMP_CWORD=abc and no COMP_WORDS"),
        Case("completion", [], env={"_RULES_COMPLETE": "bash_complete", "COMP_WORDS": "rules ru", "COMP_CWORD": "x"},
             note="a COMP_CWORD that is no number"),
        Case("completion", [], env={"_RULES_COMPLETE": "zsh_complete", "COMP_WORDS": "rules ru"},
             note="no COMP_CWORD"),
    ]


def cases() -> list[Case]:
    """Every case of the second round."""
    return [*cache_cases(), *named_cases(), *write_cases(), *name_cases(), *nesting_cases(), *creation_cases(),
            *folder_cases()]
