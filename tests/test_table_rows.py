"""A table's rows as sorted ranges: the row a key lands on, and the faces no row covers or the keys no face
stands for, checked against a brute force over every key (the rows were walked key by key)."""

from __future__ import annotations

import random

import pytest

from interpreter.pipeline import compile_ref


def _write(tmp_path, rows: list[tuple[int, int]], die: str | None = None, default: bool = False):
    lines = ["ruleset: t", "title: T", "tables:", "  t:"] + ([f"    die: {die}"] if die else []) + ["    rows:"]
    lines += [f"      - {{on: [{low}, {high}], value: {i}}}" for i, (low, high) in enumerate(rows)]
    lines += ["    default: {value: -1}"] if default else []
    lines += ["procedures: {}"]
    path = tmp_path / "t.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _apart(rng: random.Random, count: int) -> list[tuple[int, int]]:
    """Ranges that do not overlap, some with gaps between them, in a shuffled order."""
    out, at = [], rng.randint(-20, 5)
    for _ in range(count):
        at += rng.choice((0, 0, 1, 3))
        width = rng.randint(0, 4)
        out.append((at, at + width))
        at += width + 1
    rng.shuffle(out)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_a_key_lands_on_the_row_covering_it_whatever_the_order_of_the_rows(tmp_path, seed):
    rng = random.Random(seed)
    rows = _apart(rng, rng.randint(1, 30))
    default = seed % 2 == 0
    table = compile_ref(str(_write(tmp_path, rows, default=default))).tables["t"]
    for key in range(min(r[0] for r in rows) - 3, max(r[1] for r in rows) + 4):
        covering = [i for i, (low, high) in enumerate(rows) if low <= key <= high]
        row = table.row_for(key)
        if covering:
            assert row is table.rows[covering[0]], key
        else:
            assert row is (table.default if default else None), key


def _listed(numbers: list[int], total: int) -> str:
    text = ", ".join(str(n) for n in numbers[:8])
    return text + (f" and {total - 8} more" if total > 8 else "")


@pytest.mark.parametrize("seed", range(6))
def test_faces_without_a_row_and_keys_no_face_stands_for_are_those_a_brute_force_finds(rules, tmp_path, seed):
    rng = random.Random(seed)
    rows = _apart(rng, rng.randint(1, 12))
    path = _write(tmp_path, rows, die="1d8*3")
    faces = {3 * f for f in range(1, 9)}
    covered = {k for low, high in rows for k in range(low, high + 1)}
    missing, extra = sorted(faces - covered), sorted(covered - faces)
    result = rules("validate", str(path))
    if not missing and not extra:
        assert result.exit_code == 0, result.stderr
        return
    assert result.exit_code == 1
    if missing:
        assert f"has no row for {_listed(missing, len(missing))}, which 1d8*3 can roll" in result.stderr
    if extra:
        assert f"has rows for {_listed(extra, len(extra))}, which 1d8*3 cannot roll" in result.stderr
        first = next(i for i, (low, high) in enumerate(rows) if low <= extra[0] <= high)
        assert f"$.tables.t.rows[{first}].on: table 't' has rows for" in result.stderr


def test_each_row_overlapping_an_earlier_one_is_one_problem(rules, tmp_path):
    path = _write(tmp_path, [(1, 6), (3, 4), (6, 9), (20, 21)])
    result = rules("validate", str(path))
    assert result.exit_code == 1
    assert "rows[1].on: table 't': row 2 overlaps row 1" in result.stderr
    assert "rows[2].on: table 't': row 3 overlaps row 1" in result.stderr
    assert "row 4" not in result.stderr
