"""Sheet facts said once: a field's flags hold on `points` fields too, and derived values, track sizes and
maxima read them, so a house rule ties a box to a merit without a second flag to keep in step."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import one_line_error

TOUGH = """\
extends: nwod
ruleset: nwod-tough
constants: {health_base: 1}   # a track one box shorter

sheet:
  fields:
    merits: {flags: {tough: Tough}}
  tracks:
    health: {size: "health_base + Stamina * health_per_stamina + (1 if tough else 0)"}
"""


def character(rules, tmp_path: Path, ruleset: str, merits: str | None = None) -> Path:
    path = tmp_path / f"marco{len(list(tmp_path.glob('marco*.yaml')))}.yaml"
    assert rules("sheet", "new", ruleset, "-o", str(path), "--name", "Marco").exit_code == 0
    if merits is not None:
        text = path.read_text(encoding="utf-8")
        old = "  merits: {Contacts: 2, Resources: 2, Allies: 3}"
        assert old in text
        path.write_text(text.replace(old, f"  merits: {merits}"), encoding="utf-8")
    return path


def health_boxes(rules, sheet: Path) -> int:
    shown = json.loads(rules("sheet", "show", str(sheet), "--json").stdout)
    return int(shown["tracks"]["health"]["size"])


def test_a_tough_merit_adds_a_health_box_to_a_track_one_box_shorter(rules, tmp_path):
    """The house rule of a shorter track and a Tough merit: at most 8 non-blank lines, and a sheet listing
    Tough under merits gets one more box with no other flag set."""
    overlay = tmp_path / "tough.yaml"
    overlay.write_text(TOUGH, encoding="utf-8")
    assert len([line for line in TOUGH.splitlines() if line.strip()]) <= 8
    assert rules("validate", str(overlay)).exit_code == 0
    base = health_boxes(rules, character(rules, tmp_path, "nwod"))
    plain = health_boxes(rules, character(rules, tmp_path, str(overlay)))
    tough = character(rules, tmp_path, str(overlay), "{Contacts: 2, Resources: 2, Allies: 2, Tough: 1}")
    assert (plain, health_boxes(rules, tough)) == (base - 1, base)
    assert "tough" not in json.loads(rules("sheet", "show", str(tough), "--json").stdout)["state"]  # the merit says it
    check = rules("sheet", "check", str(tough), "--creation")
    assert check.exit_code == 0, check.output


def test_a_points_field_flag_holds_at_one_point_or_more(rules, tmp_path):
    """A merit written with 0 points is not held; its name in any letter case is."""
    overlay = tmp_path / "tough.yaml"
    overlay.write_text(TOUGH, encoding="utf-8")
    base = health_boxes(rules, character(rules, tmp_path, str(overlay)))
    none = character(rules, tmp_path, str(overlay), "{Contacts: 2, Resources: 2, Allies: 3, Tough: 0}")
    assert health_boxes(rules, none) == base
    cased = character(rules, tmp_path, str(overlay), "{Contacts: 2, Resources: 2, Allies: 2, tOUGH: 1}")
    assert health_boxes(rules, cased) == base + 1


def test_a_derived_value_reads_a_points_field_flag(rules, tmp_path):
    overlay = tmp_path / "hardy.yaml"
    overlay.write_text("extends: nwod\nruleset: nwod-hardy\nderived:\n  hardy: \"2 if tough else 0\"\n"
                       "sheet:\n  fields:\n    merits: {flags: {tough: Tough}}\n", encoding="utf-8")
    sheet = character(rules, tmp_path, str(overlay), "{Contacts: 2, Resources: 2, Allies: 2, Tough: 1}")
    assert json.loads(rules("sheet", "show", str(sheet), "--json").stdout)["derived"]["hardy"] == 2


def test_a_track_size_naming_an_unknown_flag_is_one_located_line(rules, tmp_path):
    overlay = tmp_path / "typo.yaml"
    overlay.write_text(TOUGH.replace("(1 if tough", "(1 if toguh"), encoding="utf-8")
    message = one_line_error(rules("validate", str(overlay)))
    assert message.startswith(f"{overlay}:9:") and "toguh" in message and "tough" in message
