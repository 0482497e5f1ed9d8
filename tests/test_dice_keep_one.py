"""Keep/drop is one function (dice.keep.dropped): its shortcuts for one die kept or one dropped must set
aside the dice a plain sort would, and the roller, groups and pool reading must all follow it."""

from __future__ import annotations

import itertools

import pytest

from interpreter.dice.expr import parse
from interpreter.dice.keep import dropped
from interpreter.dice.roller import compile_node
from interpreter.dice.sources import GivenSource
from interpreter.dice.syntax import parse_tree
from interpreter.dice.trace import RawTuple, as_record


def sorted_rule(kind: str, k: int, dice: tuple[int, ...]) -> frozenset[int]:
    """Written out here, independently: sort the indices (ties by position), keep the first so many."""
    n = len(dice)
    from_top = kind in ("kh", "dl")
    count = k if kind in ("kh", "kl") else n - k
    count = max(0, min(count, n))
    order = sorted(range(n), key=lambda i: dice[i], reverse=from_top)
    return frozenset(order[count:])


@pytest.mark.parametrize(("kind", "n", "k"), [
    (kind, n, k) for kind in ("kh", "kl", "dh", "dl") for n in (1, 2, 3, 4) for k in range(n + 2)])
def test_keep_follows_the_sorted_rule(kind: str, n: int, k: int) -> None:
    """Every throw of n d4 (ties included): the roller's trace sets aside what the sorted rule does."""
    run = compile_node(parse_tree(f"{n}d4{kind}{k}"))
    assert callable(run)
    for dice in itertools.product(range(1, 5), repeat=n):
        expected = sorted_rule(kind, k, dice)
        assert (dropped((kind, k), dice) or frozenset()) == expected
        traces: list[RawTuple] = []
        got = run({}, GivenSource(dice).draw, [0, 0, None], traces)
        assert (as_record(traces[0]).dropped or frozenset()) == expected
        assert got == sum(v for i, v in enumerate(dice) if i not in expected)


def test_2d20kh1_keeps_the_first_of_a_tie() -> None:
    """Of two equal dice the first is kept and the second dropped."""
    run = compile_node(parse_tree("2d20kh1"))
    assert callable(run)
    traces: list[RawTuple] = []
    assert run({}, GivenSource([7, 7]).draw, [0, 0, None], traces) == 7
    assert as_record(traces[0]).dropped == frozenset({1})


@pytest.mark.parametrize("kind", ["kh", "kl", "dh", "dl"])
def test_a_group_keeps_members_by_the_same_rule(kind: str) -> None:
    """A group's keep of whole members sets aside the members the sorted rule names, all their dice."""
    for dice in itertools.product(range(1, 4), repeat=3):
        roll = parse(f"{{1d3, 1d3, 1d3}}{kind}1").roll({}, GivenSource(dice))
        expected = sorted_rule(kind, 1, dice)
        assert [not d.kept for d in roll.dice] == [i in expected for i in range(3)]
        assert roll.value == sum(v for i, v in enumerate(dice) if i not in expected)
