"""The parse cache: a file whose exact bytes were parsed and passed the schema is not parsed again,
its document is checked against the schema every time all the same, and a damaged or forged record
is ignored, never trusted and never a crash."""

from __future__ import annotations

import hashlib
import json

import pytest

from interpreter import pipeline
from interpreter.errors import Invalid
from interpreter.load import cache, checked
from interpreter.load import schema as schema_check
from interpreter.load import shape as shape_check
from interpreter.load.bundled import rulesets_dir
from interpreter.load.yaml import load_file, load_text

SMALL = ("ruleset: demo\ntitle: Demo\nprocedures:\n  check:\n    outcomes: {done: rolled}\n"
         "    steps:\n      - decide: [{outcome: done}]\n")


@pytest.fixture
def calls(monkeypatch):
    """Counts of the YAML parses and schema checks (the shape check, and jsonschema's) made, by spying on them."""
    counted = {"parsed": 0, "checked": 0, "explained": 0}
    parse, shape, explain = checked.load_text, shape_check.ruleset_shape(), schema_check.iter_errors

    def parse_spy(*args, **kwargs):
        counted["parsed"] += 1
        return parse(*args, **kwargs)

    def shape_spy(data):
        counted["checked"] += 1
        return shape(data)

    def explain_spy(*args, **kwargs):
        counted["explained"] += 1
        return explain(*args, **kwargs)

    monkeypatch.setattr(checked, "load_text", parse_spy)
    monkeypatch.setattr(shape_check, "ruleset_shape", lambda: shape_spy)
    monkeypatch.setattr(schema_check, "iter_errors", explain_spy)
    return counted


def copy(tmp_path, text=None, name="house.yaml"):
    path = tmp_path / name
    path.write_bytes(text.encode() if text is not None else (rulesets_dir() / "lockwood.yaml").read_bytes())
    return path


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def record(folder, path):
    return folder / "rulesmith" / "documents" / f"{cache.document_key(digest(path))}.json"


def test_a_file_that_passed_is_not_parsed_again_and_its_record_is_checked_every_time(tmp_path, folder, calls):
    path = copy(tmp_path)
    first = pipeline.compile_ref(str(path))
    assert calls == {"parsed": 1, "checked": 1, "explained": 0}
    pipeline.forget_compiled()
    again = pipeline.compile_ref(str(path))
    assert calls == {"parsed": 1, "checked": 2, "explained": 0}
    assert again.title == first.title == "Lockwood"
    assert sorted(again.procedures) == sorted(first.procedures)
    # the positions come back too: an error located from the cached document
    doc = checked.load_checked(path, "house.yaml").doc
    assert doc.where(("procedures", "check")) == load_file(path, "house.yaml").where(("procedures", "check"))


def test_validate_parses_and_checks_for_real_whatever_the_cache_says(tmp_path, folder, calls, rules):
    path = copy(tmp_path)
    pipeline.compile_ref(str(path))
    pipeline.forget_compiled()
    result = rules("validate", str(path))
    assert result.exit_code == 0, result.stderr
    assert calls == {"parsed": 2, "checked": 2, "explained": 0}


def test_a_changed_file_is_checked_again(tmp_path, folder):
    path = copy(tmp_path)
    assert pipeline.problems(str(path)) == []
    path.write_text(path.read_text().replace("title: Lockwood", "title: 7\ntitel: x"), encoding="utf-8")
    found = [p.message for p in pipeline.problems(str(path))]
    assert "unknown key 'titel'" in found


def test_an_invalid_file_is_never_remembered(tmp_path, folder):
    path = copy(tmp_path, "ruleset: bad\ntitle: Bad\nprocedures: {}\nextra: 1\n")
    assert pipeline.problems(str(path))
    with pytest.raises(Invalid):
        pipeline.compile_ref(str(path))
    assert not folder.exists() or not any(p.is_file() for p in folder.rglob("*"))


def test_remembering_can_be_turned_off(tmp_path, folder, monkeypatch, calls):
    monkeypatch.setenv("RULESMITH_CACHE", "off")
    path = copy(tmp_path)
    pipeline.compile_ref(str(path))
    pipeline.forget_compiled()
    pipeline.compile_ref(str(path))
    assert calls == {"parsed": 2, "checked": 2, "explained": 0}
    assert not folder.exists()


