"""The parsed documents shipped beside the bundled rulesets (rulesets/ID.parsed.json): each is what parsing
its YAML gives now, positions included, and one is read only for the exact bytes it was made from."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from interpreter.load import shipped
from interpreter.load.bundled import bundled_ids, rulesets_dir
from interpreter.load.cache import sha256
from interpreter.load.checked import load_checked
from interpreter.load.yaml import load_text
from interpreter.pipeline import compile_ref

ROOT = Path(__file__).resolve().parent.parent


def tool():  # tools/parsed_records.py, which writes the records
    spec = importlib.util.spec_from_file_location("parsed_records", ROOT / "tools" / "parsed_records.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("ruleset_id", bundled_ids())
def test_each_shipped_record_is_what_parsing_its_ruleset_gives_now(ruleset_id):
    data = (rulesets_dir() / f"{ruleset_id}.yaml").read_bytes()
    record_file = rulesets_dir() / f"{ruleset_id}{shipped.SUFFIX}"
    doc = load_text(data, f"{ruleset_id}.yaml")
    record = json.loads(record_file.read_text(encoding="utf-8"))
    assert record == shipped.body(sha256(data), doc.data, doc.positions), "run: python tools/parsed_records.py"
    assert record_file.read_text(encoding="utf-8") == tool().text(ruleset_id)


def test_every_bundled_ruleset_has_a_record_and_every_record_a_ruleset():
    records = sorted(p.name[: -len(shipped.SUFFIX)] for p in rulesets_dir().glob(f"*{shipped.SUFFIX}"))
    assert records == bundled_ids()


@pytest.fixture
def bundled_copy(tmp_path, monkeypatch):
    """A bundled folder of one's own holding lockwood and its record, and an empty parse cache."""
    folder = tmp_path / "bundled"
    folder.mkdir()
    shutil.copyfile(rulesets_dir() / "lockwood.yaml", folder / "lockwood.yaml")
    (folder / f"lockwood{shipped.SUFFIX}").write_text(tool().text("lockwood"), encoding="utf-8")  # (made afresh)
    monkeypatch.setattr(shipped, "_bundled_folder", lambda: str(folder))
    monkeypatch.setenv("RULESMITH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RULESMITH_CACHE", raising=False)
    return folder / "lockwood.yaml"


def test_a_bundled_file_with_the_bytes_of_its_record_is_read_from_the_record(bundled_copy):
    loaded = load_checked(str(bundled_copy), "lockwood.yaml")
    assert loaded.shipped and loaded.trusted
    parsed = load_text(bundled_copy.read_bytes(), "lockwood.yaml")
    assert (loaded.doc.data, loaded.doc.positions) == (parsed.data, parsed.positions)
    assert str(loaded.doc.where(("constants", "critwin"))).startswith("lockwood.yaml:10:")
    assert not (bundled_copy.parent.parent / "cache" / "rulesmith" / "documents").exists()  # nothing to write


def test_an_edited_bundled_file_is_parsed_and_its_edit_takes_effect(bundled_copy):
    text = bundled_copy.read_text(encoding="utf-8")
    bundled_copy.write_text(text.replace("  critwin: 20 ", "  critwin: 19 ", 1), encoding="utf-8")
    loaded = load_checked(str(bundled_copy), "lockwood.yaml")
    assert not loaded.shipped and not loaded.trusted
    assert loaded.doc.data["constants"]["critwin"] == 19
    again = load_checked(str(bundled_copy), "lockwood.yaml")  # now from the parse cache, not the stale record
    assert again.trusted and not again.shipped and again.doc.data["constants"]["critwin"] == 19


def test_a_record_of_another_format_is_not_read(bundled_copy):
    record = bundled_copy.parent / f"lockwood{shipped.SUFFIX}"
    body = json.loads(record.read_text(encoding="utf-8"))
    body["format"] = "rulesmith parse cache 0"
    body["data"]["constants"]["critwin"] = 2
    record.write_text(json.dumps(body), encoding="utf-8")
    loaded = load_checked(str(bundled_copy), "lockwood.yaml")
    assert not loaded.shipped and loaded.doc.data["constants"]["critwin"] == 20


def test_a_copy_of_a_bundled_file_elsewhere_is_parsed(tmp_path, monkeypatch):
    monkeypatch.setenv("RULESMITH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RULESMITH_CACHE", raising=False)
    copy = tmp_path / "lockwood.yaml"
    copy.write_bytes((rulesets_dir() / "lockwood.yaml").read_bytes())
    assert not load_checked(str(copy), "lockwood.yaml").shipped
    assert load_checked(str(rulesets_dir() / "lockwood.yaml"), "lockwood.yaml").shipped


def test_a_bundled_ruleset_read_from_its_record_runs_as_the_parsed_one(tmp_path, monkeypatch):
    monkeypatch.setenv("RULESMITH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RULESMITH_CACHE", raising=False)
    from interpreter.pipeline import forget_compiled
    from interpreter.procedure.odds import odds

    forget_compiled()
    fast = odds(compile_ref("nwod"), "action", {"pool": 5})
    forget_compiled()
    real = odds(compile_ref("nwod", trust_cache=False), "action", {"pool": 5})
    forget_compiled()
    assert fast.outcomes == real.outcomes and fast.outcomes


def test_a_record_made_with_another_schema_is_checked_against_this_one(bundled_copy):
    record = bundled_copy.parent / f"lockwood{shipped.SUFFIX}"
    body = json.loads(record.read_text(encoding="utf-8"))
    body["schema"] = "0" * 64
    record.write_text(json.dumps(body), encoding="utf-8")
    loaded = load_checked(str(bundled_copy), "lockwood.yaml")
    assert loaded.trusted and not loaded.shipped  # read from the record, checked as a cached document is
    body["data"]["constants"] = "not a mapping"  # (what the schema in use refuses)
    record.write_text(json.dumps(body), encoding="utf-8")
    loaded = load_checked(str(bundled_copy), "lockwood.yaml")
    assert not loaded.trusted and loaded.doc.data["constants"]["critwin"] == 20  # the file, parsed
