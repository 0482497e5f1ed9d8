"""The index of the ruleset folders kept between commands: a later command reads only the files whose
size or times changed, sees an edit, a new, a removed and a renamed file at once, and ignores (then makes
again) an index record that is damaged or forged."""

from __future__ import annotations

import json
import os

import pytest

from interpreter import pipeline
from interpreter.load import cache, find, folder_index, yaml


@pytest.fixture
def shelf(tmp_path, monkeypatch, folder):
    """A ruleset folder of three rulesets, searched alone; files count as settled at once unless a test says not."""
    path = tmp_path / "shelf"
    path.mkdir()
    for n in range(3):
        (path / f"r{n}.yaml").write_text(f"ruleset: r{n}\ntitle: R{n}\nprocedures: {{}}\n", encoding="utf-8")
    monkeypatch.setenv("RULESMITH_PATH", str(path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    monkeypatch.setattr(folder_index, "SETTLED_NS", -1)
    return path


@pytest.fixture
def reads(monkeypatch):
    """The ruleset-folder files read (opened for their bytes), by name."""
    names: list[str] = []
    real = yaml.read_bytes

    def spy(path, shown):
        names.append(os.path.basename(path))
        return real(path, shown)

    monkeypatch.setattr(yaml, "read_bytes", spy)
    return names


def command() -> dict[str, list[str]]:
    """What a new process's command finds in the folders: each id and the names of the files declaring it."""
    find._DECLARED.clear()  # (a new process remembers nothing)
    with find.one_look():
        return {rid: [os.path.basename(p) for p in paths] for rid, paths in find.user_rulesets().items()}


def afresh(rules, *args):
    """`rules ARGS` as a new process runs it: nothing remembered of the files read or the rulesets compiled."""
    find._DECLARED.clear()
    pipeline.forget_compiled()
    return rules(*args)


def index_record(folder, shelf) -> dict:
    where = folder / "rulesmith" / "folders" / f"{cache.folder_key(os.path.realpath(shelf))}.json"
    return json.loads(where.read_bytes().partition(b"\n")[2])


def test_a_later_command_reads_no_file_that_did_not_change(shelf, reads):
    assert command() == {"r0": ["r0.yaml"], "r1": ["r1.yaml"], "r2": ["r2.yaml"]}
    assert sorted(reads) == ["r0.yaml", "r1.yaml", "r2.yaml"]
    reads.clear()
    assert command() == {"r0": ["r0.yaml"], "r1": ["r1.yaml"], "r2": ["r2.yaml"]}
    assert reads == []


def test_an_edit_of_the_same_size_is_seen_at_once(shelf, reads):
    command()
    reads.clear()
    edited = shelf / "r1.yaml"
    before = edited.stat()
    edited.write_text("ruleset: q1\ntitle: R1\nprocedures: {}\n", encoding="utf-8")  # same size
    os.utime(edited, ns=(before.st_atime_ns, before.st_mtime_ns + 10**9))
    assert command() == {"r0": ["r0.yaml"], "q1": ["r1.yaml"], "r2": ["r2.yaml"]}
    assert reads == ["r1.yaml"]


def test_an_edit_that_keeps_size_and_modification_time_is_seen_by_its_change_time(shelf, reads):
    command()
    reads.clear()
    edited = shelf / "r2.yaml"
    before = edited.stat()
    edited.write_text("ruleset: q2\ntitle: R2\nprocedures: {}\n", encoding="utf-8")
    os.utime(edited, ns=(before.st_atime_ns, before.st_mtime_ns))  # (as a copy keeping times would)
    if edited.stat().st_ctime_ns == before.st_ctime_ns:
        pytest.skip("this file system's clock did not tick between the two writes")
    assert command()["q2"] == ["r2.yaml"]
    assert reads == ["r2.yaml"]


def test_a_new_a_removed_and_a_renamed_file_are_seen_at_once(shelf, reads, folder):
    command()
    reads.clear()
    (shelf / "r3.yaml").write_text("ruleset: r3\ntitle: R3\nprocedures: {}\n", encoding="utf-8")
    (shelf / "r0.yaml").unlink()
    (shelf / "r1.yaml").rename(shelf / "moved.yaml")
    assert command() == {"r1": ["moved.yaml"], "r2": ["r2.yaml"], "r3": ["r3.yaml"]}
    assert sorted(reads) == ["moved.yaml", "r3.yaml"]
    assert sorted(index_record(folder, shelf)["files"]) == ["moved.yaml", "r2.yaml", "r3.yaml"]
    reads.clear()
    assert command() == {"r1": ["moved.yaml"], "r2": ["r2.yaml"], "r3": ["r3.yaml"]}
    assert reads == []


def test_a_file_changed_just_before_it_was_read_is_read_again_until_it_has_settled(shelf, reads, monkeypatch):
    monkeypatch.setattr(folder_index, "SETTLED_NS", 3600 * 10**9)  # (every file was written within the hour)
    command()
    reads.clear()
    command()
    assert sorted(reads) == ["r0.yaml", "r1.yaml", "r2.yaml"]  # its clock may not have ticked since: not trusted
    monkeypatch.setattr(folder_index, "SETTLED_NS", -1)
    command()
    reads.clear()
    command()
    assert reads == []


def test_a_lookup_that_passes_over_unchanged_files_lets_their_entries_settle(shelf, reads, monkeypatch):
    monkeypatch.setattr(folder_index, "SETTLED_NS", 3600 * 10**9)
    command()
    monkeypatch.setattr(folder_index, "SETTLED_NS", -1)
    find._DECLARED.clear()
    reads.clear()
    with find.one_look():
        assert find.find("r0").file == str(shelf / "r0.yaml")
    assert {"r1.yaml", "r2.yaml"} <= set(reads)  # (read to see they cannot declare r0, not parsed)
    reads.clear()
    assert command() == {"r0": ["r0.yaml"], "r1": ["r1.yaml"], "r2": ["r2.yaml"]}
    assert reads == []


def _rewrite(folder, shelf, change):
    """Rewrite the index record with a body changed by `change`, its header made to match (a forged record)."""
    key = cache.folder_key(os.path.realpath(shelf))
    where = folder / "rulesmith" / "folders" / f"{key}.json"
    body = json.loads(where.read_bytes().partition(b"\n")[2])
    change(body)
    where.write_bytes(cache._record(key, body))


@pytest.mark.parametrize("forgery", ["an id that is a number", "another folder's index", "a truncated record",
                                     "an entry too short", "a link to a record"])
def test_a_damaged_or_forged_index_record_is_ignored_and_made_again(shelf, reads, folder, forgery, tmp_path):
    command()
    where = folder / "rulesmith" / "folders" / f"{cache.folder_key(os.path.realpath(shelf))}.json"
    if forgery == "an id that is a number":
        _rewrite(folder, shelf, lambda body: body["files"]["r1.yaml"].__setitem__(6, 7))
    elif forgery == "another folder's index":
        _rewrite(folder, shelf, lambda body: body.__setitem__("folder", str(tmp_path)))
    elif forgery == "an entry too short":
        _rewrite(folder, shelf, lambda body: body["files"]["r0.yaml"].pop())
    elif forgery == "a truncated record":
        where.write_bytes(where.read_bytes()[:-5])
    else:
        elsewhere = tmp_path / "elsewhere.json"
        elsewhere.write_bytes(where.read_bytes())
        where.unlink()
        where.symlink_to(elsewhere)
    reads.clear()
    assert command() == {"r0": ["r0.yaml"], "r1": ["r1.yaml"], "r2": ["r2.yaml"]}
    assert sorted(reads) == ["r0.yaml", "r1.yaml", "r2.yaml"]  # (each read again: nothing of the record trusted)
    assert not where.is_symlink() and sorted(index_record(folder, shelf)["files"]) == ["r0.yaml", "r1.yaml", "r2.yaml"]
    reads.clear()
    command()
    assert reads == []


def test_a_forged_id_in_a_well_formed_record_stands_only_for_what_the_file_is_read_as(shelf, folder, rules):
    """A record is trusted as much as the cache: a forged id names the file, whose loading finds it declares another."""
    command()
    _rewrite(folder, shelf, lambda body: body["files"]["r1.yaml"].__setitem__(6, "stolen"))
    result = afresh(rules, "run", "stolen", "nothing")
    assert result.exit_code == 1
    assert result.stderr.startswith("no ruleset id or file named 'stolen'") and "mean 'stolen'" not in result.stderr
    find._DECLARED.clear()
    assert rules("run", "r1", "nothing").stderr.startswith("ruleset 'r1' has no procedure 'nothing'")


def test_the_index_folder_that_is_a_link_is_never_written_through(shelf, folder, tmp_path):
    command()
    kept = folder / "rulesmith" / "folders"
    for record in kept.iterdir():
        record.unlink()
    kept.rmdir()
    target = tmp_path / "target"
    target.mkdir()
    kept.symlink_to(target)
    command()
    assert list(target.iterdir()) == []


def test_the_cache_turned_off_keeps_no_index(shelf, reads, monkeypatch, folder):
    monkeypatch.setenv("RULESMITH_CACHE", "off")
    command()
    reads.clear()
    command()
    assert sorted(reads) == ["r0.yaml", "r1.yaml", "r2.yaml"]
    assert not (folder / "rulesmith" / "folders").exists()


def test_rules_list_compiles_only_what_changed_and_shows_the_same(shelf, rules, monkeypatch):
    (shelf / "r1.yaml").write_text("ruleset: r1\ntitle: R1\ndescription: 'About {x}'\nconstants: {x: 5}\n"
                                   "procedures: {}\n", encoding="utf-8")
    compiled: list[str] = []
    real = pipeline.compile_ref

    def spy(ref, **kwargs):
        compiled.append(ref)
        return real(ref, **kwargs)

    monkeypatch.setattr(pipeline, "compile_ref", spy)
    first = rules("list", "--json")
    assert first.exit_code == 0, first.stderr
    assert {"r0", "r1", "r2"} <= set(compiled)
    compiled.clear()
    again = afresh(rules, "list", "--json")
    assert again.stdout == first.stdout
    assert not {"r0", "r1", "r2"} & set(compiled)
    row = next(r for r in json.loads(again.stdout)["rulesets"] if r["id"] == "r1")
    assert row == {"id": "r1", "title": "R1", "description": "About 5", "extends": None,
                   "origin": str(shelf / "r1.yaml"), "valid": True}
    edited = shelf / "r1.yaml"
    edited.write_text(edited.read_text(encoding="utf-8").replace("x: 5", "x: 6"), encoding="utf-8")
    os.utime(edited, ns=(edited.stat().st_atime_ns, edited.stat().st_mtime_ns + 10**9))
    compiled.clear()
    third = afresh(rules, "list", "--json")
    assert "r1" in compiled and "r0" not in compiled
    assert next(r for r in json.loads(third.stdout)["rulesets"] if r["id"] == "r1")["description"] == "About 6"


def test_rules_list_still_compiles_an_invalid_ruleset_and_shows_its_problem(shelf, rules):
    (shelf / "r2.yaml").write_text("ruleset: r2\ntitle: R2\nprocedures: {p: {steps: nope}}\n", encoding="utf-8")
    for _ in range(2):
        result = afresh(rules, "list")
        assert result.exit_code == 1
        assert "r2.yaml" in result.stdout + result.stderr


def test_rules_list_compiles_an_overlay_every_time_so_a_change_of_its_base_is_seen(shelf, rules, monkeypatch):
    (shelf / "r0.yaml").write_text('ruleset: r0\ntitle: R0\ndescription: "Base {x}"\nconstants: {x: 5}\n'
                                   "procedures: {}\n", encoding="utf-8")
    (shelf / "o1.yaml").write_text("ruleset: o1\nextends: r0\nconstants: {x: 6}\n", encoding="utf-8")

    def description(ruleset_id):
        result = afresh(rules, "list", "--json")
        assert result.exit_code == 0, result.stderr
        return next(r for r in json.loads(result.stdout)["rulesets"] if r["id"] == ruleset_id)["description"]

    assert description("o1") == "Base 6"
    assert description("o1") == "Base 6"
    base = shelf / "r0.yaml"
    base.write_text(base.read_text(encoding="utf-8").replace("Base", "Then"), encoding="utf-8")
    os.utime(base, ns=(base.stat().st_atime_ns, base.stat().st_mtime_ns + 10**9))
    assert description("o1") == "Then 6"


def test_rules_list_tells_a_rulesets_warning_every_time(shelf, rules):
    """A ruleset with a warning keeps no row: every list compiles it and tells the warning."""
    (shelf / "r0.yaml").write_text('ruleset: r0\ntitle: R0\ndice:\n  hit: "1d6r7"\nprocedures: {}\n', encoding="utf-8")
    for _ in range(2):
        result = afresh(rules, "list")
        assert result.exit_code == 0, result.stderr
        assert "'1d6r7' never rerolls" in result.stderr
