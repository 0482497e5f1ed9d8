"""Character sheet files: byte-exact round trips, atomic and locked writes, crashes and refusals."""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from interpreter.errors import RulesError, RulesetLoadError
from interpreter.sheet.file import TEMP_MARK, SheetFile, new_sheet, transaction

ROOT = Path(__file__).resolve().parent.parent
SLOW_WRITE = str(Path(__file__).resolve().parent / "slow_write.py")  # runs code with sheet writes slowed down
TEMPS = f".sheet.yaml{TEMP_MARK}*"

FOUR_SPACES = """\
# Character sheet: Mara Voss
# kept by hand; procedures change a few values
---
name: "Mara Voss"     # the hero
player: 'Ann'
concept: wandering cartographer
hp: 10    # hit points
health: {current: 10, max: 12}  # flow mapping
nothing: ~
flag: True
track: [lethal, bashing, null, null]
skills:
    - name: Stealth   # sneaky
      rank: 3
    - name: "Lore"
      rank: 1

    # a comment before the gear
gear:
    - rope
    - "lantern"
notes: |
    Met the guild master.
    Owes 3 silver.
nested:
    deep:
        value: 10 # trailing
"""

TWO_SPACES = """\
# top comment

# a second block of comments
name: Bob # inline
hp: 10
health: {current: 10, max: 12}
stats:
  str: 12   # strength
  dex: 8

  # blank line above
  con: 10
skills:
- name: Climb
  rank: 3
- name: 'Swim'   # quoted
  rank: 1
# a comment between items
- name: Ride
  rank: 2
track: [lethal, bashing, null, null]
empty: ''
# final comment
"""

OFFSET_LISTS = """\
name: 'Ilse'
hp: 10
health:
  current: 10
  max: 12
skills:
  - name: Sail
    rank: 3
  -   name: Knots
      rank: 1
  - name: Stars
    rank: 2
gear: ["rope", 'hook']
notes: >
  folded text
  over two lines
health_note: {current: 10, max: 12, note: "fine"}"""

FLOW_DOCUMENT = '{"name": "Kai", "hp": 10, "health": {"current": 10, "max": 12}, "skills": [{"name": "Run", "rank": 3}]}\n'

CRLF_BOM = "\ufeff# windows sheet\r\nname: Ola\r\nhp: 10\r\nhealth: {current: 10, max: 12}\r\nskills:\r\n  - name: Hide\r\n    rank: 3\r\n"

STYLES = {"four": FOUR_SPACES, "two": TWO_SPACES, "offset": OFFSET_LISTS, "flow": FLOW_DOCUMENT, "crlf": CRLF_BOM}


def make(tmp_path: Path, text: str, name: str = "sheet.yaml") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def offset_of(text: str, sheet: SheetFile, path: tuple) -> int:
    """Where in ``text`` the value at ``path`` starts, from the loader's line and column."""
    where = sheet.doc.where(path)
    before = sum(len(line) for line in text.splitlines(keepends=True)[: where.line - 1])
    return before + where.col - 1 + (where.line == 1 and text.startswith("\ufeff"))  # a BOM is no column


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("path", [("hp",), ("health", "current"), ("skills", 0, "rank")])
def test_one_int_change_changes_only_those_bytes(tmp_path, style, path):
    text = STYLES[style]
    if path == ("health", "current") and style == "offset":
        path = ("health_note", "current")  # the flow mapping on the last line, which has no line break
    sheet = SheetFile.read(make(tmp_path, text))
    old = sheet.get(path)
    at = offset_of(text, sheet, path)
    assert text[at:at + len(str(old))] == str(old)
    sheet.set(path, old + 1)
    assert len(str(old + 1)) == len(str(old))
    sheet.write()
    expected = text[:at] + str(old + 1) + text[at + len(str(old)):]
    assert sheet.path.read_bytes() == expected.encode("utf-8")
    assert SheetFile.read(sheet.path).get(path) == old + 1


@pytest.mark.parametrize("style", STYLES)
def test_reading_and_writing_without_changes_keeps_the_file(tmp_path, style):
    path = make(tmp_path, STYLES[style])
    sheet = SheetFile.read(path)
    assert sheet.render() == STYLES[style].removeprefix("\ufeff")
    assert sheet.diff() == "" and sheet.changes() == []
    sheet.write()
    assert path.read_bytes() == STYLES[style].encode("utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sheet.yaml"]


