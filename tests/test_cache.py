"""The parse cache: a file whose exact bytes were parsed and passed the schema is neither parsed
nor checked again, and a damaged or forged record is ignored, never trusted and never a crash."""

from __future__ import annotations

import hashlib
import json

import pytest

from interpreter import pipeline
from interpreter.errors import Invalid
from interpreter.load import cache, checked
from interpreter.load import schema as schema_check
from interpreter.load.bundled import rulesets_dir
from interpreter.load.yaml import load_file

SMALL = ("ruleset: demo\ntitle: Demo\nprocedures:\n  check:\n    outcomes: {done: rolled}\n"
         "    steps:\n      - decide: [{outcome: done}]\n")


@pytest.fixture
def calls(monkeypatch):
    """Counts of the YAML parses and schema checks made, by spying on both."""
    counted = {"parsed": 0, "checked": 0}
    parse, check = checked.load_text, schema_check.iter_errors

    def parse_spy(*args, **kwargs):
        counted["parsed"] += 1
        return parse(*args, **kwargs)

    def check_spy(*args, **kwargs):
        counted["checked"] += 1
        return check(*args, **kwargs)

    monkeypatch.setattr(checked, "load_text", parse_spy)
    monkeypatch.setattr(schema_check, "iter_errors", check_spy)
    return counted


def copy(tmp_path, text=None, name="house.yaml"):
    path = tmp_path / name
    path.write_bytes(text.encode() if text is not None else (rulesets_dir() / "lockwood.yaml").read_bytes())
    return path


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def record(folder, path):
    return folder / "documents" / f"{cache.document_key(digest(path))}.json"


def test_a_file_that_passed_is_neither_parsed_nor_checked_again(tmp_path, folder, calls):
    path = copy(tmp_path)
    first = pipeline.compile_ref(str(path))
    assert calls == {"parsed": 1, "checked": 1}
    pipeline.forget_compiled()
    again = pipeline.compile_ref(str(path))
    assert calls == {"parsed": 1, "checked": 1}
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
    assert calls == {"parsed": 2, "checked": 2}


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
    assert calls == {"parsed": 2, "checked": 2}
    assert not folder.exists()


def test_the_cache_folder_follows_xdg_cache_home(tmp_path, monkeypatch):
    monkeypatch.delenv("RULESMITH_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.folder() == str(tmp_path / "xdg" / "rulesmith")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.folder() == str(tmp_path / "home" / ".cache" / "rulesmith")


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
    assert calls == {"parsed": before["parsed"] + 1, "checked": before["checked"] + 1}
    pipeline.forget_compiled()
    result = rules("run", str(path), "talent", "--dice", "4", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["outcome"] == "success"
    assert "Traceback" not in result.stderr


def test_a_forged_mark_for_bytes_that_fail_the_schema_is_not_trusted(tmp_path, folder, rules):
    """The old bug: a "passed the schema" mark for bytes that never passed it made every later
    command on the file end in a traceback in the step compiler, `rules validate` included."""
    path = copy(tmp_path, SMALL.replace("  check:\n", "  check:\n    params: 5\n"))
    where = cache.folder()
    cache.write_document(where, cache.document_key(digest(path)), load_file(path))
    cache.mark_checked(where, cache.checked_key([digest(path)]))
    expected = f"{path}:5:13: $.procedures.check.params: expected a mapping, got the number 5"
    for command in (["run", str(path), "check"], ["validate", str(path)]):
        pipeline.forget_compiled()
        result = rules(*command)
        assert result.exit_code == 1
        assert result.stderr.splitlines() == [expected]


def test_the_cache_keeps_the_newest_records_and_removes_the_oldest(tmp_path, folder, monkeypatch):
    """Each edit of a ruleset adds a record; past the limit the oldest written go, the newest stay usable."""
    import os

    monkeypatch.setattr(cache, "KEEP", 3)
    paths = []
    for i in range(5):
        path = copy(tmp_path, SMALL.replace("title: Demo", f"title: Demo {i}"), f"demo{i}.yaml")
        pipeline.compile_ref(str(path))
        written = record(folder, path)
        os.utime(written, ns=(i * 10**9, i * 10**9))  # (the order they were written in, whatever the clock)
        paths.append(path)
    path = copy(tmp_path, SMALL.replace("title: Demo", "title: Demo 5"), "demo5.yaml")
    pipeline.compile_ref(str(path))  # the sixth write prunes
    left = sorted(p.name for p in (folder / "documents").iterdir())
    assert len(left) == 3
    assert [record(folder, p).exists() for p in paths] == [False, False, False, True, True]
    assert record(folder, path).exists()
    assert len(list((folder / "checked").iterdir())) <= 3
    pipeline.forget_compiled()
    assert pipeline.compile_ref(str(paths[4])).title == "Demo 4"  # a kept record still loads
