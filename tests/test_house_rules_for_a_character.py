"""What a house rule does: texts that follow the numbers, sheets shared by an overlay and its base, and `rules diff`
for purchases, new procedures, changed tables and one character."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_an_overlay_that_sets_exceptional_successes_gets_help_that_says_three(rules, work):
    write(work / "three.yaml", "extends: nwod\nruleset: nwod-three\nconstants:\n  exceptional_successes: 3\n")
    source = "constants: {exceptional_successes: 3}"
    expected = "`exceptional_success` (3 successes or more)"
    got = rules("run", "three.yaml", "action", "-h").stdout
    assert source and expected in got
    assert "`exceptional_success` (5 successes or more)" in rules("run", "nwod", "action", "-h").stdout
    described = json.loads(rules("describe", "three.yaml", "action", "--json").stdout)["procedure"]
    assert described["outcomes"][0] == {"name": "exceptional_success", "help": "3 successes or more"}
    assert "(3 successes or more)" in rules("describe", "three.yaml").stdout


def test_N9_a_new_sheets_comments_follow_the_skill_dots_of_an_overlay(rules, work):
    write(work / "twelve.yaml", "extends: nwod\nruleset: nwod-twelve\nconstants:\n  skill_dots_primary: 12\n")
    assert rules("sheet", "new", "twelve.yaml", "-o", "t.yaml").exit_code == 0
    assert "# the skill groups, primary first: 12, 7 and 4 dots (N9)" in (work / "t.yaml").read_text()


def test_a_text_names_only_constants_other_braces_stay():
    from interpreter.ruleset.texts import prose

    assert prose("{a} and {b} and {{a}}", {"a": 3}) == "3 and {b} and {{a}}"


def test_a_sheet_of_an_overlay_is_read_by_its_base_and_the_other_way_round_with_a_note(rules, work):
    write(work / "wwn-savage.yaml", "extends: wwn\nruleset: wwn-savage\n")
    assert rules("sheet", "new", "wwn-savage.yaml", "-o", "ash.yaml", "--name", "Ash").exit_code == 0
    based = rules("odds", "wwn", "pc_save", "kind=physical", "--sheet", "ash.yaml", "--json")
    assert based.exit_code == 0, based.stderr
    assert based.stderr == "note: the sheet is for 'wwn-savage.yaml', which extends 'wwn': read with the rules of 'wwn'\n"
    assert rules("sheet", "new", "wwn", "-o", "bea.yaml").exit_code == 0
    over = rules("odds", "wwn-savage.yaml", "pc_save", "kind=physical", "--sheet", "bea.yaml")
    assert over.exit_code == 0 and over.stderr.startswith("note: the sheet is for 'wwn', which 'wwn-savage' extends")
    unrelated = rules("odds", "lockwood", "check", "stat=3", "dc=3", "--sheet", "bea.yaml")
    assert unrelated.exit_code == 1 and "the sheet is for ruleset 'wwn', not 'lockwood'" in unrelated.stderr


def test_N12_rules_diff_compares_buy_with_experience_it_supplies(rules, work):
    """N12: an attribute dot costs new rating x attribute_xp; 4 instead of 5 makes a fourth Intelligence 16, not 20."""
    write(work / "cheapxp.yaml", "extends: nwod\nruleset: nwod-cheapxp\nconstants:\n  attribute_xp: 4\n")
    got = json.loads(rules("diff", "nwod", "cheapxp.yaml", "--json").stdout)
    buys = [e for e in got["odds"] if e["procedure"] == "buy"]
    assert buys and all(e["note"] == "with experience = 100 supplied" for e in buys)
    intelligence = next(e for e in buys if e["params"] == {"trait": "Intelligence"})
    assert intelligence["values"]["cost"]["before"] == 20 and intelligence["values"]["cost"]["after"] == 16
    assert not any("not enough experience" in s["reason"] for s in got["skipped"])
    text = rules("diff", "nwod", "cheapxp.yaml").stdout
    assert "  buy trait=Intelligence (with experience = 100 supplied)" in text


def test_a_new_procedure_of_the_house_is_listed_with_its_odds(rules, work):
    write(work / "pulp.yaml", "extends: lockwood\nruleset: lockwood-pulp\nprocedures:\n  stunt:\n"
          "    outcomes: {success: the stunt works, failure: it does not}\n"
          "    values: {roll: the d6}\n    steps:\n      - roll: {roll: 1d6}\n"
          "      - decide: [{when: roll >= 5, outcome: success}, {outcome: failure}]\n")
    got = json.loads(rules("diff", "lockwood", "pulp.yaml", "--json").stdout)
    stunt = next(e for e in got["odds"] if e["procedure"] == "stunt")
    assert stunt["only"] == "after" and stunt["outcomes"]["success"] == {"before": None, "after": pytest.approx(1 / 3),
                                                                         "difference": pytest.approx(1 / 3)}
    assert "  stunt (only in lockwood-pulp)" in rules("diff", "lockwood", "pulp.yaml").stdout


def test_N37_a_changed_sin_row_is_compared_at_a_sin_that_reaches_it(rules, work):
    """N37: the sin table's row for a rating gives the dice; a house rule that changes row 2 shows at sin=2."""
    write(work / "sins.yaml", "extends: nwod\nruleset: nwod-sins\ntables:\n  sins:\n    rows:\n"
          + "".join(f"      - {{on: {k}, value: {v}, text: t{k}}}\n"
                    for k, v in [(10, 5), (9, 5), (8, 4), (7, 4), (6, 3), (5, 3), (4, 3), (3, 2), (2, 1), (1, 2)]))
    got = json.loads(rules("diff", "nwod", "sins.yaml", "--json").stdout)
    reached = [e["params"] for e in got["odds"] if e["procedure"] == "degeneration" and e["changed"]]
    assert any(p.get("sin") == 2 for p in reached), reached


def test_rules_diff_for_a_character_lists_its_changed_numbers(rules, work):
    write(work / "tough.yaml", "extends: nwod\nruleset: nwod-tough\nconstants:\n  health_per_stamina: 3\n")
    assert rules("sheet", "new", "nwod", "-o", "marco.yaml", "--name", "Marco").exit_code == 0
    text = rules("diff", "nwod", "tough.yaml", "--sheet", "marco.yaml").stdout
    # N15: health = 2 + Stamina x health_per_stamina; Marco's Stamina is 2
    assert "For the character of marco.yaml:\n  health_size: 6 → 8" in text
    got = json.loads(rules("diff", "nwod", "tough.yaml", "--sheet", "marco.yaml", "--json").stdout)
    assert {"name": "health_size", "before": 6, "after": 8} in got["sheet"]["changes"]
    damage = next(e for e in got["odds"] if e["procedure"] == "take_damage")
    assert damage["distributions"]["boxes_left"] == {"before": {"4": 1.0}, "after": {"6": 1.0}}


def test_rules_diff_json_keeps_the_contract_keys_and_adds_distributions(rules, work):
    write(work / "house.yaml", "extends: nwod\nruleset: nwod-9again\nconstants:\n  default_again: 9\n")
    got = json.loads(rules("diff", "nwod", "house.yaml", "action", "pool=5", "--json").stdout)
    assert {"base", "house", "changes", "odds"} <= set(got)
    entry = got["odds"][0]
    assert {"procedure", "params", "outcomes", "values", "distributions"} <= set(entry)
    assert set(entry["outcomes"]["success"]) >= {"before", "after"}
    before = entry["distributions"]["successes"]["before"]
    assert sum(before.values()) == pytest.approx(1.0, abs=1e-9)
