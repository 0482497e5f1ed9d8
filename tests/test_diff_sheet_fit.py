"""`rules diff BASE HOUSE --sheet FILE` with a character the house rule no longer fits: still compared,
the house side reading the sheet adapted, with one line saying what did not fit."""

from __future__ import annotations

import json

import pytest


@pytest.fixture
def marco(rules, tmp_path):
    sheet = tmp_path / "marco.yaml"
    assert rules("sheet", "new", "nwod", "-o", str(sheet), "--name", "Marco").exit_code == 0
    return sheet


def overlay(tmp_path, text: str):
    path = tmp_path / "house.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_track_one_box_shorter_is_compared_on_the_base_character(rules, tmp_path, marco):
    house = overlay(tmp_path, "extends: nwod\nruleset: nwod-short\nconstants:\n  health_base: 1\n")
    written = marco.read_bytes()
    result = rules("diff", "nwod", str(house), "--sheet", str(marco))
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    [unfit] = [line for line in lines if "does not fit" in line]
    assert unfit == ("  (it does not fit nwod-short as written: state.health: 6 boxes; the track has 5; "
                     "nwod-short reads it adapted)")
    assert "  health_size: 6 → 5" in lines  # Stamina 2: 2 + 2*2 before, 1 + 2*2 after
    got = json.loads(rules("diff", "nwod", str(house), "--sheet", str(marco), "--json").stdout)
    assert got["sheet"]["unfit"] == [{"ruleset": "nwod-short", "message": "state.health: 6 boxes; the track has 5"}]
    [damage] = [c for c in got["odds"] if c["procedure"] == "take_damage" and c["params"]["amount"] == 2]
    assert damage["values"]["boxes_left"]["before"] == 6 - 2 and damage["values"]["boxes_left"]["after"] == 5 - 2
    assert marco.read_bytes() == written  # the file is not changed


def test_marked_boxes_past_the_new_size_keep_the_worst(rules, tmp_path, marco):
    text = marco.read_text(encoding="utf-8").replace(
        "health: [null, null, null, null, null, null]", "health: [lethal, bashing, bashing, null, null, null]")
    marco.write_text(text, encoding="utf-8")
    house = overlay(tmp_path, "extends: nwod\nruleset: nwod-shorter\nconstants:\n  health_base: 0\n")
    got = json.loads(rules("diff", "nwod", str(house), "--sheet", str(marco), "--json").stdout)
    assert got["sheet"]["unfit"] == [{"ruleset": "nwod-shorter", "message": "state.health: 6 boxes; the track has 4"}]
    [damage] = [c for c in got["odds"] if c["procedure"] == "take_damage" and c["params"]["amount"] == 2]
    # three boxes marked on both sides; two more lethal: 6 - 5 left before, 4 - 5 -> none left after
    assert damage["values"]["boxes_left"]["before"] == 1
    assert damage["values"]["boxes_left"]["after"] == 0


def test_a_trait_past_the_new_range_is_brought_to_its_end(rules, tmp_path):
    sheet = tmp_path / "hero.yaml"
    assert rules("sheet", "new", "lockwood", "-o", str(sheet)).exit_code == 0
    sheet.write_text(sheet.read_text(encoding="utf-8").replace("  STR: 11 ", "  STR: 14 ").replace(
        "  PER: 11 ", "  PER: 8 "), encoding="utf-8")
    assert rules("sheet", "check", str(sheet)).exit_code == 0
    house = overlay(tmp_path, "extends: lockwood\nruleset: lockwood-low\nconstants:\n  stat_max: 12\n")
    result = rules("diff", "lockwood", str(house), "--sheet", str(sheet))
    assert result.exit_code == 0, result.stderr
    assert "  (it does not fit lockwood-low as written: traits.STR: 14 is above the most, 12; " in result.stdout
    assert "  STR: 14 → 12" in result.stdout.splitlines()


def test_a_sheet_of_another_ruleset_is_still_refused_in_one_line(rules, tmp_path, marco):
    house = overlay(tmp_path, "extends: lockwood\nruleset: lockwood-low\nconstants:\n  stat_max: 12\n")
    result = rules("diff", "lockwood", str(house), "--sheet", str(marco))
    assert result.exit_code == 1
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"{marco}:") and "not 'lockwood'" in line