def test_the_cache_folder_follows_xdg_cache_home(tmp_path, monkeypatch):
    monkeypatch.delenv("RULESMITH_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.folder() == str(tmp_path / "xdg" / "rulesmith")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.folder() == str(tmp_path / "home" / ".cache" / "rulesmith")
    monkeypatch.setenv("RULESMITH_CACHE_DIR", str(tmp_path / "mine"))
    assert cache.folder() == str(tmp_path / "mine" / "rulesmith")  # a folder of its own inside the one chosen


# ----------------------------------------------------------------- damaged and forged records


def _other_bytes(folder, path, tmp_path, monkeypatch):
    other = copy(tmp_path, path.read_text().replace("title: Lockwood", "title: Forged"), "other.yaml")
    pipeline.compile_ref(str(other))
    record(folder, path).write_bytes(record(folder, other).read_bytes())


def _truncated(folder, path, tmp_path, monkeypatch):
    data = record(folder, path).read_bytes()
    record(folder, path).write_bytes(data[: len(data) // 2])


def _other_version(folder, path, tmp_path, monkeypatch):
    record(folder, path).unlink()
    with monkeypatch.context() as patch:
        patch.setattr(cache, "versions", lambda: "rulesmith 0.0.1; ruamel.yaml 0.17.0; jsonschema 4.0.0")
        old = record(folder, path)
        pipeline.forget_compiled()
        pipeline.compile_ref(str(path))
    assert not record(folder, path).exists()
    old.rename(record(folder, path))


def _hand_edited(folder, path, tmp_path, monkeypatch):
    data = record(folder, path).read_bytes()
    assert data.count(b'"title":"Lockwood"') == 1
    record(folder, path).write_bytes(data.replace(b'"title":"Lockwood"', b'"title":"Forged"'))


def _one_byte_changed(folder, path, tmp_path, monkeypatch):
    """A change that keeps the length: only the check of the content finds it."""
    data = record(folder, path).read_bytes()
    assert data.count(b'"title":"Lockwood"') == 1
    record(folder, path).write_bytes(data.replace(b'"title":"Lockwood"', b'"title":"Lockwoof"'))


@pytest.mark.parametrize("damage", [_other_bytes, _truncated, _other_version, _hand_edited, _one_byte_changed],
                         ids=["other bytes", "truncated", "other version", "hand-edited", "one byte changed"])
def test_a_damaged_record_is_ignored_and_the_file_parsed_and_checked_again(tmp_path, folder, monkeypatch,
                                                                            calls, rules, damage):
    path = copy(tmp_path)
    pipeline.compile_ref(str(path))
    damage(folder, path, tmp_path, monkeypatch)
    pipeline.forget_compiled()
    before = dict(calls)
    assert pipeline.compile_ref(str(path)).title == "Lockwood"
    assert calls == {"parsed": before["parsed"] + 1, "checked": before["checked"] + 1, "explained": 0}
    pipeline.forget_compiled()
    result = rules("run", str(path), "talent", "--dice", "4", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["outcome"] == "success"
    assert "Traceback" not in result.stderr


def test_a_forged_record_for_bytes_that_fail_the_schema_is_not_trusted(tmp_path, folder, rules):
    """The old bug: a "passed the schema" mark for bytes that never passed it made every later
    command on the file end in a traceback in the step compiler, `rules validate` included.
    (There is no such mark any more: every document is checked.)"""
    path = copy(tmp_path, SMALL.replace("  check:\n", "  check:\n    params: 5\n"))
    where = cache.folder()
    cache.write_document(where, cache.document_key(digest(path)), load_file(path))
    expected = f"{path}:5:13: $.procedures.check.params: expected a mapping, got the number 5"
    for command in (["run", str(path), "check"], ["validate", str(path)]):
        pipeline.forget_compiled()
        result = rules(*command)
        assert result.exit_code == 1
        assert result.stderr.splitlines() == [expected]


def test_the_cache_keeps_the_newest_records_and_removes_the_oldest(tmp_path, folder, monkeypatch):
    """Each edit of a ruleset adds a record; past the limit the oldest written go, the newest stay usable."""
    import os

    from interpreter import limits

    monkeypatch.setattr(limits, "CACHE_KEEP", 3)
    paths = []
    for i in range(5):
        path = copy(tmp_path, SMALL.replace("title: Demo", f"title: Demo {i}"), f"demo{i}.yaml")
        pipeline.compile_ref(str(path))
        written = record(folder, path)
        os.utime(written, ns=(i * 10**9, i * 10**9))  # (the order they were written in, whatever the clock)
        paths.append(path)
    path = copy(tmp_path, SMALL.replace("title: Demo", "title: Demo 5"), "demo5.yaml")
    pipeline.compile_ref(str(path))  # the sixth write prunes
    left = sorted(p.name for p in (folder / "rulesmith" / "documents").iterdir())
    assert len(left) == 3
    assert [record(folder, p).exists() for p in paths] == [False, False, False, True, True]
    assert record(folder, path).exists()
    assert len(list((folder / "rulesmith" / "compiled").iterdir())) <= 3
    pipeline.forget_compiled()
    assert pipeline.compile_ref(str(paths[4])).title == "Demo 4"  # a kept record still loads


# ----------------------------------------------------------------- a folder of its own


def test_the_cache_never_removes_files_it_did_not_write(tmp_path, folder, monkeypatch):
    """The old bug: pruning kept the newest 256 plain files of `documents/`, whatever they were, so a
    RULESMITH_CACHE_DIR holding a folder of 300 notes lost 45 of them to one `rules run`."""
    from interpreter import limits

    monkeypatch.setattr(limits, "CACHE_KEEP", 2)
    pipeline.compile_ref(str(copy(tmp_path, SMALL, "first.yaml")))  # (the cache's folder made, and marked)
    for place in (folder / "documents", folder / "rulesmith" / "documents"):
        place.mkdir(parents=True, exist_ok=True)
        for i in range(300):
            (place / f"note{i}.txt").write_text(f"note {i}\n", encoding="utf-8")
    for i in range(4):
        pipeline.compile_ref(str(copy(tmp_path, SMALL.replace("title: Demo", f"title: Demo {i}"), f"d{i}.yaml")))
    for place in (folder / "documents", folder / "rulesmith" / "documents"):
        assert sum(1 for p in place.iterdir() if p.name.startswith("note")) == 300
    records = [p for p in (folder / "rulesmith" / "documents").iterdir() if p.name.endswith(".json")]
    assert len(records) == 2  # its own records are still pruned


@pytest.mark.parametrize("held", ["README.md", "documents/note.txt"])
def test_a_folder_named_rulesmith_that_is_not_the_caches_is_left_alone(tmp_path, folder, held):
    mine = folder / "rulesmith"
    (mine / held).parent.mkdir(parents=True, exist_ok=True)
    (mine / held).write_text("my notes\n", encoding="utf-8")
    pipeline.compile_ref(str(copy(tmp_path)))
    assert sorted(str(p.relative_to(mine)) for p in mine.rglob("*") if p.is_file()) == [held]


def test_the_cache_folder_bears_the_cache_directory_tag(tmp_path, folder):
    pipeline.compile_ref(str(copy(tmp_path)))
    tag = (folder / "rulesmith" / cache.MARK).read_bytes()
    assert tag.startswith(b"Signature: 8a477f597d28d172789f06886806bc55")


def test_an_older_cache_holding_only_its_own_folders_is_marked_and_used(tmp_path, folder):
    old = folder / "rulesmith"
    (old / "documents").mkdir(parents=True)
    (old / "checked").mkdir()
    path = copy(tmp_path)
    pipeline.compile_ref(str(path))
    assert (old / cache.MARK).exists() and record(folder, path).exists()


# ----------------------------------------------------------------- records that lie


def _forge(where, key: str, body: dict) -> bytes:
    """A record as the cache writes it, whatever it holds: a forger can compute the header as easily."""
    import zlib

    payload = json.dumps(body, separators=(",", ":")).encode("utf-8")
    header = json.dumps({"format": cache.FORMAT, "key": key, "versions": cache.versions(), "length": len(payload),
                         "crc32": zlib.crc32(payload)})
    return header.encode("utf-8") + b"\n" + payload


INVALID = {"ruleset": "../../../../etc/x", "title": "Bad", "procedures": {"p": {
    "params": {"n": {"type": "evil"}}, "outcomes": {"bad": "bad"}, "steps": [{"decide": [{"outcome": "bad"}]}]}}}


@pytest.mark.parametrize("body", [
    {"data": INVALID, "positions": [1, 1, None]},
    {"data": {"ruleset": "good", "title": 7}, "positions": [1, 1, None]},
    {"data": load_text(SMALL.replace("ruleset: demo", "ruleset: good")).data,
     "positions": [float("inf"), float("nan"), {"x": 1}]},
    {"data": INVALID, "positions": [float("inf"), 1, None]},
    {"data": INVALID, "positions": {"not": "a tree"}},
    {"data": {"ruleset": "good", "title": "T", "procedures": {}, "constants": {"big": 10**30}}, "positions": [1, 1, None]},
], ids=["an invalid document", "the wrong types", "positions that are no numbers",
        "an invalid document placed at infinity", "an invalid document placed nowhere", "a number past 64 bits"])
def test_a_forged_record_is_ignored_and_the_file_runs_as_written(tmp_path, folder, rules, body):
    """A record for a valid file's key holding another document: it is checked like a file just parsed
    and, failing, ignored; the file runs as it is written, never exit 3."""
    path = copy(tmp_path, SMALL.replace("ruleset: demo", "ruleset: good"))
    assert rules("run", str(path), "check").exit_code == 0
    record(folder, path).write_bytes(_forge(folder, cache.document_key(digest(path)), body))
    for command in (["run", str(path), "check"], ["describe", str(path)], ["odds", str(path), "check"]):
        pipeline.forget_compiled()
        result = rules(*command)
        assert result.exit_code == 0, (command, result.stderr)
        assert "demo" in result.stdout.lower() or "done" in result.stdout, result.stdout
    assert "Bad" not in rules("describe", str(path)).stdout


def test_a_record_standing_for_another_valid_ruleset_is_the_worst_a_forger_can_do(tmp_path, folder, rules):
    path = copy(tmp_path, SMALL.replace("ruleset: demo", "ruleset: good"))
    rules("run", str(path), "check")
    other = load_text(SMALL.replace("ruleset: demo", "ruleset: good2").replace("done: rolled", "bad: rolled")
                      .replace("outcome: done", "outcome: bad"))
    record(folder, path).write_bytes(_forge(folder, cache.document_key(digest(path)),
                                            {"data": other.data, "positions": other.positions}))
    pipeline.forget_compiled()
    result = rules("run", str(path), "check")
    assert result.exit_code == 0 and result.stdout.startswith("good2 check: bad")  # valid, if not the file's


@pytest.mark.parametrize("kind", ["fifo", "link to /dev/zero", "sparse", "link to a record"])
def test_a_record_that_is_no_plain_small_file_is_not_read(tmp_path, folder, rules, kind):
    """A FIFO once blocked forever, /dev/zero or a sparse 4 GB file ended in MemoryError."""
    import os

    path = copy(tmp_path, SMALL)
    assert rules("run", str(path), "check").exit_code == 0
    where = record(folder, path)
    saved = where.read_bytes()
    where.unlink()
    if kind == "fifo":
        os.mkfifo(where)
    elif kind == "link to /dev/zero":
        where.symlink_to("/dev/zero")
    elif kind == "sparse":
        with open(where, "wb") as handle:
            handle.truncate(4 << 30)
    else:
        elsewhere = tmp_path / "elsewhere.json"
        elsewhere.write_bytes(saved)
        where.symlink_to(elsewhere)
    assert cache.read_document(folder / "rulesmith", cache.document_key(digest(path)), "x") is None
    pipeline.forget_compiled()
    result = rules("run", str(path), "check")
    assert result.exit_code == 0, result.stderr
    assert where.is_file() and not where.is_symlink()  # the file was parsed, and its record written anew


def test_a_process_remembers_the_ids_of_at_most_max_declared_files(tmp_path, monkeypatch):
    """The ids of ruleset-folder files are remembered per process, the oldest forgotten past the limit."""
    from interpreter import limits
    from interpreter.load import find

    monkeypatch.setattr(limits, "MAX_DECLARED_FILES", 2)
    monkeypatch.setattr(find, "_DECLARED", {})
    paths = []
    for n in range(3):
        path = tmp_path / f"r{n}.yaml"
        path.write_text(f"ruleset: r{n}\nprocedures: {{}}\n", encoding="utf-8")
        paths.append(str(path))
        assert find._declared(str(path)) == (f"r{n}", 1)
    assert [memo[0] for memo in find._DECLARED] == paths[1:]
