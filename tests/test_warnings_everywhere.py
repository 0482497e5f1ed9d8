"""A warning `rules validate` gives for a file is printed once on stderr by every command that loads it,
never on the stdout of `--json`; `rules diff` marks the change it is about."""

from __future__ import annotations

import json

import pytest

MISSPELLED = "extends: nwod\nruleset: nwod-typo\nconstants:\n  exceptional_sucesses: 4\n"
WARNING = "constant 'exceptional_sucesses' is not one of nwod's"
MEANT = "did you mean 'exceptional_successes'?"


@pytest.fixture
def typo(tmp_path):
    path = tmp_path / "typo.yaml"
    path.write_text(MISSPELLED, encoding="utf-8")
    return path


def warning_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning: ")]


def test_validate_gives_the_warning_once(rules, typo):
    result = rules("validate", str(typo))
    assert result.exit_code == 0, result.stderr
    [line] = warning_lines(result.stderr)
    assert f"{typo}:4:3" in line and WARNING in line and MEANT in line


@pytest.mark.parametrize("command", [
    ("odds", "{f}", "action", "pool=3"),
    ("odds", "{f}", "action", "pool=3", "--json"),
    ("run", "{f}", "action", "pool=3", "--dice", "8,2,10,5"),
    ("run", "{f}", "action", "pool=3", "--dice", "8,2,10,5", "--json"),
    ("describe", "{f}"),
    ("diff", "nwod", "{f}"),
    ("diff", "nwod", "{f}", "--json"),
    ("sheet", "new", "{f}", "-o", "{d}/new.yaml"),
])
def test_every_command_that_loads_the_file_prints_its_warning_once_on_stderr(rules, typo, command):
    args = [a.format(f=typo, d=typo.parent) for a in command]
    result = rules(*args)
    assert result.exit_code == 0, result.stderr
    [line] = warning_lines(result.stderr)
    assert f"{typo}:4:3" in line and WARNING in line and MEANT in line
    assert WARNING not in result.stdout or command[0] == "diff"  # (the diff marks the change: below)
    if "--json" in command:
        json.loads(result.stdout)  # stdout holds the answer alone


def test_a_sheet_of_the_file_carries_the_warning_to_sheet_commands(rules, typo):
    sheet = typo.parent / "marco.yaml"
    assert rules("sheet", "new", str(typo), "-o", str(sheet)).exit_code == 0
    for args in (("sheet", "show", str(sheet)), ("sheet", "check", str(sheet)),
                 ("run", str(typo), "action", "pool=2", "--sheet", str(sheet), "--seed", "1")):
        result = rules(*args)
        assert len([w for w in warning_lines(result.stderr) if WARNING in w]) == 1, (args, result.stderr)


def test_the_diff_marks_the_change_the_warning_is_about(rules, typo):
    text = rules("diff", "nwod", str(typo)).stdout
    [line] = [line for line in text.splitlines() if "exceptional_sucesses" in line]
    assert line.strip().startswith("$.constants.exceptional_sucesses: (none) → 4")
    assert f"(warning: {WARNING}" in line and MEANT in line
    data = json.loads(rules("diff", "nwod", str(typo), "--json").stdout)
    [change] = data["changes"]
    assert WARNING in change["warning"] and MEANT in change["warning"]


def test_a_change_nobody_warns_about_carries_no_mark(rules, tmp_path):
    house = tmp_path / "house.yaml"
    house.write_text("extends: nwod\nruleset: nwod-4\nconstants:\n  exceptional_successes: 4\n", encoding="utf-8")
    result = rules("diff", "nwod", str(house), "--json")
    assert warning_lines(result.stderr) == []
    assert all("warning" not in change for change in json.loads(result.stdout)["changes"])


@pytest.mark.parametrize("ruleset", ["lockwood", "nwod", "rollunder", "wwn"])
def test_the_bundled_rulesets_have_no_warning_to_tell(rules, ruleset):
    result = rules("validate", ruleset)
    assert result.exit_code == 0 and warning_lines(result.stderr) == []


def test_a_file_that_keeps_a_warning_is_compiled_for_it_once(rules, typo, folder, monkeypatch):
    """The warnings are remembered in the parse cache by the file's digest: a second command prints the same
    warning without compiling the file again to find it; a changed file is checked again."""
    from interpreter import pipeline

    checked = []
    real = pipeline.compile_ref

    def counting(ref, *args, **kwargs):
        if kwargs.get("trust_cache") is False:
            checked.append(ref)
        return real(ref, *args, **kwargs)

    monkeypatch.setattr(pipeline, "compile_ref", counting)
    run = ("odds", str(typo), "action", "pool=3")
    first = rules(*run)
    assert first.exit_code == 0 and len(checked) == 1
    pipeline.forget_compiled()  # (as a new start would)
    second = rules(*run)
    assert second.exit_code == 0 and len(checked) == 1, "compiled again for its warnings"
    assert warning_lines(second.stderr) == warning_lines(first.stderr) and WARNING in second.stderr
    typo.write_text(MISSPELLED + "  another_sucesses: 5\n", encoding="utf-8")
    third = rules(*run)
    assert len(checked) == 2 and len(warning_lines(third.stderr)) == 2


def test_a_forged_warnings_record_is_not_told(rules, typo, folder):
    """A record whose warnings are not printable lines is ignored: the file is checked and its own warning told."""
    import zlib

    from interpreter import pipeline

    rules("odds", str(typo), "action", "pool=3")
    [record] = (folder / "rulesmith" / "warnings").iterdir()
    head, _, _ = record.read_bytes().partition(b"\n")
    payload = json.dumps({"warnings": ["FORGERY\x1b[2J"]}).encode()
    header = json.loads(head)
    header.update(length=len(payload), crc32=zlib.crc32(payload))
    record.write_bytes(json.dumps(header).encode() + b"\n" + payload)
    pipeline.forget_compiled()
    result = rules("odds", str(typo), "action", "pool=3")
    assert "FORGERY" not in result.stderr and WARNING in result.stderr
