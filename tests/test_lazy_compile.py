"""Procedures compiled when first used: once the cache knows that a ruleset's exact bytes compiled,
a command compiles only the procedures it runs, gets the same procedures an eager compile gives,
and a marker that lies (bytes that do not compile) is not trusted: the error is the usual one."""

from __future__ import annotations

import hashlib

import pytest

from interpreter import pipeline
from interpreter.load import cache
from interpreter.load.bundled import bundled_ids, rulesets_dir
from interpreter.load.yaml import load_file
from interpreter.ruleset import compiler

BROKEN = ("ruleset: demo\ntitle: Demo\nprocedures:\n  check:\n    outcomes: {done: rolled}\n"
          "    steps:\n      - let: {x: nosuch + 1}\n      - decide: [{outcome: done}]\n"
          "  other:\n    outcomes: {done: rolled}\n    steps:\n      - decide: [{outcome: done}]\n")


@pytest.fixture
def compiled(monkeypatch):
    """The names of the procedures compiled, in order."""
    names: list[str] = []
    original = compiler.Compiler.procedure

    def spy(self, name, *args, **kwargs):
        names.append(name)
        return original(self, name, *args, **kwargs)

    monkeypatch.setattr(compiler.Compiler, "procedure", spy)
    return names


def _copy(tmp_path, ref: str):
    path = tmp_path / f"{ref}.yaml"
    path.write_bytes((rulesets_dir() / f"{ref}.yaml").read_bytes())
    return path


@pytest.mark.parametrize("ref", bundled_ids())
def test_procedures_compiled_one_by_one_equal_those_compiled_at_once(tmp_path, folder, compiled, ref):
    path = _copy(tmp_path, ref)
    eager = pipeline.compile_ref(str(path))
    assert len(compiled) == len(eager.procedures)  # the first load compiles everything (and says so in the cache)
    pipeline.forget_compiled()
    compiled.clear()
    lazy = pipeline.compile_ref(str(path))
    assert compiled == []
    assert list(lazy.procedures) == list(eager.procedures)
    for name in reversed(list(eager.procedures)):
        assert lazy.procedures[name] == eager.procedures[name], name
        assert lazy.procedures[name].steps == eager.procedures[name].steps, name
        assert lazy.procedures[name] is lazy.procedures[name]
    assert sorted(compiled) == sorted(eager.procedures)  # each once
    assert lazy == eager
    with pytest.raises(TypeError):
        lazy.procedures["x"] = eager.procedures[name]  # type: ignore[index]


def test_a_run_compiles_only_the_procedure_it_runs_and_those_it_calls(tmp_path, folder, compiled, rules):
    path = _copy(tmp_path, "nwod")
    assert rules("run", str(path), "pool", "dice=3", "target=8", "--seed", "1").exit_code == 0
    pipeline.forget_compiled()
    compiled.clear()
    first = rules("run", str(path), "action", "pool=3", "--seed", "1")
    assert first.exit_code == 0, first.stderr
    ruleset = pipeline.compile_ref(str(path))
    callees = {step.spec.procedure for step in _walk(ruleset.procedures["action"].steps) if step.kind == "call"}
    assert set(compiled) == {"action"} | callees
    assert len(compiled) < len(ruleset.procedures)


def _walk(steps):
    from interpreter.ruleset.specs import walk

    return walk(steps)


def _forge(path) -> None:
    """Write every record of the cache for a file, as if it had passed the schema and compiled."""
    where = cache.folder()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    cache.write_document(where, cache.document_key(digest), load_file(path))
    cache.mark_checked(where, cache.compiled_key([digest]))


def test_a_marker_that_lies_about_compiling_gives_the_usual_error(tmp_path, folder, rules):
    path = tmp_path / "demo.yaml"
    path.write_text(BROKEN)
    expected = rules("validate", str(path)).stderr
    assert expected.count("\n") == 1 and "nosuch" in expected
    _forge(path)
    pipeline.forget_compiled()
    ok = rules("run", str(path), "other")  # a procedure that compiles runs
    assert ok.exit_code == 0, ok.stderr
    pipeline.forget_compiled()
    result = rules("run", str(path), "check")
    assert result.exit_code == 1
    assert result.stderr == expected


def test_a_marker_that_lies_about_the_shape_gives_the_usual_error(tmp_path, folder, rules):
    """Bytes that fail the schema, with every record forged: a step compiler meeting the wrong shape."""
    path = tmp_path / "demo.yaml"
    path.write_text(BROKEN.replace("      - let: {x: nosuch + 1}\n", "      - let: 5\n"))
    expected = rules("validate", str(path)).stderr
    assert expected.count("\n") == 1
    _forge(path)
    for command in (["run", str(path), "check"], ["odds", str(path), "check"], ["validate", str(path)]):
        pipeline.forget_compiled()
        result = rules(*command)
        assert result.exit_code == 1
        assert result.stderr == expected