def changed_lines(diff: str) -> list[str]:
    return [line for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]


def test_a_shorter_value_changes_only_the_value(tmp_path):
    path = make(tmp_path, FOUR_SPACES)
    sheet = SheetFile.read(path)
    sheet.set(("hp",), 9)
    sheet.set(("health", "current"), 7)
    assert changed_lines(sheet.diff()) == [
        "-hp: 10    # hit points", "-health: {current: 10, max: 12}  # flow mapping",
        "+hp: 9    # hit points", "+health: {current: 7, max: 12}  # flow mapping"]
    sheet.write()
    assert path.read_text() == FOUR_SPACES.replace("hp: 10 ", "hp: 9 ").replace("current: 10", "current: 7")


def test_values_inside_a_flow_collection_written_over_several_lines(tmp_path):
    text = "name: Ash\nconditions: {bleeding: false,\n  # rounds left\n  stunned: 0}  # none yet\nempty:\nbox: [a,\n  b]\n"
    path = make(tmp_path, text)
    sheet = SheetFile.read(path)
    sheet.set(("conditions", "bleeding"), True)
    sheet.set(("conditions", "stunned"), 2)
    sheet.set(("empty",), "it's here")
    sheet.set(("box", 1), "x y")
    sheet.set(("name",), "null")  # a string that must be quoted
    sheet.write()
    assert path.read_text() == ('name: "null"\nconditions: {bleeding: true,\n  # rounds left\n  stunned: 2}  # none yet\n'
                                "empty: it's here\nbox: [a,\n  x y]\n")


def test_values_of_every_kind_and_a_new_key(tmp_path):
    path = make(tmp_path, FOUR_SPACES)
    sheet = SheetFile.read(path)
    sheet.set(("flag",), False)
    sheet.set(("name",), "Mara Quill")
    sheet.set(("concept",), "true")            # a string that must be quoted to stay a string
    sheet.set(("track",), ["lethal", "lethal", "bashing", None])
    sheet.set(("gear",), ["rope", "chalk", "map"])
    sheet.set(("nothing",), 4)
    sheet.set(("xp",), 0)                      # a new top-level key
    sheet.set(("health", "temporary"), 2)      # a new key in a flow mapping
    sheet.set(("nested", "deep", "list"), {"a": [1, 2], "b": None})
    sheet.write()
    text = path.read_text()
    assert 'name: "Mara Quill"    # the hero' in text  # the comment stays in its column
    assert "flag: false\n" in text
    assert "track: [lethal, lethal, bashing, null]\n" in text
    assert "health: {current: 10, max: 12, temporary: 2} # flow mapping" in text
    assert "gear:\n    - rope\n    - \"chalk\"\n    - map\n" in text
    assert "        list:\n            a:\n                - 1\n                - 2\n" in text
    assert text.startswith("# Character sheet: Mara Voss\n# kept by hand; procedures change a few values\n---\n")
    for kept in ("    # a comment before the gear\n", "notes: |\n    Met the guild master.\n", "    - name: Stealth   # sneaky\n"):
        assert kept in text
    data = SheetFile.read(path).data
    assert data["concept"] == "true" and data["flag"] is False and data["xp"] == 0 and data["nothing"] == 4
    assert data["nested"]["deep"] == {"value": 10, "list": {"a": [1, 2], "b": None}}
    assert list(data)[-1] == "xp"


def test_a_new_key_adds_one_line_and_keeps_what_ruamel_would_normalise(tmp_path):
    path = make(tmp_path, FOUR_SPACES)
    sheet = SheetFile.read(path)
    sheet.set(("xp",), 0)
    sheet.set(("skills", 1, "rank"), 2)
    sheet.write()
    assert path.read_text() == FOUR_SPACES.replace("      rank: 1\n", "      rank: 2\n") + "xp: 0\n"


def test_a_flow_track_stays_flow_when_one_box_changes(tmp_path):
    path = make(tmp_path, TWO_SPACES)
    sheet = SheetFile.read(path)
    sheet.set(("track", 2), "lethal")
    sheet.write()
    assert path.read_text() == TWO_SPACES.replace("[lethal, bashing, null, null]", "[lethal, bashing, lethal, null]")


def test_an_edit_among_differently_indented_lines_keeps_their_indentation(tmp_path):
    path = make(tmp_path, OFFSET_LISTS)
    sheet = SheetFile.read(path)
    sheet.set(("skills", 1, "rank"), 2)
    sheet.write()
    assert path.read_text() == OFFSET_LISTS.replace("      rank: 1", "      rank: 2")


