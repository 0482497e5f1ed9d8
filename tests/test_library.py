"""The pipeline's memory: a file whose exact bytes passed the schema is not checked again."""

from __future__ import annotations

import pytest

from interpreter import pipeline as library
from interpreter.load import schema as validate
from interpreter.load.bundled import rulesets_dir


def copy(tmp_path, text=None, name="house.yaml"):
    path = tmp_path / name
    path.write_text(text if text is not None else (rulesets_dir() / "lockwood.yaml").read_text(), encoding="utf-8")
    return path


def test_a_file_that_passed_is_not_checked_again(tmp_path, monkeypatch):
    monkeypatch.setenv("RULESMITH_CACHE_DIR", str(tmp_path / "cache"))
    path = copy(tmp_path)
    assert library.problems(str(path)) == []
    library._compile_cached.cache_clear()
    monkeypatch.setattr(validate, "iter_errors", lambda doc: pytest.fail("checked again"))
    assert library.problems(str(path)) == []


def test_a_changed_file_is_checked_again(tmp_path, monkeypatch):
    monkeypatch.setenv("RULESMITH_CACHE_DIR", str(tmp_path / "cache"))
    path = copy(tmp_path)
    assert library.problems(str(path)) == []
    path.write_text(path.read_text().replace("title: Lockwood", "title: 7\ntitel: x"), encoding="utf-8")
    library._compile_cached.cache_clear()
    found = [p.message for p in library.problems(str(path))]
    assert "unknown key 'titel'" in found


def test_an_invalid_file_is_never_remembered(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("RULESMITH_CACHE_DIR", str(cache))
    path = copy(tmp_path, "ruleset: bad\ntitle: Bad\nprocedures: {}\nextra: 1\n")
    assert library.problems(str(path))
    assert not (cache / "schema-valid").exists() or not any((cache / "schema-valid").iterdir())


def test_remembering_can_be_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv("RULESMITH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RULESMITH_CACHE", "off")
    path = copy(tmp_path)
    assert library.problems(str(path)) == []
    assert not (tmp_path / "cache").exists()
