"""Every command's --json: the shapes docs/json.md shows, on success and on failure."""

from __future__ import annotations

import itertools
import json
import re
import shlex
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs" / "json.md"
ERROR_KEYS = {"message", "file", "line", "column", "path"}


def documented() -> list[tuple[str, dict, set[str]]]:
    """(command line, documented object, optional keys) for each command shown in docs/json.md, in order."""
    text = DOC.read_text(encoding="utf-8")
    out = []
    for section in re.split(r"^## ", text, flags=re.MULTILINE)[1:]:
        prose = re.sub(r"```.*?```", "", section, flags=re.DOTALL)
        optional = set(re.findall(r"`([a-z_]+)`", prose))
        blocks = re.findall(r"```(sh|json)\n(.*?)```", section, flags=re.DOTALL)
        for (kind, body), (next_kind, shape) in itertools.pairwise(blocks):
            if kind == "sh" and next_kind == "json":
                out.append((body.strip(), json.loads(shape), optional))
    return out


CASES = documented()


def test_json_doc_shows_every_command():
    lines = [line for line, _, _ in CASES]
    for name in ("list", "validate", "roll", "run", "odds", "describe", "schema", "sheet new", "sheet check",
                 "sheet show"):
        assert any(line.startswith(f"rules {name} ") for line in lines), f"docs/json.md shows no `rules {name}`"


def test_every_documented_command_prints_the_documented_keys(rules, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for line, shape, optional in CASES:  # in order: the sheet is made before it is checked and shown
        args = shlex.split(line)[1:]
        result = rules(*args)
        assert result.exit_code == 0, (line, result.stdout, result.stderr)
        got = json.loads(result.stdout)
        if not line.startswith("rules schema"):  # (the schema is a document of its own, printed as it is)
            assert list(got)[-1] == "format_version" and got.pop("format_version") == 1, line
        assert set(shape) <= set(got) <= set(shape) | optional, (line, sorted(got), sorted(shape))


FAILURES = [
    (["list", "--nope"], 2),
    (["validate", "--nope"], 2),
    (["roll", "2d"], 1),
    (["roll", "1d6", "--seed", "1", "--dice", "3"], 2),
    (["run", "lockwood"], 2),
    (["run", "lockwood", "chek"], 1),
    (["odds", "lockwood", "check", "stat=x", "dc=1"], 1),
    (["odds", "2d6", "--sheet", "x.yaml"], 2),
    (["describe", "lockwood", "nope"], 1),
    (["schema", "extra"], 2),
    (["sheet", "new", "nosuch", "-o", "x.yaml"], 1),
    (["sheet", "check", "missing.yaml"], 1),
    (["sheet", "show", "missing.yaml"], 1),
    (["diff", "lockwood", "missing.yaml"], 1),
    (["export", "nosuch"], 1),
    (["export"], 2),
]


@pytest.mark.parametrize("args,code", FAILURES, ids=[" ".join(a) for a, _ in FAILURES])
def test_a_mistake_under_json_is_one_error_object_on_stdout(rules, tmp_path, monkeypatch, args, code):
    monkeypatch.chdir(tmp_path)
    result = rules(*args, "--json")
    assert result.exit_code == code
    assert result.stderr == ""
    got = json.loads(result.stdout)
    assert got.pop("format_version") == 1
    assert set(got) <= {"error", "problems"} and set(got["error"]) == ERROR_KEYS
    assert got["error"]["message"] and "Traceback" not in result.stdout
    plain = rules(*args)
    assert plain.exit_code == code and plain.stdout == ""
    assert len(plain.stderr.strip().splitlines()) == 1, plain.stderr
    assert got["error"]["message"] in plain.stderr


def test_an_error_in_a_file_carries_its_place(rules, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("ruleset: bad\ntitle: Bad\nprocedures: {}\nbogus: 1\n", encoding="utf-8")
    result = rules("run", str(bad), "check", "--json")
    assert result.exit_code == 1
    error = json.loads(result.stdout)["error"]
    plain = rules("run", str(bad), "check").stderr.splitlines()[0]
    assert plain == f"{error['file']}:{error['line']}:{error['column']}: {error['path']}: {error['message']}"


def test_invalid_ruleset_in_validate_json_lists_its_problems(rules, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("ruleset: bad\ntitle: Bad\nprocedures: {}\nbogus: 1\n", encoding="utf-8")
    result = rules("validate", "lockwood", str(bad), "--json")
    assert result.exit_code == 1
    got = json.loads(result.stdout)
    assert got["valid"] is False and [r["valid"] for r in got["rulesets"]] == [True, False]
    assert all(set(p) == ERROR_KEYS for p in got["rulesets"][1]["problems"])
    assert got["rulesets"][1]["problems"][0]["line"] == 4


def test_floats_are_rounded_and_exact_fractions_given(rules):
    got = json.loads(rules("odds", "lockwood", "check", "stat=12", "dc=15", "--json").stdout)
    natural = got["values"]["natural"]
    # the mean of a d20, independently: (1 + 20) / 2
    assert natural["mean"] == 10.5 and natural["exact_mean"] == "21/2"
    assert all(len(repr(p).replace("0.", "").lstrip("0")) <= 13 for p in got["outcomes"].values())
    thirds = json.loads(rules("odds", "1d3", "--json").stdout)
    assert thirds["distribution"]["1"] == 0.333333333333 and thirds["exact"]["1"] == "1/3"
    assert thirds["mean"] == 2.0 and thirds["exact_mean"] == "2"