def test_get_sees_changes_while_data_stays_as_read(tmp_path):
    path = make(tmp_path, TWO_SPACES)
    sheet = SheetFile.read(path)
    sheet.set(("hp",), 7)
    sheet.set(("stats", "wis"), 11)
    sheet.set(("hp",), 6)
    assert path.read_text() == TWO_SPACES and sorted(p.name for p in tmp_path.iterdir()) == ["sheet.yaml"]
    assert sheet.get(("hp",)) == 6 and sheet.data["hp"] == 10
    assert sheet.get(("missing", "path"), "none") == "none" and sheet.get(("skills", 9)) is None
    sheet.get(("skills",)).clear()  # what get() returns is a copy
    assert len(sheet.get(("skills",))) == 3
    assert sheet.changes() == [(("hp",), 10, 7), (("stats", "wis"), None, 11), (("hp",), 7, 6)]


@pytest.mark.parametrize("path, value", [
    (("nope", "x"), 1), (("skills", 9), 1), (("skills", "rank"), 1), (("hp", "x"), 1), ((), {}),
    (("hp",), {1, 2}), (("hp",), float("nan")), (("hp",), {1: "a"}),
])
def test_bad_sets_are_refused_with_a_location(tmp_path, path, value):
    sheet = SheetFile.read(make(tmp_path, TWO_SPACES))
    with pytest.raises(RulesError) as caught:
        sheet.set(path, value)
    assert str(caught.value).startswith(f"{sheet.path}:")
    assert sheet.changes() == [] and sheet.render() == TWO_SPACES


def test_a_value_shared_through_an_anchor_is_not_written(tmp_path):
    text = "base: &b {x: 1}\nother: *b\nhp: 3\n"
    path = make(tmp_path, text)
    sheet = SheetFile.read(path)
    sheet.set(("base", "x"), 2)
    with pytest.raises(RulesError, match="anchor"):
        sheet.write()
    assert path.read_text() == text


def test_one_bak_with_the_previous_text_and_the_mode_kept(tmp_path):
    path = make(tmp_path, TWO_SPACES)
    path.chmod(0o640)
    for hp in (11, 12):
        with transaction(path) as sheet:
            before = path.read_bytes()
            sheet.set(("hp",), hp)
            sheet.write()
        assert (tmp_path / "sheet.yaml.bak").read_bytes() == before
    assert SheetFile.read(path).get(("hp",)) == 12
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert stat.S_IMODE((tmp_path / "sheet.yaml.bak").stat().st_mode) == 0o640
    assert {p.name for p in tmp_path.iterdir()} == {"sheet.yaml", "sheet.yaml.bak"}  # and no lock file beside it


def test_write_without_backup_leaves_only_the_sheet(tmp_path):
    path = make(tmp_path, TWO_SPACES)
    with transaction(path) as sheet:
        sheet.set(("hp",), 11)
        sheet.write(backup=False)
    assert SheetFile.read(path).get(("hp",)) == 11
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sheet.yaml"]


def test_a_sheet_changed_on_disk_since_it_was_read_is_not_written(tmp_path):
    path = make(tmp_path, TWO_SPACES)
    sheet = SheetFile.read(path)
    sheet.set(("hp",), 3)
    path.write_text(TWO_SPACES.replace("hp: 10", "hp: 20"))
    with pytest.raises(RulesError, match="changed on disk since it was read") as caught:
        sheet.write()
    assert "\n" not in str(caught.value)
    assert path.read_text() == TWO_SPACES.replace("hp: 10", "hp: 20")
    assert not (tmp_path / "sheet.yaml.bak").exists()


def test_writing_twice_from_one_read(tmp_path):
    path = make(tmp_path, TWO_SPACES)
    sheet = SheetFile.read(path)
    sheet.set(("hp",), 3)
    sheet.write()
    sheet.set(("stats", "dex"), 9)
    sheet.write()
    assert path.read_text() == TWO_SPACES.replace("hp: 10", "hp: 3").replace("dex: 8", "dex: 9")
    assert (tmp_path / "sheet.yaml.bak").read_text() == TWO_SPACES.replace("hp: 10", "hp: 3")


