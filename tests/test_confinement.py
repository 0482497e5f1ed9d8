"""Files named by other files: an overlay's `extends:` and a sheet's `ruleset:` name an id or a path inside
the folder of the file that names them (or a ruleset folder), so a ruleset or sheet from elsewhere cannot
make rules read, and quote in an error, a file its user never named; and the ids of the ruleset folders
are read as the YAML reader reads them, from files within the size limit, once for each content."""

from __future__ import annotations

import builtins
import os
from pathlib import Path

import pytest

from interpreter import limits, pipeline
from interpreter.load import cache, find

OVERLAY = "extends: {base}\nruleset: house\nconstants:\n  bonus: 3\n"
BASE = ("ruleset: demo\ntitle: Demo\nconstants: {bonus: 2}\nprocedures:\n  check:\n    outcomes: {done: rolled}\n"
        "    steps:\n      - decide: [{outcome: done}]\n")
SECRET = "password: hunter2-SECRET\nruleset: x\n"


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A campaign folder with a secret beside it, and no ruleset folders of the user's."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("RULESMITH_PATH", raising=False)
    camp = tmp_path / "camp" / "house"
    camp.mkdir(parents=True)
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "creds.yaml").write_text(SECRET, encoding="utf-8")
    pipeline.forget_compiled()
    return camp


@pytest.fixture
def opened(monkeypatch):
    """Every path opened (os.open and open), as real paths."""
    seen: list[str] = []
    real_os_open, real_open = os.open, builtins.open

    def os_open(path, *args, **kwargs):
        seen.append(os.path.realpath(path) if isinstance(path, (str, os.PathLike)) else str(path))
        return real_os_open(path, *args, **kwargs)

    def py_open(path, *args, **kwargs):
        if isinstance(path, (str, os.PathLike)):
            seen.append(os.path.realpath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", os_open)
    monkeypatch.setattr(builtins, "open", py_open)
    return seen


@pytest.mark.parametrize("base, words", [
    ("/etc/passwd", "'/etc/passwd' is an absolute path"),
    ("../../secret/creds.yaml", "'../../secret/creds.yaml' leads outside the folder of the file that names it"),
    ("../../x.yaml", "'../../x.yaml' leads outside the folder of the file that names it"),
])
def test_extends_outside_the_folder_is_refused_without_opening_the_file(rules, tree, opened, base, words):
    house = tree / "house.yaml"
    house.write_text(OVERLAY.format(base=base), encoding="utf-8")
    for command in (["validate", str(house)], ["run", str(house), "check"], ["run", str(house), "check", "--json"]):
        pipeline.forget_compiled()
        result = rules(*command)
        assert result.exit_code == 1
        shown = result.stdout if "--json" in command else result.stderr
        assert words in shown and "hunter2" not in shown and "password" not in shown, shown
    target = os.path.realpath(tree / base) if not base.startswith("/") else base
    assert target not in opened and os.path.realpath(base) not in opened


def test_the_refusal_is_placed_at_the_extends_key(rules, tree):
    house = tree / "house.yaml"
    house.write_text(OVERLAY.format(base="/etc/passwd"), encoding="utf-8")
    assert rules("validate", str(house)).stderr == (
        f"{house}:1:10: $.extends: '/etc/passwd' is an absolute path; a file may name another by a path inside its "
        "own folder, or by a ruleset id; put the file beside this one (or below it) and name it by a relative path\n")


def test_a_link_inside_the_folder_that_points_out_is_refused(rules, tree, opened):
    (tree / "base.yaml").symlink_to(tree.parent.parent / "secret" / "creds.yaml")
    house = tree / "house.yaml"
    house.write_text(OVERLAY.format(base="base.yaml"), encoding="utf-8")
    result = rules("validate", str(house))
    assert result.exit_code == 1 and "leads outside the folder" in result.stderr and "hunter2" not in result.stderr
    assert os.path.realpath(tree.parent.parent / "secret" / "creds.yaml") not in opened


@pytest.mark.parametrize("base", ["base.yaml", "sub/base.yaml", "./sub/../base.yaml"])
def test_a_base_inside_the_folder_is_found(rules, tree, base):
    (tree / "base.yaml").write_text(BASE, encoding="utf-8")
    (tree / "sub").mkdir()
    (tree / "sub" / "base.yaml").write_text(BASE, encoding="utf-8")
    house = tree / "house.yaml"
    house.write_text(OVERLAY.format(base=base), encoding="utf-8")
    assert rules("validate", str(house)).exit_code == 0


def test_a_base_in_a_ruleset_folder_may_be_named_by_a_path_that_leads_there(rules, tree, monkeypatch):
    shelf = tree.parent / "shelf"
    shelf.mkdir()
    (shelf / "base.yaml").write_text(BASE, encoding="utf-8")
    monkeypatch.setenv("RULESMITH_PATH", str(shelf))
    house = tree / "house.yaml"
    house.write_text(OVERLAY.format(base="../shelf/base.yaml"), encoding="utf-8")
    assert rules("validate", str(house)).exit_code == 0


def test_a_chain_of_overlays_holds_at_most_a_mebibyte_and_a_base_past_it_is_not_read(rules, tree, opened, monkeypatch):
    monkeypatch.setattr(limits, "MAX_CHAIN_BYTES", 400)
    (tree / "base.yaml").write_text(BASE + "# " + "x" * 400 + "\n", encoding="utf-8")
    house = tree / "house.yaml"
    house.write_text(OVERLAY.format(base="base.yaml"), encoding="utf-8")
    result = rules("validate", str(house))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"{house}:1:10: $.extends: this chain of overlays would hold ")
    assert result.stderr.rstrip().endswith("; the limit is 400 in all")
    assert os.path.realpath(tree / "base.yaml") not in opened


