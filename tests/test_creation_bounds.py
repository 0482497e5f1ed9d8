"""Creation rules and track sizes are bounded before the work starts: a cost that does not read `dot` is
counted in one step, points fields spread in closed form, everything else refused past a stated limit,
and a box track is never made larger than MAX_TRACK_BOXES. Each of these once hung or ran out of memory."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from interpreter import limits
from interpreter.ruleset.model import SheetField
from interpreter.sheet.new_character import Unmet, _meet_points

BOUNDED = """\
ruleset: bounded
title: Bounded
constants: {base: 0, total: 6, merit_points: 7, per: 2}
traits:
  A: {min: 1, max: 5, default: 1}
  B: {min: 1, max: 5, default: 1}
procedures:
  noop:
    outcomes: {done: done}
    steps:
      - decide: [{outcome: done}]
sheet:
  fields:
    merits: {kind: points, total: merit_points, default: {X: 1, Y: 1}}
  tracks:
    health: {kind: boxes, size: 2 + A * per, types: [hit]}
  creation:
    - {budget: stats, traits: [A, B], total: total, base: base}
"""

SHEET = """\
ruleset: r.yaml
name: Ada
traits: {A: 3, B: 3}
choices:
  merits: {X: 4, Y: 3}
state:
  health: [null, null, null, null, null, null, null, null]
