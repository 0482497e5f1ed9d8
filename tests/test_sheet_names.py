"""Number parameters that name sheet values on the command line: a trait's name in any letter case, its label,
traits added together, and a did-you-mean for a typo."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import one_line_error


@pytest.fixture
def grit(tmp_path: Path, rules) -> tuple[Path, Path]:
    """A lockwood overlay with a trait of its own (GRIT 13), and a sheet of it."""
    overlay = tmp_path / "lockwood-grit.yaml"
    overlay.write_text("extends: lockwood\nruleset: lockwood-grit\ntraits:\n"
                       "  GRIT: {label: Grit, group: soul, min: stat_min, max: stat_max, default: 10}\n", encoding="utf-8")
    sheet = tmp_path / "brenna.yaml"
    assert rules("sheet", "new", str(overlay), "-o", str(sheet), "--name", "Brenna").exit_code == 0
    sheet.write_text(sheet.read_text(encoding="utf-8").replace("  GRIT: 10", "  GRIT: 13"), encoding="utf-8")
    return overlay, sheet


def _total(rules, overlay: Path, sheet: Path, stat: str) -> int:
    got = rules("run", str(overlay), "check", f"stat={stat}", "dc=15", "--sheet", str(sheet), "--dice", "10", "--json")
    assert got.exit_code == 0, got.output
    return int(json.loads(got.stdout)["values"]["total"])


@pytest.mark.parametrize("stat", ["GRIT", "grit", "Grit", "gRiT"])
def test_L1_a_stat_named_in_any_letter_case_or_by_its_label_is_the_sheet_value(rules, grit, stat):
    """L1: a check is d20 + the stat; with --sheet the stat may be named."""
    overlay, sheet = grit
    assert _total(rules, overlay, sheet, stat) == 10 + 13


def test_L1_a_misspelt_stat_is_one_line_with_a_suggestion(rules, grit):
    overlay, sheet = grit
    got = rules("run", str(overlay), "check", "stat=GRT", "dc=15", "--sheet", str(sheet))
    assert one_line_error(got) == "parameter 'stat': 'GRT' is not a trait or value of the sheet; did you mean 'GRIT'?"


def test_L1_traits_and_numbers_added_together(rules, grit):
    overlay, sheet = grit
    assert _total(rules, overlay, sheet, "GRIT+2") == 10 + 13 + 2
    assert _total(rules, overlay, sheet, "grit + STR - 1") == 10 + 13 + 11 - 1


def test_L1_a_trait_name_without_a_sheet_says_to_give_one(rules):
    got = rules("run", "lockwood", "check", "stat=str", "dc=15")
    assert one_line_error(got) == ("parameter 'stat' must be a whole number, not 'str'; "
                                   "'STR' is a trait: give --sheet FILE to read it from a character sheet")


@pytest.fixture
def marco(tmp_path: Path, rules) -> Path:
    sheet = tmp_path / "marco.yaml"
    assert rules("sheet", "new", "nwod", "-o", str(sheet), "--name", "Marco").exit_code == 0
    return sheet


def _action(rules, sheet: Path | None, *params: str, dice: str) -> dict:
    extra = ["--sheet", str(sheet)] if sheet is not None else []
    got = rules("run", "nwod", "action", *params, *extra, "--dice", dice, "--json")
    assert got.exit_code == 0, got.output
    return dict(json.loads(got.stdout))


def test_N1_a_pool_of_traits_added_together_as_the_help_suggests(rules, marco):
    """N1: the pool is an attribute plus a skill (Dexterity 3 + Firearms 2 on a new sheet), one d10 each."""
    named = _action(rules, marco, "pool=Dexterity+Firearms", dice="8,1,9,2,10,3")
    assert [d["value"] for d in named["rolls"][0]["dice"]] == [8, 1, 9, 2, 10, 3]  # 5 dice, and the 10 explodes
    assert named["values"]["successes"] == 3
    for other in ("dexterity+firearms", "Dexterity + Firearms", "DEXTERITY+firearms"):
        assert _action(rules, marco, f"pool={other}", dice="8,1,9,2,10,3")["values"] == named["values"]
    got = rules("run", "nwod", "action", "pool=Dexterity+Firarms", "--sheet", str(marco))
    assert one_line_error(got) == ("parameter 'pool': 'Firarms' is not a trait or value of the sheet; "
                                   "did you mean 'Firearms'?")


def test_N10_a_skill_named_in_another_case_still_finds_its_specialty(rules, marco):
    """N10: a specialty adds a die only where the sheet has one in that skill (Firearms has two)."""
    with_specialty = _action(rules, marco, "pool=Dexterity", "skill=firearms", "specialty=true", dice="1,1,1,1,1,1")
    assert len(with_specialty["rolls"][0]["dice"]) == 3 + 2 + 1
    got = rules("run", "nwod", "action", "pool=Dexterity", "skill=athletics", "specialty=true", "--sheet", str(marco))
    assert one_line_error(got).endswith("the sheet has no specialty in that skill (choices.specialties, N10)")


def test_N12_a_trait_parameter_takes_the_name_in_any_case(rules, marco):
    """N12: buying a dot of a trait with experience; the trait's name may be typed in another case."""
    marco.write_text(marco.read_text(encoding="utf-8").replace("  experience: 0", "  experience: 30"), encoding="utf-8")
    got = rules("run", "nwod", "buy", "trait=firearms", "--sheet", str(marco), "--dry-run", "--json")
    assert got.exit_code == 0, got.output
    changes = {c["path"]: (c["old"], c["new"]) for c in json.loads(got.stdout)["changes"]}
    assert changes["traits.Firearms"] == (2, 3)


def test_a_flag_word_is_a_flag_even_with_a_sheet(rules, marco):
    plain = _action(rules, marco, "pool=2", "specialty=false", dice="1,1")
    assert plain["values"]["successes"] == 0
