"""The validation corpus: each file in tests/broken/rulesets is one small mistake (or a few) whose
exact report it states in its first lines:

    # expect: LINE:COL: $.json.path: message[; hint]

one line per problem, in the order reported (sorted by position). A file whose message is still
known to be wrong states the message it should give and, on the next line, ``# xfail: why``; its
test is a strict xfail, so it starts failing (XPASS) the day the message is fixed.

Every case is checked through ``interpreter.library.problems`` and through ``rules validate``: exit
code 1, the problems on stderr as ``FILE:LINE:COL: ...`` with FILE the path as given, nothing on
stdout and never a traceback. Hostile files too large to commit (over 1 MiB, not UTF-8) are made
in ``tmp_path``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from interpreter import limits
from interpreter.errors import RulesError
from interpreter.pipeline import problems

BROKEN = Path(__file__).parent / "broken" / "rulesets"
CASES = sorted(BROKEN.glob("*.yaml"))
EXPECT = "# expect: "
XFAIL = "# xfail: "

# One problem line after FILE: "LINE:COL: $.json.path: message".
LINE_SHAPE = re.compile(r'\d+:\d+: \$(?:[.\w]|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*: \S.*\Z')

# The mistakes the corpus was asked to cover, by file; deleting one of them must fail a test.
AGREED = {
    "formula_name_typo", "unknown_function", "text_where_number_belongs", "missing_outcomes",
    "missing_ruleset_and_title", "call_with_typo_dcc", "procedure_instead_of_procedures",
    "stpes_instead_of_steps", "unknown_step_kind", "table_gap", "table_overlap", "table_row_die_cannot_roll",
    "derived_cycle", "duplicate_key", "python_tag", "billion_laughs", "deep_nesting", "yaml_1_1",
    "top_level_list", "formula_ends_after_operator", "formula_attribute", "formula_power", "formula_string",
    "formula_lambda", "dice_without_sides", "decide_unknown_outcome", "unknown_table", "call_unknown_procedure",
    "call_missing_parameter", "call_recursive", "value_never_set", "outcome_clashes_with_constant",
    "choice_without_options", "dice_unknown_name", "several_schema_problems", "several_compile_problems",
    "derived_formla",
}


def header(path: Path) -> tuple[list[str], str | None]:
    """The expected problem lines of a corpus file (without the file name) and its xfail reason, if any."""
    lines = path.read_text(encoding="utf-8").splitlines()
    expected = []
    for line in lines:
        if not line.startswith(EXPECT):
            break
        expected.append(line[len(EXPECT):])
    rest = lines[len(expected)] if len(expected) < len(lines) else ""
    reason = rest[len(XFAIL):] if rest.startswith(XFAIL) else None
    return expected, reason


def case_params() -> list:
    params = []
    for path in CASES:
        _, reason = header(path)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(path, id=path.stem, marks=marks))
    return params


def reported(ref: str) -> list[str]:
    """The problems of a ruleset as the lines `rules validate` prints."""
    found = problems(ref)
    assert all(isinstance(p, RulesError) for p in found)
    return [str(p) for p in found]


def assert_cli_reports(rules, ref: str, lines: list[str]) -> None:
    result = rules("validate", ref)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.splitlines() == lines
    assert "Traceback" not in result.stdout + result.stderr


# ------------------------------------------------------------------------- the corpus itself


def test_corpus_has_at_least_30_cases_each_starting_with_its_expected_problems():
    assert len(CASES) >= 30
    for path in CASES:
        expected, _ = header(path)
        assert path.read_text(encoding="utf-8").startswith(EXPECT), path.name
        assert expected, path.name
        for line in expected:
            assert LINE_SHAPE.match(line), (path.name, line)


def test_corpus_covers_every_agreed_mistake():
    assert {path.stem for path in CASES} >= AGREED


def test_expected_problems_are_listed_in_file_order():
    for path in CASES:
        expected, _ = header(path)
        positions = [tuple(int(n) for n in line.split(":", 2)[:2]) for line in expected]
        assert positions == sorted(positions), path.name


# -------------------------------------------------------------------------------- each case


@pytest.mark.parametrize("path", case_params())
def test_library_reports_exactly_the_expected_problems(path):
    expected, _ = header(path)
    assert reported(str(path)) == [f"{path}:{line}" for line in expected]


@pytest.mark.parametrize("path", case_params())
def test_rules_validate_prints_the_expected_problems_on_stderr_and_exits_1(rules, path):
    expected, _ = header(path)
    assert_cli_reports(rules, str(path), [f"{path}:{line}" for line in expected])


def test_rules_console_script_reports_every_case_with_the_path_as_given():
    """One run of the installed `rules` over the whole corpus, with relative paths."""
    script = shutil.which("rules", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.skip("the rules console script is not installed next to this Python")
    settled = [path for path in CASES if header(path)[1] is None]
    given = [f"broken/rulesets/{path.name}" for path in settled]
    done = subprocess.run([script, "validate", *given], cwd=Path(__file__).parent, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    want = [f"{name}:{line}" for name, path in zip(given, settled, strict=False) for line in header(path)[0]]
    assert done.stderr.splitlines() == want


# ------------------------------------------------------------------- hostile YAML, under 1 s


def timed_problems(path: Path) -> tuple[list[str], float]:
    start = time.process_time()
    lines = reported(str(path))
    return lines, time.process_time() - start


@pytest.mark.parametrize("name", ["billion_laughs", "deep_nesting"])
def test_hostile_yaml_is_refused_in_under_a_second(tmp_path, rules, name):
    # A fresh copy, so no earlier test's cached result makes it look fast.
    path = tmp_path / f"{name}.yaml"
    shutil.copyfile(BROKEN / f"{name}.yaml", path)
    expected = [f"{path}:{line}" for line in header(path)[0]]
    lines, seconds = timed_problems(path)
    assert lines == expected
    assert seconds < 1.0
    fresh = tmp_path / f"{name}-again.yaml"
    shutil.copyfile(path, fresh)
    start = time.process_time()
    assert_cli_reports(rules, str(fresh), [line.replace(str(path), str(fresh), 1) for line in expected])
    assert time.process_time() - start < 1.0


VALID_START = "ruleset: demo\ntitle: Demo\nprocedures:\n  check:\n    outcomes: {done: rolled}\n" \
              "    steps:\n      - decide: [{outcome: done}]\n"


def test_file_over_one_mebibyte_is_refused_at_1_1_in_under_a_second(tmp_path, rules):
    path = tmp_path / "oversize.yaml"
    text = VALID_START + "# " + "padding " * (limits.MAX_FILE_BYTES // 8) + "\n"
    path.write_text(text, encoding="utf-8")
    size = path.stat().st_size
    assert size > limits.MAX_FILE_BYTES
    expected = [f"{path}:1:1: $: file is {size} bytes; the limit is {limits.MAX_FILE_BYTES}"]
    lines, seconds = timed_problems(path)
    assert lines == expected
    assert seconds < 1.0
    start = time.process_time()
    assert_cli_reports(rules, str(path), expected)
    assert time.process_time() - start < 1.0


def test_file_of_exactly_one_mebibyte_is_not_refused_for_its_size(tmp_path):
    path = tmp_path / "edge.yaml"
    padding = limits.MAX_FILE_BYTES - len(VALID_START.encode()) - 3
    path.write_text(VALID_START + "# " + "x" * padding + "\n", encoding="utf-8")
    assert path.stat().st_size == limits.MAX_FILE_BYTES
    assert problems(str(path)) == []


def test_bytes_that_are_not_utf8_are_refused_where_they_stand(tmp_path, rules):
    path = tmp_path / "latin1.yaml"
    path.write_bytes(VALID_START.replace("title: Demo", "title: Caf\xe9").encode("latin-1"))
    expected = [f"{path}:2:11: $: not valid UTF-8 (byte 0xe9)"]
    assert reported(str(path)) == expected
    assert_cli_reports(rules, str(path), expected)


def test_refusals_of_the_whole_file_carry_the_root_json_path_too(tmp_path):
    big = tmp_path / "oversize.yaml"
    big.write_text(VALID_START + "#" * limits.MAX_FILE_BYTES, encoding="utf-8")
    latin = tmp_path / "latin1.yaml"
    latin.write_bytes(b"ruleset: caf\xe9\n")
    for path in (big, latin):
        for line in reported(str(path)):
            assert LINE_SHAPE.match(line[len(str(path)) + 1:]), line


# --------------------------------------------------------------------------- more than one


def test_several_files_are_all_reported_in_the_order_given(rules):
    first, second = BROKEN / "unknown_table.yaml", BROKEN / "formula_name_typo.yaml"
    result = rules("validate", str(first), str(second))
    assert result.exit_code == 1
    assert result.stdout == ""
    want = [f"{p}:{line}" for p in (first, second) for line in header(p)[0]]
    assert result.stderr.splitlines() == want


def test_a_missing_file_is_one_line_not_a_traceback(rules, tmp_path):
    result = rules("validate", str(tmp_path / "nope.yaml"))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"no ruleset id or file named '{tmp_path / 'nope.yaml'}'")
    assert len(result.stderr.splitlines()) == 1
    assert "Traceback" not in result.stdout + result.stderr
