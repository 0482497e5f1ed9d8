"""`rules describe RULESET PROCEDURE --code`: the code a procedure is written as, to read. It is the code
that runs (comments aside), it compiles as printed, and each step's code is under a comment naming the
step's line of the YAML."""

from __future__ import annotations

import json
import py_compile
import re
from pathlib import Path

import pytest

from interpreter.load.bundled import bundled_ids, rulesets_dir
from interpreter.pipeline import compile_ref
from interpreter.procedure import code as code_module
from interpreter.procedure.function import write_function
from interpreter.procedure.kinds import helpers, writers
from interpreter.procedure.listing import FORMS, listing
from interpreter.procedure.program import write
from interpreter.ruleset.specs import walk

STEP_COMMENT = re.compile(r"^ *# (?P<file>.+):(?P<line>\d+): (?P<kind>[a-z_]+) \((?P<path>\$[^)]*)\)$")
PROCEDURES = [(ref, name) for ref in bundled_ids() for name in compile_ref(ref).procedures]


def compiles(tmp_path: Path, text: str) -> None:
    """What `python -m py_compile FILE` does, on the text pasted into a file."""
    path = tmp_path / "listed.py"
    path.write_text(text, encoding="utf-8")
    py_compile.compile(str(path), cfile=str(tmp_path / "listed.pyc"), doraise=True)


@pytest.mark.parametrize("form", [[], ["exact"]])
def test_the_code_printed_for_lockwood_check_compiles(rules, tmp_path, form):
    result = rules("describe", "lockwood", "check", "--code", *form)
    assert result.exit_code == 0, result.stderr
    compiles(tmp_path, result.stdout)
    assert ("def run(c, E):" in result.stdout) == (not form)
    assert ("def b0(s, c):" in result.stdout) == bool(form)


@pytest.mark.parametrize(("ref", "name"), PROCEDURES)
def test_the_code_of_every_bundled_procedure_compiles_in_both_forms(tmp_path, ref, name):
    rs = compile_ref(ref)
    for form in FORMS:
        compiles(tmp_path, listing(rs, rs.procedures[name], form))


def _code_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


@pytest.mark.parametrize(("ref", "name"), PROCEDURES)
def test_the_code_listed_is_the_code_that_runs(monkeypatch, ref, name):
    """Written without a listing (as runs and odds write it), each module's source is the listing's, comments
    aside."""
    run_sources: list[str] = []
    original = code_module.Code.run

    def spy(self, source, label):
        run_sources.append(source)
        return original(self, source, label)

    rs = compile_ref(ref)
    proc = rs.procedures[name]
    monkeypatch.setattr(code_module.Code, "run", spy)
    write_function(rs, proc, writers(rs.kinds), helpers(rs.kinds))
    write(rs, proc, proc.steps, writers(rs.kinds), helpers(rs.kinds))
    monkeypatch.setattr(code_module.Code, "run", original)
    listed = listing(rs, proc, "run") + "\n" + listing(rs, proc, "exact")
    assert _code_lines(listed) == _code_lines("\n".join(run_sources))


@pytest.mark.parametrize("ref", bundled_ids())
def test_each_step_is_under_a_comment_naming_its_yaml_line(ref):
    """Every step of a procedure's own steps is named, once per form, at the line its YAML key is on."""
    rs = compile_ref(ref)
    yaml_lines = (rulesets_dir() / f"{ref}.yaml").read_text(encoding="utf-8").splitlines()
    for proc in rs.procedures.values():
        for form in FORMS:
            named = [m for line in listing(rs, proc, form).splitlines() if (m := STEP_COMMENT.match(line))]
            for m in named:
                assert m["file"] == rs.procedures[proc.name].where.file
                if m["path"].startswith("$.procedures."):  # (steps an effect adds are at the effect)
                    assert re.search(rf"\b{m['kind']}\b", yaml_lines[int(m["line"]) - 1]), (proc.name, m.group(0))
            paths = {m["path"] for m in named}
            assert {s.where.path for s in proc.steps} <= paths, (proc.name, form)  # (nested: unless never taken)
            assert paths <= {s.where.path for s in walk(proc.steps)}, (proc.name, form)


def test_a_rulesets_own_file_and_lines_are_named(rules, tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("ruleset: mine\ntitle: Mine\nprocedures:\n  check:\n    outcomes: {hit: hit, miss: miss}\n"
                    "    values: {total: the total}\n    steps:\n      - roll: {d: 1d20}\n"
                    "      - let: {total: d + 2}\n"
                    "      - decide: [{when: total >= 12, outcome: hit}, {outcome: miss}]\n", encoding="utf-8")
    result = rules("describe", str(path), "check", "--code")
    assert result.exit_code == 0, result.stderr
    named = [(m["file"], int(m["line"]), m["kind"]) for line in result.stdout.splitlines()
             if (m := STEP_COMMENT.match(line))]
    assert named == [(str(path), 8, "roll"), (str(path), 9, "let"), (str(path), 10, "decide")]
    compiles(tmp_path, result.stdout)


def test_code_needs_a_procedure_and_no_json(rules):
    result = rules("describe", "lockwood", "--code")
    assert result.exit_code == 2
    assert "--code prints one procedure's code" in result.stderr
    result = rules("describe", "lockwood", "check", "--code", "--json")  # (the error as JSON, as --json asks)
    assert result.exit_code == 2
    assert "--code prints one procedure's code" in json.loads(result.stdout)["error"]["message"]


def test_the_writers_contract_is_named_and_both_assemblies_meet_it():
    """What an assembly must say is a set of abstract methods, not methods that raise when called."""
    from interpreter.procedure import writing
    from interpreter.procedure.function import LocalWriter
    from interpreter.procedure.program import BlockWriter

    assert {"jump", "jump_if", "read_held", "get", "set", "drop", "names", "outcome", "outcome_of", "trace", "seen",
            "runs"} <= writing.Writer.__abstractmethods__
    assert not LocalWriter.__abstractmethods__ and not BlockWriter.__abstractmethods__
    assert "NotImplementedError" not in Path(writing.__file__).read_text(encoding="utf-8")