"""


def write(tmp_path: Path, ruleset: str = BOUNDED, sheet: str | None = None) -> tuple[Path, Path]:
    path = tmp_path / "r.yaml"
    path.write_text(ruleset, encoding="utf-8")
    sheet_path = tmp_path / "s.yaml"
    if sheet is not None:
        sheet_path.write_text(sheet, encoding="utf-8")
    return path, sheet_path


def one_line(result) -> str:
    assert result.exit_code == 1, result.stdout
    lines = result.stderr.strip("\n").split("\n")
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def quick(started: float) -> None:
    assert time.process_time() - started < 5, "a guard against the old hours of work, not a measurement"


def test_the_test_ruleset_and_sheet_are_valid(rules, tmp_path):
    path, sheet = write(tmp_path, sheet=SHEET)
    assert rules("validate", str(path)).exit_code == 0
    assert rules("sheet", "check", "--creation", str(sheet)).exit_code == 0, rules("sheet", "check", str(sheet)).stderr


def test_a_budget_whose_base_is_far_below_counts_in_one_step(rules, tmp_path):
    """`base: -1000000000000` once hung `validate` and `sheet new` (one loop pass per dot)."""
    path, _ = write(tmp_path, BOUNDED.replace("base: 0,", "base: -1000000000000,"))
    started = time.process_time()
    result = rules("validate", str(path))
    assert result.exit_code == 0 and "2000000000002 points spent; the budget is 6" in result.stderr
    line = one_line(rules("sheet", "new", str(path), "-o", str(tmp_path / "new.yaml")))
    assert line.startswith("a new bounded sheet cannot meet creation rule 'stats': ")
    quick(started)
    assert not (tmp_path / "new.yaml").exists()


def test_a_trait_at_the_largest_number_is_counted_in_one_step(rules, tmp_path):
    """A trait of 9223372036854775807 once hung `sheet check --creation` while `sheet check` said valid."""
    _, sheet = write(tmp_path, BOUNDED.replace("B: {min: 1, max: 5, default: 1}", "B: {min: 1, default: 1}"),
                     SHEET.replace("B: 3", "B: 9223372036854775807"))
    started = time.process_time()
    line = one_line(rules("sheet", "check", "--creation", str(sheet)))
    assert line == f"{sheet}:3:10: $.traits.A: stats: 9223372036854775810 points spent; the budget is 6"
    quick(started)


def test_a_cost_that_reads_dot_is_counted_dot_by_dot_up_to_a_limit(rules, tmp_path):
    ruleset = BOUNDED.replace("B: {min: 1, max: 5, default: 1}", "B: {min: 1, default: 1}").replace(
        "total: total, base: base}", "total: total, base: base, dot_cost: 'dot // 5 + 1'}")
    _, sheet = write(tmp_path, ruleset, SHEET.replace("B: 3", "B: 9223372036854775807"))
    started = time.process_time()
    line = one_line(rules("sheet", "check", "--creation", str(sheet)))
    assert line.startswith(f"{sheet}:3:10: $.traits.A: stats: counting the cost of B dot by dot would take more "
                           f"than {limits.MAX_CREATION_DOTS} dots (B is 9223372036854775807, the base 0)")
    quick(started)
    assert rules("sheet", "check", str(sheet)).exit_code == 0  # the standing rules count no cost


def test_a_budget_that_needs_too_many_moves_is_refused_with_the_limit(rules, tmp_path):
    ruleset = BOUNDED.replace("A: {min: 1, max: 5, default: 1}", "A: {min: 1, default: 1}").replace(
        "total: 6,", "total: 1000000000000,")
    path, _ = write(tmp_path, ruleset)
    started = time.process_time()
    line = one_line(rules("sheet", "new", str(path), "-o", str(tmp_path / "new.yaml")))
    assert line == ("a new bounded sheet cannot meet creation rule 'stats': spending 1000000000000 points on A, B "
                    f"would take more than {limits.MAX_CREATION_MOVES} moves of one dot (they reach 5006); "
                    "change the constants it uses")
    quick(started)


def test_a_huge_points_total_is_spread_in_one_step(rules, tmp_path):
    """`total: 1e12` of a points field once hung `sheet new`: the points moved one at a time."""
    path, _ = write(tmp_path, BOUNDED.replace("merit_points: 7", "merit_points: 1000000000001"))
    started = time.process_time()
    new = tmp_path / "new.yaml"
    assert rules("sheet", "new", str(path), "-o", str(new)).exit_code == 0
    assert "merits: {X: 500000000001, Y: 500000000000}" in new.read_text(encoding="utf-8")
    quick(started)


def one_at_a_time(entries: dict[str, int], total: int) -> dict[str, int]:
    """The spreading rule of a points field as docs/format.md words it: a point at a time, in turn."""
    entries = dict(entries)
    points = sum(entries.values())
    while points != total:
        moved = False
        for name in entries:
            if points < total:
                entries[name] += 1
                points += 1
                moved = True
            elif points > total and entries[name] > 1:
                entries[name] -= 1
                points -= 1
                moved = True
            if points == total:
                break
        if not moved:
            raise Unmet("f", "cannot")
    return entries


FIELD = SheetField("merits", "points", None, False, None, (), None, "")


@given(st.dictionaries(st.sampled_from("ABCDEF"), st.integers(-3, 12), min_size=1), st.integers(-5, 60))
def test_points_spread_in_closed_form_as_one_point_at_a_time(entries, total):
    try:
        expected = one_at_a_time(entries, total)
    except Unmet:
        with pytest.raises(Unmet):
            _meet_points(FIELD, entries, total)
        return
    assert _meet_points(FIELD, entries, total) == expected


def test_points_spread_in_closed_form_on_large_numbers():
    rng = random.Random(3)
    entries = {f"m{i}": rng.randrange(1, 10**6) for i in range(50)}
    got = _meet_points(FIELD, entries, 10**7)
    assert sum(got.values()) == 10**7 and all(v >= 1 for v in got.values())


# ----------------------------------------------------------------------------- track sizes


def test_a_written_track_size_past_the_limit_is_refused_by_the_schema(rules, tmp_path):
    """`size: 100000000` once took 2 GB and exit 3 in `validate` and `sheet new`."""
    path, _ = write(tmp_path, BOUNDED.replace("size: 2 + A * per", "size: 100000000"))
    line = one_line(rules("validate", str(path)))
    assert line == f"{path}:16:33: $.sheet.tracks.health.size: must be at most {limits.MAX_TRACK_BOXES}, not 100000000"
    assert one_line(rules("sheet", "new", str(path), "-o", str(tmp_path / "n.yaml"))) == line


@pytest.mark.parametrize("value", ["4000000000000", "40000000"])
def test_a_computed_track_size_past_the_limit_is_refused_at_the_trait(rules, tmp_path, value):
    """`2 + STA * 2` with STA 4000000000000 once ended in MemoryError; at 40000000 it was "valid" after 1.27 GB."""
    path, sheet = write(tmp_path, BOUNDED.replace("A: {min: 1, max: 5, default: 1}", "A: {min: 1, default: 1}"),
                        SHEET.replace("A: 3", f"A: {value}"))
    started = time.process_time()
    for command in (["sheet", "check", str(sheet)], ["sheet", "show", str(sheet)],
                    ["run", str(path), "noop", "--sheet", str(sheet)]):
        line = one_line(rules(*command))
        boxes = 2 + int(value) * 2
        assert line == (f"{sheet}:3:13: $.traits.A: track 'health' would have {boxes} boxes (2 + A * per); "
                        f"a track has at most {limits.MAX_TRACK_BOXES}")
    quick(started)


def test_a_default_track_size_past_the_limit_is_refused_where_the_ruleset_says_it(rules, tmp_path):
    path, _ = write(tmp_path, BOUNDED.replace("per: 2}", "per: 2000}"))
    line = one_line(rules("validate", str(path)))
    assert line.startswith(f"{path}:16:33: $.sheet.tracks.health.size: track 'health' would have 2002 boxes")
