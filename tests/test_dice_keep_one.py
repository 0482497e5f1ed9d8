"""Keeping one die (or dropping one) takes a path without sorting; its trace must be the sorted path's."""

from __future__ import annotations

import itertools

import pytest

from interpreter.dice.roller import compile_node, roll_spec
from interpreter.dice.sources import GivenSource
from interpreter.dice.syntax import parse_tree
from interpreter.dice.term import make_spec


def sorted_path(kind: str, n: int, k: int, dice: tuple[int, ...]) -> tuple[int, list[tuple[object, ...]]]:
    """The general roller (it sorts to choose the kept dice), on given dice."""
    spec = make_spec(f"{n}d4{kind}{k}", 1, n, 4, None, False, None, False, (kind, k), None, None)
    traces: list[tuple[object, ...]] = []
    value = roll_spec(spec, GivenSource(dice).draw, [0, 0, None], traces, False)
    return value, traces


@pytest.mark.parametrize(("kind", "n", "k"), [
    (kind, n, k) for kind in ("kh", "kl", "dh", "dl") for n in (2, 3, 4) for k in range(n + 1)])
def test_keep_one_matches_the_sorted_path(kind: str, n: int, k: int) -> None:
    """Every throw of n d4 (ties included): the same value, the same kept and dropped dice."""
    run = compile_node(parse_tree(f"{n}d4{kind}{k}"))
    assert callable(run)
    for dice in itertools.product(range(1, 5), repeat=n):
        traces: list[tuple[object, ...]] = []
        got = run({}, GivenSource(dice).draw, [0, 0, None], traces)
        expected, expected_traces = sorted_path(kind, n, k, dice)
        assert got == expected
        assert [t[1:] for t in traces] == [t[1:] for t in expected_traces]
        kept = [v for i, v in enumerate(dice) if not traces[0][2] or i not in traces[0][2]]
        assert sum(kept) == got  # an independent check of the value from the dice it says it kept


def test_2d20kh1_keeps_the_first_of_a_tie() -> None:
    """Of two equal dice the first is kept and the second dropped, as the sorted path does."""
    run = compile_node(parse_tree("2d20kh1"))
    assert callable(run)
    traces: list[tuple[object, ...]] = []
    assert run({}, GivenSource([7, 7]).draw, [0, 0, None], traces) == 7
    assert traces[0][2] == frozenset({1})
