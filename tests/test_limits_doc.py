"""docs/limits.md lists every limit of interpreter.limits, with the value the code keeps."""

from __future__ import annotations

import json
import re
from pathlib import Path

from interpreter import limits
from interpreter.load.bundled import schema_path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "limits.md"
ROW = re.compile(r"^\| `([A-Z][A-Z0-9_]*)` \| ([^|]+) \|", re.MULTILINE)


def table() -> dict[str, float]:
    """The names and values of the page's "Every limit" table."""
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("## Every limit"):]
    return {name: _number(cell.split()[0].replace(",", "")) for name, cell in ROW.findall(section)}


def _number(text: str) -> float:
    return int(text) if re.fullmatch(r"-?[0-9]+", text) else float(text)  # (an int exactly: 2**63 - 1 is no float)


def code() -> dict[str, float]:
    return {name: value for name, value in vars(limits).items()
            if name.isupper() and isinstance(value, (int, float)) and not isinstance(value, bool)}


def test_every_limit_of_the_code_is_in_the_table_with_its_value():
    documented, kept = table(), code()
    assert sorted(documented) == sorted(kept), "the table and interpreter/limits.py name different limits"
    wrong = {name: (documented[name], value) for name, value in kept.items() if documented[name] != value}
    assert not wrong, f"the table gives other values than the code (documented, code): {wrong}"


def test_every_limit_the_page_names_exists():
    named = set(re.findall(r"`((?:MAX|CACHE|INT|LOCK|TRUNCATION)_[A-Z0-9_]+)`", PAGE.read_text(encoding="utf-8")))
    assert named <= set(code()), named - set(code())


def test_the_schema_bounds_a_written_track_size_by_the_same_limit():
    schema = json.loads(schema_path().read_text(encoding="utf-8"))
    track = schema["properties"]["sheet"]["properties"]["tracks"]["additionalProperties"]
    assert track["properties"]["size"]["maximum"] == limits.MAX_TRACK_BOXES


def test_the_pages_on_dice_and_limits_give_the_cut_off_the_code_uses():
    """The explosion cut-off: dice.md and limits.md once gave two different numbers."""
    assert limits.TRUNCATION_MASS == 1e-15
    for page in ("dice.md", "limits.md"):
        text = (PAGE.parent / page).read_text(encoding="utf-8")
        assert "below\n10⁻¹⁵" in text or "below 10⁻¹⁵" in text, page
        assert "10⁻¹³" not in text, page