INCREMENT = """\
import sys
from interpreter.sheet.file import transaction
with transaction(sys.argv[1]) as s:
    s.set(("hp",), s.get(("hp",)) + 1)
    s.write()
"""


def increment(path: str) -> None:
    with transaction(path) as sheet:
        sheet.set(("hp",), sheet.get(("hp",)) + 1)
        sheet.write()


def test_twenty_processes_lose_no_update(tmp_path):
    path = make(tmp_path, FOUR_SPACES)
    procs = [multiprocessing.get_context("fork").Process(target=increment, args=(str(path),)) for _ in range(20)]
    for proc in procs:
        proc.start()
    try:
        for proc in procs:
            proc.join(timeout=60)
        assert [proc.exitcode for proc in procs] == [0] * 20
    finally:
        for proc in procs:
            if proc.is_alive():
                proc.kill()
    assert path.read_text() == FOUR_SPACES.replace("hp: 10 ", "hp: 30 ")


def wait_for(condition, what: str, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.005)
    raise AssertionError(f"gave up waiting for {what}")


@pytest.mark.parametrize("phase", ["half written", "before the rename"])
def test_a_write_killed_midway_leaves_the_old_or_the_new_sheet(tmp_path, phase):
    path = make(tmp_path, FOUR_SPACES)
    expected = SheetFile.read(path)
    expected.set(("hp",), 11)
    new = expected.render().encode("utf-8")
    size = len(new) // 2 if phase == "half written" else len(new)
    script = tmp_path / "increment.py"
    script.write_text(INCREMENT)
    proc = subprocess.Popen([sys.executable, SLOW_WRITE, "1", str(script), str(path)], cwd=ROOT)

    def temp_file_or_done():
        for tmp in tmp_path.glob(TEMPS):
            with contextlib.suppress(FileNotFoundError):
                if tmp.stat().st_size == size:
                    return tmp
        return proc.poll() is not None

    try:
        caught = wait_for(temp_file_or_done, f"the temporary file {phase}")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=20)
    # old or new, never partial; when the kill came during the write, surely the old one
    assert path.read_bytes() in (FOUR_SPACES.encode("utf-8"), new)
    if isinstance(caught, Path):
        assert path.read_bytes() == FOUR_SPACES.encode("utf-8")
        assert caught.exists() and new.startswith(caught.read_bytes())
    # a stray temporary file is not taken for the sheet, and the lock died with the process
    with transaction(path) as sheet:
        sheet.set(("hp",), sheet.get(("hp",)) + 1)
        sheet.write()
    assert SheetFile.read(path).get(("hp",)) in (11, 12)
    others = {p.name for p in tmp_path.iterdir()} - {"sheet.yaml", "sheet.yaml.bak", "increment.py"}
    assert not others  # the next write removed the killed writer's temporary file


def test_a_slow_write_that_is_not_killed_completes(tmp_path):
    path = make(tmp_path, TWO_SPACES)
    script = tmp_path / "increment.py"
    script.write_text(INCREMENT)
    subprocess.run([sys.executable, SLOW_WRITE, "0.05", str(script), str(path)], cwd=ROOT, check=True, timeout=60)
    assert path.read_text() == TWO_SPACES.replace("hp: 10", "hp: 11")
    assert not list(tmp_path.glob(TEMPS))


@pytest.mark.parametrize("text, line, col", [
    ("name: Bob\nhp: !!int 10\n", 2, 5),
    ("name: Bob\nhp: 10\nhp: 11\n", 3, 1),
    ("name: Bob\nhp: [1, 2\n", 3, 1),
    ("name: Bob\n  hp: 10\n", 2, 5),
])
def test_an_invalid_sheet_is_refused_with_a_location_and_left_alone(tmp_path, text, line, col):
    path = make(tmp_path, text)
    for attempt in (SheetFile.read, lambda p: transaction(p).__enter__()):
        with pytest.raises(RulesetLoadError) as caught:
            attempt(path)
        assert str(caught.value).startswith(f"{path}:{line}:")
        assert path.read_bytes() == text.encode("utf-8")
    assert {p.name for p in tmp_path.iterdir()} == {"sheet.yaml"}


