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


# ----------------------------------------------------------------- the folder the command runs in


HOUSE_OVERLAY = "extends: rollunder\nruleset: house\nconstants:\n  base_hp: 7\n"


@pytest.fixture
def campaign(tmp_path, monkeypatch):
    """A GM's campaign folder: house rules at its top, sheets and overlays in folders below, a secret beside it."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("RULESMITH_PATH", raising=False)
    camp = tmp_path / "campaign"
    (camp / "sheets").mkdir(parents=True)
    (camp / "overlays").mkdir()
    (camp / "base.yaml").write_text(BASE, encoding="utf-8")
    (camp / "house.yaml").write_text(HOUSE_OVERLAY, encoding="utf-8")
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "creds.yaml").write_text(SECRET, encoding="utf-8")
    pipeline.forget_compiled()
    return camp


def test_a_sheet_may_name_a_ruleset_above_it_inside_the_folder_rules_runs_in(rules, campaign, monkeypatch):
    monkeypatch.chdir(campaign)
    made = rules("sheet", "new", "./house.yaml", "-o", "sheets/marco.yaml", "--name", "Marco")
    assert made.exit_code == 0, made.stderr
    assert 'ruleset: "../house.yaml"' in (campaign / "sheets" / "marco.yaml").read_text(encoding="utf-8")
    shown = rules("sheet", "show", "sheets/marco.yaml")
    assert shown.exit_code == 0, shown.stderr
    assert "Marco" in shown.stdout
    ran = rules("run", "house.yaml", "take_damage", "amount=1", "--sheet", "sheets/marco.yaml")
    assert ran.exit_code == 0, ran.stderr
    # the same sheet, checked from inside its own folder, names a file outside both: refused
    monkeypatch.chdir(campaign / "sheets")
    pipeline.forget_compiled()
    refused = rules("sheet", "show", "marco.yaml")
    assert refused.exit_code == 1
    assert "'../house.yaml' leads outside the folder of the file that names it and the folder rules runs in" in \
        refused.stderr


def test_an_overlay_may_extend_a_base_above_it_inside_the_folder_rules_runs_in(rules, campaign, monkeypatch):
    (campaign / "overlays" / "mine.yaml").write_text(OVERLAY.format(base="../base.yaml"), encoding="utf-8")
    monkeypatch.chdir(campaign)
    assert rules("validate", "overlays/mine.yaml").exit_code == 0
    assert rules("run", "overlays/mine.yaml", "check").exit_code == 0
    pipeline.forget_compiled()
    monkeypatch.chdir(campaign / "overlays")
    assert rules("validate", "mine.yaml").exit_code == 1


@pytest.mark.parametrize("ref, words", [
    ("/etc/passwd", "'/etc/passwd' is an absolute path"),
    ("../../secret/creds.yaml", ("'../../secret/creds.yaml' leads outside the folder of the file that names it "
                                 "and the folder rules runs in")),
])
def test_a_sheet_naming_a_file_outside_the_folder_rules_runs_in_is_refused_unread(rules, campaign, monkeypatch, opened,
                                                                                 ref, words):
    monkeypatch.chdir(campaign)
    (campaign / "sheets" / "ana.yaml").write_text(f'ruleset: "{ref}"\nname: Ana\n', encoding="utf-8")
    for command in (["sheet", "show", "sheets/ana.yaml"], ["sheet", "check", "sheets/ana.yaml", "--json"]):
        result = rules(*command)
        assert result.exit_code == 1
        said = result.stdout + result.stderr
        assert words in said and "hunter2" not in said and "password" not in said and "root:" not in said, said
    assert os.path.realpath(campaign.parent / "secret" / "creds.yaml") not in opened and "/etc/passwd" not in opened


def test_the_library_trusts_no_working_folder(campaign, monkeypatch):
    """`rules` trusts the folder it runs in; a program that imports the library is not run from a folder it chose."""
    import interpreter

    monkeypatch.chdir(campaign)
    (campaign / "overlays" / "mine.yaml").write_text(OVERLAY.format(base="../base.yaml"), encoding="utf-8")
    with pytest.raises(interpreter.RulesError, match="leads outside the folder of the file that names it;"):
        interpreter.load_ruleset(campaign / "overlays" / "mine.yaml")
    with find.trusting(str(campaign)):
        assert interpreter.load_ruleset(campaign / "overlays" / "mine.yaml").id == "house"


# ----------------------------------------------------------------- what the library opens


@pytest.mark.parametrize("ref", ["/etc/shadow", "/etc/passwd", "../secret/creds.yaml", "secret/creds.yaml"])
def test_load_ruleset_opens_no_path_given_as_text_without_a_root(tmp_path, monkeypatch, opened, ref):
    import interpreter

    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "creds.yaml").write_text(SECRET, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for call in (interpreter.load_ruleset, interpreter.validate,
                 lambda r: interpreter.run(r, "check"), lambda r: interpreter.odds(r, "check")):
        with pytest.raises(interpreter.RulesError) as caught:
            call(ref)
        said = str(caught.value)
        assert said.startswith(f"'{ref}' is a path given as text, opened only inside a root= folder; nothing was "
                               "opened"), said
        assert "hunter2" not in said and "root:" not in said
    assert not [path for path in opened if path.startswith(("/etc", str(tmp_path)))], opened


def test_text_that_is_not_an_id_is_not_looked_for_as_a_file(tmp_path, monkeypatch, opened):
    import interpreter

    (tmp_path / "shadow").write_text(BASE, encoding="utf-8")  # a valid ruleset, named as an id would be
    monkeypatch.chdir(tmp_path)
    with pytest.raises(interpreter.RulesError, match=r"^no ruleset id named 'shadow'; known rulesets: "):
        interpreter.load_ruleset("shadow")
    assert str(tmp_path / "shadow") not in opened


def test_a_root_lets_a_path_inside_it_load_and_nothing_outside(tmp_path, monkeypatch, opened):
    import interpreter

    root = tmp_path / "uploads"
    root.mkdir()
    (root / "demo.yaml").write_text(BASE, encoding="utf-8")
    (tmp_path / "secret.yaml").write_text(SECRET, encoding="utf-8")
    (root / "link.yaml").symlink_to(tmp_path / "secret.yaml")
    assert interpreter.load_ruleset("demo.yaml", root=root).id == "demo"
    assert interpreter.load_ruleset(str(root / "demo.yaml"), root=str(root)).id == "demo"
    assert interpreter.validate("demo.yaml", root=root) == []
    for ref in ("../secret.yaml", "link.yaml", str(tmp_path / "secret.yaml"), "/etc/shadow"):
        with pytest.raises(interpreter.RulesError) as caught:
            interpreter.load_ruleset(ref, root=root)
        assert "lies outside root" in str(caught.value) and "hunter2" not in str(caught.value)
    assert os.path.realpath(tmp_path / "secret.yaml") not in opened


def test_a_path_the_program_made_is_opened_as_asked(tmp_path):
    import interpreter

    (tmp_path / "demo.yaml").write_text(BASE, encoding="utf-8")
    assert interpreter.load_ruleset(tmp_path / "demo.yaml").id == "demo"
    assert interpreter.run(tmp_path / "demo.yaml", "check").outcome == "done"


def test_the_command_line_trusts_its_folder_and_the_language_server_none(tmp_path, monkeypatch):
    from interpreter.cli import guard

    monkeypatch.chdir(tmp_path)
    for argv, trusted in ((["run", "x"], (os.path.realpath(tmp_path),)), (["--json", "validate"], (os.path.realpath(
            tmp_path),)), (["lsp"], ())):
        with guard._trusting_the_working_folder(argv):
            assert find._TRUSTED.get() == trusted, argv
    assert find._TRUSTED.get() == ()


# ----------------------------------------------------------------- a file named that is no ruleset


@pytest.mark.parametrize("kind", ["sheet", "overlay"])
def test_a_file_beside_that_is_no_ruleset_is_refused_without_quoting_it(rules, tree, kind):
    """A bot's own config beside the uploads: a sheet or overlay naming it learns nothing of what it holds."""
    (tree / "config.yaml").write_text("password: hunter2-SECRET\nkey_name: visible\nruleset: x\n", encoding="utf-8")
    if kind == "sheet":
        (tree / "ana.yaml").write_text('ruleset: "config.yaml"\nname: Ana\n', encoding="utf-8")
        commands = [["sheet", "show", str(tree / "ana.yaml")], ["sheet", "check", str(tree / "ana.yaml"), "--json"]]
    else:
        (tree / "ana.yaml").write_text(OVERLAY.format(base="config.yaml"), encoding="utf-8")
        commands = [["validate", str(tree / "ana.yaml")], ["run", str(tree / "ana.yaml"), "check", "--json"]]
    for command in commands:
        pipeline.forget_compiled()
        result = rules(*command)
        said = result.stdout + result.stderr
        assert result.exit_code == 1 and "is not a ruleset" in said, said
        assert "hunter2" not in said and "password" not in said and "key_name" not in said, said
        assert str(tree / "ana.yaml") in said  # (placed at the key that names it)


def test_the_library_quotes_nothing_of_a_yaml_file_that_is_no_ruleset(tmp_path, monkeypatch):
    import interpreter

    secret = tmp_path / "config.yaml"
    secret.write_text("password: hunter2-SECRET\nkey_name: visible\n", encoding="utf-8")
    for call in (lambda: interpreter.load_ruleset(secret), lambda: interpreter.load_ruleset("config.yaml", root=tmp_path),
                 lambda: [str(p) for p in interpreter.validate(secret)]):
        try:
            said = str(call())
        except interpreter.RulesError as err:
            said = str(err)
        assert "is not a ruleset" in said and "hunter2" not in said and "password" not in said, said
    broken = tmp_path / "broken.yaml"  # a ruleset with mistakes is still reported in full
    broken.write_text("ruleset: broken\ntitle: Broken\nbogus: 2\nworse: 3\n", encoding="utf-8")
    assert len(interpreter.validate(broken)) >= 3
