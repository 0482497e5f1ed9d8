"""Issue 16: box tracks drawn with marks stay marks when a procedure changes them (N16, N18).

A sheet may write a box track as a list of type words, as a list of the track's marks, or as
one line of text drawn with the marks (`"*X/___"`, `_` for an empty box, as `rules sheet show`
draws it). After a change only the changed boxes differ, byte for byte.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest
from helpers import edited_copy
from test_sheets_nwod import EMPTY6, write


def changed_bytes(before: bytes, after: bytes) -> list[tuple[bytes, bytes]]:
    """The differing byte runs between two files, in order."""
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    return [(before[i1:i2], after[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def damage(rules, path: Path, amount: int, kind: str, ref: str = "nwod") -> dict:
    result = rules("run", ref, "take_damage", f"amount={amount}", f"type={kind}", "--sheet", str(path), "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def shown_drawing(rules, path: Path) -> str:
    return json.loads(rules("sheet", "show", str(path), "--json").stdout)["tracks"]["health"]["drawn"]


def test_N16_a_track_drawn_as_text_stays_text_and_only_the_changed_box_differs(rules, tmp_path):
    path = write(tmp_path, (EMPTY6, 'health: "*XX//_"   # drawn'))
    before = path.read_bytes()
    assert rules("sheet", "check", str(path)).exit_code == 0
    assert shown_drawing(rules, path) == "*XX//_"
    data = damage(rules, path, 1, "lethal")     # N16: one more lethal on *XX// gives *XXX//
    after = path.read_bytes()
    start = before.index(b'"*XX//_"') + 1
    assert len(after) == len(before)
    assert [i - start for i in range(len(before)) if before[i] != after[i]] == [3, 5]  # boxes 4 and 6
    assert after == before.replace(b'"*XX//_"', b'"*XXX//"')
    assert data["changes"] == [{"path": "state.health", "old": "*XX//_", "new": "*XXX//"}]
    assert shown_drawing(rules, path) == "*XXX//"


@pytest.mark.parametrize("drawing,edited", [
    ('health: ["*", X, null, null, null, null]', 'health: ["*", X, "/", null, null, null]'),
    ("health:\n    - '*'\n    - X      # lethal\n    - ~\n    - null\n    -\n    - null",
     "health:\n    - '*'\n    - X      # lethal\n    - \"/\"\n    - null\n    -\n    - null"),
])
def test_N16_a_list_of_marks_stays_marks_and_only_the_changed_box_differs(rules, tmp_path, drawing, edited):
    path = write(tmp_path, (EMPTY6, drawing))
    before = path.read_bytes()
    damage(rules, path, 1, "bashing")
    after = path.read_bytes()
    assert after == before.replace(drawing.encode(), edited.encode())
    assert len(changed_bytes(before, after)) == 1        # one run of bytes: the box that changed
    assert shown_drawing(rules, path) == "*X/___"


def test_N18_a_full_drawn_track_promotes_in_place(rules, tmp_path):
    path = write(tmp_path, (EMPTY6, "health: XX////"))
    before = path.read_bytes()
    damage(rules, path, 1, "lethal")      # full: the leftmost bashing becomes lethal (N18)
    assert path.read_bytes() == before.replace(b"health: XX////", b"health: XXX///")


def test_a_track_of_words_stays_words_and_an_empty_one_is_written_in_words(rules, tmp_path):
    path = write(tmp_path, (EMPTY6, "health: [lethal, null, null, null, null, null]"))
    damage(rules, path, 1, "aggravated")
    assert b"health: [aggravated, lethal, null, null, null, null]" in path.read_bytes()
    empty = write(tmp_path, name="empty.yaml")
    damage(rules, empty, 1, "bashing")
    assert b"health: [bashing, null, null, null, null, null]" in empty.read_bytes()


def test_drawn_text_with_an_unknown_mark_is_refused_at_the_track(rules, tmp_path):
    path = write(tmp_path, (EMPTY6, "health: X*Q___"))
    result = rules("sheet", "check", str(path))
    assert result.exit_code == 1
    line = next(i for i, x in enumerate(path.read_text().splitlines()) if "health:" in x) + 1
    assert result.output.strip() == (f"{path}:{line}:11: $.state.health: 'Q' is not a mark of health "
                                     "(* X /, or _ for an empty box)")


def test_text_is_refused_for_a_track_whose_marks_are_longer_than_a_character(rules, tmp_path):
    copy = edited_copy(tmp_path, "nwod", ('marks: ["*", X, /]', 'marks: ["*", XX, /]'))
    path = write(tmp_path, (EMPTY6, "health: X_____"), ("ruleset: nwod", f"ruleset: {copy.name}"))
    result = rules("sheet", "check", str(path))
    assert result.exit_code == 1
    assert result.output.strip().endswith(
        "$.state.health: state.health is drawn as text, but its marks are not one character each; "
        "write a list of boxes (a damage type or null each)")