def test_new_sheet_creates_and_never_overwrites(tmp_path):
    path = tmp_path / "new.yaml"
    new_sheet(path, "name: Nell\nhp: 8\n")
    assert path.read_text() == "name: Nell\nhp: 8\n"
    with pytest.raises(RulesError, match="already exists"):
        new_sheet(path, "name: Other\n")
    assert path.read_text() == "name: Nell\nhp: 8\n"
    with pytest.raises(RulesetLoadError):
        new_sheet(tmp_path / "bad.yaml", "hp: 1\nhp: 2\n")
    assert not (tmp_path / "bad.yaml").exists()
    assert not list(tmp_path.glob(f".*{TEMP_MARK}*"))


def test_new_sheet_never_writes_through_a_link_dangling_or_not(tmp_path):
    """`sheet new -o` once followed a dangling link and created the file it pointed at."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = tmp_path / "new.yaml"
    link.symlink_to(elsewhere / "target.yaml")
    with pytest.raises(RulesError, match="is a symbolic link; a new sheet is never written through one"):
        new_sheet(link, "name: Nell\n")
    assert not (elsewhere / "target.yaml").exists() and link.is_symlink()
    (elsewhere / "target.yaml").write_text("mine\n")
    with pytest.raises(RulesError, match="is a symbolic link"):
        new_sheet(link, "name: Nell\n")
    assert (elsewhere / "target.yaml").read_text() == "mine\n"
    assert not list(tmp_path.rglob(f".*{TEMP_MARK}*"))


def test_new_sheet_makes_no_folder(tmp_path):
    """`sheet new -o no/such/dir/x.yaml` once made the missing folders without a word."""
    with pytest.raises(RulesError, match=r"the folder .*no/such/dir does not exist; nothing was written"):
        new_sheet(tmp_path / "no" / "such" / "dir" / "x.yaml", "name: Nell\n")
    assert list(tmp_path.iterdir()) == []


def test_new_sheet_in_a_folder_reached_through_a_link_is_written_there(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "via").symlink_to(real)
    new_sheet(tmp_path / "via" / "x.yaml", "name: Nell\n")
    assert (real / "x.yaml").read_text() == "name: Nell\n"


def test_a_hard_linked_sheet_is_refused_and_its_twin_kept(tmp_path):
    """The atomic rename would silently part the sheet from its other name (which kept the old text)."""
    path = make(tmp_path, TWO_SPACES)
    twin = tmp_path / "twin.yaml"
    twin.hardlink_to(path)
    with transaction(path) as sheet:
        sheet.set(("hp",), 3)
        with pytest.raises(RulesError, match="the sheet has 2 hard links; writing it would part it from the others"):
            sheet.write()
    assert path.read_text() == twin.read_text() == TWO_SPACES
    assert path.stat().st_ino == twin.stat().st_ino
    assert {p.name for p in tmp_path.iterdir()} == {"sheet.yaml", "twin.yaml"}


def test_a_sheet_that_is_a_link_is_written_where_it_points(tmp_path):
    target = make(tmp_path, TWO_SPACES)
    link = tmp_path / "link.yaml"
    link.symlink_to(target)
    with transaction(link) as sheet:
        sheet.set(("hp",), 3)
        sheet.write()
    assert link.is_symlink() and "hp: 3" in target.read_text()


def test_a_read_only_sheet_is_refused_not_replaced(tmp_path):
    path = make(tmp_path, TWO_SPACES)
    path.chmod(0o444)
    with transaction(path) as sheet:
        sheet.set(("hp",), 3)
        with pytest.raises(RulesError, match=r"the sheet is read-only \(mode 0444\); nothing was written") as caught:
            sheet.write()
    assert "\n" not in str(caught.value)
    assert path.read_text() == TWO_SPACES and stat.S_IMODE(path.stat().st_mode) == 0o444
    assert {p.name for p in tmp_path.iterdir()} == {"sheet.yaml"}


def test_stale_temporary_files_are_removed_by_the_next_write_and_others_kept(tmp_path):
    path = make(tmp_path, TWO_SPACES)
    stale = [tmp_path / f".sheet.yaml{TEMP_MARK}0123456789abcdef", tmp_path / f".sheet.yaml.bak{TEMP_MARK}00"]
    kept = [tmp_path / f".other.yaml{TEMP_MARK}0123456789abcdef", tmp_path / ".sheet.yaml.tmp-notours"]
    for file in stale + kept:
        file.write_text("half a sheet")
    with transaction(path) as sheet:
        sheet.set(("hp",), 3)
        sheet.write()
    assert [f.exists() for f in stale + kept] == [False, False, True, True]
    assert SheetFile.read(path).get(("hp",)) == 3
