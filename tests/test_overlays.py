"""Overlays: house rules as a few lines that extend another ruleset (a JSON Merge Patch), found by id
in the user's ruleset folders or by path, with every error placed in the file that wrote it."""

from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter.load.bundled import bundled_ids, rulesets_dir
from interpreter.pipeline import compile_ref

NINE_AGAIN = "extends: nwod\nruleset: nwod-9again\ntitle: Our table's nWoD\nconstants:\n  default_again: 9\n"

BASE = """ruleset: demo
title: Demo
constants: {bonus: 2}
procedures:
  check:
    params:
      stat: {type: int, default: 3}
    outcomes: {hit: rolled well, miss: rolled badly}
    steps:
      - roll: {r: 1d6}
      - let: {total: r + stat + bonus}
      - decide: [{when: total >= 8, outcome: hit}, {outcome: miss}]
  spare:
    outcomes: {done: rolled}
    steps:
      - decide: [{outcome: done}]
"""


@pytest.fixture
def folders(tmp_path, monkeypatch):
    """Empty user ruleset folders of this test's own, and a working folder apart from them."""
    config = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    monkeypatch.delenv("RULESMITH_PATH", raising=False)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return tmp_path


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def odds_json(rules, *args: str) -> dict:
    result = rules("odds", *args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def errors(rules, *args: str) -> list[str]:
    result = rules(*args)
    assert result.exit_code == 1, result.stdout
    assert "Traceback" not in result.stderr
    return result.stderr.splitlines()


def test_the_9_again_overlay_gives_the_odds_of_again_9(rules, folders):
    house = write(folders / "work" / "house.yaml", NINE_AGAIN)
    ours = odds_json(rules, str(house), "action", "pool=5")
    base = odds_json(rules, "nwod", "action", "pool=5", "again=9")
    assert ours["ruleset"] == "nwod-9again" and base["ruleset"] == "nwod"
    assert ours["outcomes"] == base["outcomes"]
    assert ours["values"] == base["values"]
    assert odds_json(rules, "nwod", "action", "pool=5")["outcomes"] != ours["outcomes"]  # the change matters
    run = rules("run", str(house), "action", "pool=1", "--dice", "9,3", "--json")
    assert json.loads(run.stdout)["values"]["successes"] == 1  # a 9 explodes into a second die
    described = rules("describe", str(house)).stdout
    assert described.startswith("# Our table's nWoD (`nwod-9again`)")
    assert "extends nwod" in described
    assert "- `$.constants.default_again` (changed)" in described


def test_null_removes_an_entry(rules, folders):
    house = write(folders / "work" / "house.yaml", "extends: nwod\nruleset: nwod-quiet\nprocedures:\n  initiative: null\n")
    described = rules("describe", str(house)).stdout
    assert "### `initiative`" not in described
    assert "- `$.procedures.initiative` (removed)" in described
    assert errors(rules, "run", str(house), "initiative", "composure=2", "dexterity=3")[0].startswith(
        "ruleset 'nwod-quiet' has no procedure 'initiative'")
    assert rules("run", "nwod", "initiative", "composure=2", "dexterity=3").exit_code == 0
    assert odds_json(rules, str(house), "action", "pool=3")["outcomes"] == \
        odds_json(rules, "nwod", "action", "pool=3")["outcomes"]


def test_removing_what_the_base_still_uses_is_an_error_placed_in_the_base(rules, folders):
    """`pool` is called by nwod's action and contested: each call is an error at the call, in nwod's file."""
    house = write(folders / "work" / "house.yaml", "extends: nwod\nruleset: nwod-quiet\nprocedures:\n  pool: null\n")
    lines = errors(rules, "validate", str(house))
    base = (rulesets_dir() / "nwod.yaml").read_text(encoding="utf-8").splitlines()
    calls = [line for line in lines if line.endswith("unknown procedure 'pool'")]
    assert len(calls) >= 2
    for line in lines:
        assert line.startswith("nwod (bundled):")
    for line in calls:
        number, col = (int(part) for part in line.split(":")[1:3])
        assert base[number - 1][col - 1:].startswith("pool")


def test_a_list_replaces_the_base_list_whole(rules, folders):
    """The docs' example: rows are a list, so the overlay's rows are all the rows there are."""
    doc = (Path(__file__).parent.parent / "docs" / "format.md").read_text(encoding="utf-8")
    example = doc.split("```yaml\nextends: rollunder\n", 1)[1].split("```", 1)[0]
    house = write(folders / "work" / "merciful.yaml", "extends: rollunder\n" + example)
    exact = odds_json(rules, str(house), "zero_hp")["exact"]
    assert {k: Fraction(v) for k, v in exact.items() if Fraction(v)} == {
        "bleeding_out": Fraction(3, 6), "stable": Fraction(2, 6), "standing": Fraction(1, 6)}


def test_the_docs_first_overlay_validates_and_does_what_its_comments_say(rules, folders):
    """format.md's house.yaml: one procedure removed, one parameter's default changed deep inside."""
    doc = (Path(__file__).parent.parent / "docs" / "format.md").read_text(encoding="utf-8")
    example = doc.split("```yaml\n# house.yaml\n", 1)[1].split("```", 1)[0]
    house = write(folders / "work" / "house.yaml", example)
    assert rules("validate", str(house)).exit_code == 0
    described = rules("describe", str(house)).stdout
    assert "- `$.procedures.initiative` (removed)" in described and "### `initiative`" not in described
    ours = odds_json(rules, str(house), "action", "pool=5")
    assert ours["outcomes"] == odds_json(rules, "nwod", "action", "pool=5", "again=9")["outcomes"]


def test_an_error_in_the_overlay_and_one_in_the_base_are_each_placed_in_their_file(rules, folders):
    work = folders / "work"
    write(work / "base.yaml", BASE.replace("      - decide: [{outcome: done}]\n",
                                           "      - let: {x: dex + 1}\n      - decide: [{outcome: done}]\n"))
    write(work / "house.yaml", "# our table\n" * 12 + "extends: base.yaml\nruleset: house\nprocedures:\n"
                               "  check:\n    steps:\n      - roll: {r: 1d6}\n      - let: {total: r + stat + bonsu}\n"
                               "      - decide: [{outcome: hit}]\n")
    # the overlay's problems first, then the base's, each in its own file
    expected = ["house.yaml:19:33: $.procedures.check.steps[1].let.total: unknown name 'bonsu'; did you mean 'bonus'?",
                "base.yaml:16:18: $.procedures.spare.steps[0].let.x: unknown name 'dex'"]
    assert errors(rules, "validate", "house.yaml") == expected
    assert errors(rules, "run", "house.yaml", "check") == expected  # the cached documents place them the same
    assert errors(rules, "run", "house.yaml", "check") == expected


def test_an_unknown_top_level_key_in_an_overlay_is_the_error_it_is_in_a_ruleset(rules, folders):
    work = folders / "work"
    write(work / "base.yaml", BASE)
    write(work / "house.yaml", "extends: base.yaml\nruleset: house\nprocedure: {}\n")
    write(work / "plain.yaml", BASE + "procedure: {}\n")
    message = "$.procedure: unknown key 'procedure'; did you mean 'procedures'?"
    assert errors(rules, "validate", "house.yaml") == [f"house.yaml:3:1: {message}"]
    assert errors(rules, "validate", "plain.yaml") == [f"plain.yaml:17:1: {message}"]


def test_a_three_file_chain(rules, folders):
    work = folders / "work"
    write(work / "rules" / "base.yaml", BASE)
    write(work / "rules" / "mid.yaml", "extends: base.yaml\nruleset: demo-mid\nconstants: {bonus: 3}\n")
    write(work / "top.yaml", "extends: rules/mid.yaml\nruleset: demo-top\ntitle: Top\nprocedures:\n  spare: null\n")
    got = odds_json(rules, "top.yaml", "check")
    # 1d6 + 3 + 3 >= 8: a roll of 2 or more
    assert got["ruleset"] == "demo-top"
    assert got["exact"] == {"hit": "5/6", "miss": "1/6"}
    described = rules("describe", "top.yaml").stdout
    assert described.startswith("# Top (`demo-top`)") and "extends demo-mid" in described
    assert "spare" not in described.split("## Procedures")[1]
    assert odds_json(rules, "rules/mid.yaml", "check")["exact"] == {"hit": "5/6", "miss": "1/6"}
    assert odds_json(rules, "rules/base.yaml", "check")["exact"] == {"hit": "2/3", "miss": "1/3"}


def test_a_cycle_is_placed_at_the_extends_that_closes_it(rules, folders):
    work = folders / "work"
    write(work / "a.yaml", "extends: b.yaml\nruleset: a\n")
    write(work / "b.yaml", "ruleset: b\ntitle: B\nextends: c.yaml\n")
    write(work / "c.yaml", "ruleset: c\nextends:   a.yaml\n")
    [line] = errors(rules, "validate", "a.yaml")
    assert line.startswith("c.yaml:2:12: $.extends: 'extends: a.yaml' makes a cycle: ")
    [line] = errors(rules, "validate", "b.yaml")
    assert line.startswith("a.yaml:1:10: $.extends: 'extends: b.yaml' makes a cycle: ")


def test_chains_stop_at_16_files(rules, folders):
    work = folders / "work"
    write(work / "r0.yaml", BASE)
    for i in range(1, 17):
        write(work / f"r{i}.yaml", f"extends: r{i - 1}.yaml\nruleset: r{i}\n")
    assert rules("validate", "r15.yaml").exit_code == 0  # 16 files
    [line] = errors(rules, "validate", "r16.yaml")
    assert line == "r1.yaml:1:10: $.extends: overlays may chain at most 16 files deep"


def test_an_overlay_needs_its_own_id(rules, folders):
    work = folders / "work"
    write(work / "same.yaml", "extends: nwod\nruleset: nwod\n")
    write(work / "none.yaml", "extends: nwod\nconstants: {default_again: 9}\n")
    assert errors(rules, "validate", "same.yaml")[0].startswith(
        "same.yaml:2:10: $.ruleset: 'nwod' is the id of the ruleset this one extends")
    assert errors(rules, "validate", "none.yaml")[0].startswith("none.yaml:1:1: $: missing required key 'ruleset'")


def test_rulesmith_path_finds_an_overlay_by_id_and_list_shows_where_it_came_from(rules, folders, monkeypatch):
    first, second = folders / "one", folders / "two"
    write(second / "nine.yaml", NINE_AGAIN)
    write(first / "notes.txt", "not a ruleset")
    monkeypatch.setenv("RULESMITH_PATH", f"{first}{os.pathsep}{second}")
    assert odds_json(rules, "nwod-9again", "action", "pool=5")["outcomes"] == \
        odds_json(rules, "nwod", "action", "pool=5", "again=9")["outcomes"]
    listed = rules("list").stdout.splitlines()
    assert [line.split()[0] for line in listed] == [*bundled_ids(), "nwod-9again"]
    assert listed[-1].endswith(f"(extends nwod; {second / 'nine.yaml'})")
    assert all(line.endswith("(bundled)") for line in listed[:-1])
    # an overlay in a ruleset folder extends another one there by id
    write(first / "nine-mod.yaml", "extends: nwod-9again\nruleset: nwod-9mod\nprocedures:\n  action:\n"
                                   "    params:\n      mod: {default: -1}\n")
    assert odds_json(rules, "nwod-9mod", "action", "pool=6")["outcomes"] == \
        odds_json(rules, "nwod", "action", "pool=6", "again=9", "mod=-1")["outcomes"]


def test_the_config_folder_is_searched_too(rules, folders):
    write(folders / "config" / "rulesmith" / "rulesets" / "nine.yaml", NINE_AGAIN)
    assert odds_json(rules, "nwod-9again", "action", "pool=2")["ruleset"] == "nwod-9again"


def test_an_id_claimed_twice_is_an_error_naming_both_files(rules, folders, monkeypatch):
    folder = folders / "mine"
    monkeypatch.setenv("RULESMITH_PATH", str(folder))
    a = write(folder / "a.yaml", NINE_AGAIN)
    b = write(folder / "b.yaml", NINE_AGAIN.replace("title: Our", "title: Their"))
    [line] = errors(rules, "odds", "nwod-9again", "action", "pool=2")
    assert f"ruleset id 'nwod-9again' is declared by both {a} and {b}" in line
    assert line.startswith(f"{b}:2:1: $.ruleset: ")  # where the second file declares it (NINE_AGAIN's line 2)


def test_a_file_claiming_a_bundled_id_is_passed_over_with_one_warning(rules, folders, monkeypatch):
    folder = folders / "mine"
    monkeypatch.setenv("RULESMITH_PATH", str(folder))
    claim = write(folder / "c.yaml", BASE.replace("ruleset: demo", "ruleset: nwod"))
    ran = rules("run", "nwod", "action", "pool=2", "--seed", "1")
    assert ran.exit_code == 0 and ran.stdout.startswith("nwod action:")  # the bundled ruleset, not the file
    [line] = ran.stderr.splitlines()
    assert line.startswith(f"warning: {claim}:1:1: $.ruleset: ") and "id 'nwod' of a bundled ruleset" in line
    assert line.endswith("give the file an id of its own")
    listed = rules("list")
    assert listed.exit_code == 0 and "nwod" in listed.stdout and str(claim) not in listed.stdout
    assert len(listed.stderr.splitlines()) == 1


def test_a_sheet_of_an_overlay_through_sheet_new_check_and_run(rules, folders, monkeypatch):
    folder = folders / "mine"
    monkeypatch.setenv("RULESMITH_PATH", str(folder))
    write(folder / "nine.yaml", NINE_AGAIN)
    sheet = folders / "work" / "marco.yaml"
    assert rules("sheet", "new", "nwod-9again", "-o", str(sheet), "--name", "Marco").exit_code == 0
    assert "ruleset: nwod-9again" in sheet.read_text(encoding="utf-8")
    checked = rules("sheet", "check", str(sheet))
    assert checked.exit_code == 0, checked.stderr
    done = rules("run", "nwod-9again", "take_damage", "amount=2", "type=lethal", "--sheet", str(sheet), "--json")
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["ruleset"] == "nwod-9again" and json.loads(done.stdout)["written"]
    assert rules("sheet", "check", str(sheet)).exit_code == 0
    # the sheet's ruleset is the overlay; its base reads it too, and says so in one line
    based = rules("run", "nwod", "take_damage", "amount=1", "type=lethal", "--sheet", str(sheet))
    assert based.exit_code == 0, based.stderr
    assert based.stderr == ("note: the sheet is for 'nwod-9again', which extends 'nwod': "
                            "read with the rules of 'nwod'\n")


def test_a_sheet_names_an_overlay_by_a_path_relative_to_itself(rules, folders, monkeypatch):
    work = folders / "work"
    write(work / "house" / "nine.yaml", NINE_AGAIN)
    sheet = work / "ana.yaml"
    assert rules("sheet", "new", "house/nine.yaml", "-o", str(sheet)).exit_code == 0
    assert 'ruleset: "house/nine.yaml"' in sheet.read_text(encoding="utf-8")
    monkeypatch.chdir(folders)
    assert rules("sheet", "check", str(sheet)).exit_code == 0
    result = rules("odds", "work/house/nine.yaml", "action", "pool=3", "--sheet", str(sheet), "--json")
    assert result.exit_code == 0, result.stderr


def test_a_sheet_cannot_name_a_ruleset_outside_its_folder(rules, folders, monkeypatch):
    """A sheet from elsewhere (a player's upload, checked by a bot running in the uploads' folder) names its
    ruleset by id or inside its own folder or the folder rules runs in, so that it cannot make rules read, and
    quote, a file its user never named; `sheet new` writes no such sheet."""
    work = folders / "work"
    write(work / "house" / "nine.yaml", NINE_AGAIN)
    sheet = work / "sheets" / "ana.yaml"
    sheet.parent.mkdir()
    monkeypatch.chdir(sheet.parent)
    result = rules("sheet", "new", "../house/nine.yaml", "-o", str(sheet))
    assert result.exit_code == 1 and not sheet.exists()
    assert result.stderr.startswith(f"{sheet}: a sheet names its ruleset by id or by a path inside the sheet's "
                                    "own folder (or the folder rules runs in), and ../house/nine.yaml lies outside "
                                    "it; nothing was written")
    for ref, words in (("../house/nine.yaml", "'../house/nine.yaml' leads outside the folder of the file that names it"),
                       ("/etc/passwd", "'/etc/passwd' is an absolute path"),
                       (str(work / "house" / "nine.yaml"), "is an absolute path")):
        sheet.write_text(f'ruleset: "{ref}"\nname: Ana\n', encoding="utf-8")
        lines = errors(rules, "sheet", "check", str(sheet))
        assert len(lines) == 1 and lines[0].startswith(f"{sheet}:1:11: $.ruleset: ") and words in lines[0], lines


@pytest.mark.parametrize("ruleset_id", bundled_ids())
def test_export_writes_the_bundled_file_byte_for_byte(rules, folders, ruleset_id):
    """The contract: `rules export ID` is byte-identical to the bundled file, its schema line included."""
    out = folders / "work" / f"{ruleset_id}.yaml"
    assert rules("export", ruleset_id, "-o", str(out)).exit_code == 0
    assert out.read_bytes() == (rulesets_dir() / f"{ruleset_id}.yaml").read_bytes()
    assert rules("export", ruleset_id).stdout_bytes == out.read_bytes()
    assert errors(rules, "export", ruleset_id, "-o", str(out))[0].startswith(f"{out} exists")


@pytest.mark.parametrize("ruleset_id", bundled_ids())
def test_export_overlay_writes_a_commented_overlay_that_validates(rules, folders, ruleset_id):
    out = folders / "work" / "house.yaml"
    assert rules("export", ruleset_id, "--overlay", f"{ruleset_id}-house", "-o", str(out)).exit_code == 0
    text = out.read_text(encoding="utf-8")
    assert f"extends: {ruleset_id}\nruleset: {ruleset_id}-house\n" in text and text.startswith("#")
    assert rules("validate", str(out)).stdout == f"{out}: valid\n"
    described = rules("describe", str(out)).stdout
    assert f"(`{ruleset_id}-house`)" in described and f"extends {ruleset_id}" in described
    # uncommenting the constants block as written changes nothing
    lines = text.splitlines()
    if "# constants:" in lines:
        start = lines.index("# constants:")
        block = [lines[start][2:]]
        for line in lines[start + 1:]:
            if not line.startswith("#   "):
                break
            block.append(line[2:])
        write(out, text + "\n".join(block) + "\n")
        assert rules("validate", str(out)).exit_code == 0


def test_bundled_files_are_named_by_id_in_messages(rules):
    assert rules("validate", "nwod").stdout == "nwod (bundled): valid\n"


def test_a_sheet_in_a_ruleset_folder_does_not_claim_its_rulesets_id(rules, folders, monkeypatch):
    folder = folders / "mine"
    monkeypatch.setenv("RULESMITH_PATH", str(folder))
    folder.mkdir()
    assert rules("sheet", "new", "nwod", "-o", str(folder / "marco.yaml")).exit_code == 0
    assert rules("odds", "nwod", "action", "pool=2").exit_code == 0
    assert [line.split()[0] for line in rules("list").stdout.splitlines()] == bundled_ids()


def test_the_documented_overlay_removes_a_procedure_the_base_examples_name(rules, tmp_path):
    """The overlay of docs/format.md removes `autofire`, which nwod's worked examples use: an overlay does not
    inherit the base's examples, so it validates, and `autofire` is gone while `action` takes the new default."""
    house = tmp_path / "house.yaml"
    house.write_text("extends: nwod\nruleset: nwod-9again\nconstants:\n  default_again: 9\n"
                     "procedures:\n  autofire: null\n  action:\n    params:\n      mod: {default: -1}\n",
                     encoding="utf-8")
    assert rules("validate", str(house)).exit_code == 0
    gone = rules("run", str(house), "autofire", "mode=burst", "attack_pool=3", "defense_pool=0", "weapon=2")
    assert gone.exit_code == 1 and "has no procedure 'autofire'" in gone.stderr
    assert compile_ref(str(house)).examples == ()
    diff = rules("diff", "nwod", str(house), "action", "pool=5")
    assert "$.procedures.autofire: {summary, refs, tags, params" in diff.stdout
    assert "$.examples" not in diff.stdout