# ----------------------------------------------------------------- the ruleset folders


@pytest.fixture
def shelf(tmp_path, monkeypatch):
    """A ruleset folder of the test's own."""
    folder = tmp_path / "shelf"
    folder.mkdir()
    monkeypatch.setenv("RULESMITH_PATH", str(folder))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    find._DECLARED.clear()
    pipeline.forget_compiled()
    return folder


def test_an_id_inside_a_quoted_title_is_no_id(rules, shelf):
    """The old scan matched a `ruleset:` line anywhere, inside a multi-line quoted title too."""
    (shelf / "real.yaml").write_text(BASE.replace("ruleset: demo", "ruleset: real").replace(
        'title: Demo', 'title: "A title\nruleset: shown\nend"'), encoding="utf-8")
    ids = [line.split()[0] for line in rules("list").stdout.splitlines()]
    assert "real" in ids and "shown" not in ids
    assert rules("run", "shown", "check").exit_code == 1
    assert rules("run", "real", "check").exit_code == 0


def test_a_huge_file_in_a_ruleset_folder_is_skipped_unread(rules, shelf):
    """A sparse 3 GB file once ended `rules run nwod` in MemoryError: every file was read whole."""
    with open(shelf / "huge.yaml", "wb") as handle:
        handle.truncate(3 << 30)
    os.mkfifo(shelf / "fifo.yaml")
    assert rules("run", "nwod", "action", "pool=2", "--seed", "1").exit_code == 0
    assert rules("list").exit_code == 0


def test_each_file_of_a_ruleset_folder_is_parsed_once_for_its_content(rules, shelf, folder, monkeypatch):
    (shelf / "a.yaml").write_text(BASE.replace("ruleset: demo", "ruleset: aaa"), encoding="utf-8")
    parsed: list[str] = []
    real = find._parsed_id
    monkeypatch.setattr(find, "_parsed_id", lambda data, path: parsed.append(path) or real(data, path))
    for _ in range(3):
        find._DECLARED.clear()  # (a new process remembers nothing)
        assert find.user_rulesets() == {"aaa": [str(shelf / "a.yaml")]}
    assert len(parsed) == 1


def test_a_forged_id_record_does_not_name_a_file_by_another_id(rules, shelf, folder):
    path = shelf / "a.yaml"
    path.write_text(BASE.replace("ruleset: demo", "ruleset: aaa"), encoding="utf-8")
    assert rules("run", "aaa", "check").exit_code == 0
    key = cache.id_key(cache.sha256(path.read_bytes()))
    cache.write_id(cache.folder(), key, "nwod", 1)  # the file would then claim a bundled id: a collision
    find._DECLARED.clear()
    pipeline.forget_compiled()
    assert rules("run", "nwod", "action", "pool=2", "--seed", "1").exit_code == 0
    cache.write_id(cache.folder(), key, "zzz", 1)
    find._DECLARED.clear()
    pipeline.forget_compiled()
    result = rules("run", "zzz", "check")
    assert result.exit_code == 1 and "no ruleset id or file named 'zzz'" in result.stderr


def test_a_ruleset_path_a_sheet_names_is_confined_too(rules, tree):
    sheet = Path(tree) / "ana.yaml"
    sheet.write_text('ruleset: "../../secret/creds.yaml"\nname: Ana\n', encoding="utf-8")
    result = rules("sheet", "show", str(sheet))
    assert result.exit_code == 1 and "leads outside the folder" in result.stderr and "hunter2" not in result.stderr
