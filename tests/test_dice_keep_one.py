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
        got = run({}, GivenSource(dice).draw, [0, 0, None, None], traces)
        assert (as_record(traces[0]).dropped or frozenset()) == expected
        assert got == sum(v for i, v in enumerate(dice) if i not in expected)


def test_2d20kh1_keeps_the_first_of_a_tie() -> None:
    """Of two equal dice the first is kept and the second dropped."""
    run = compile_node(parse_tree("2d20kh1"))
    assert callable(run)
    traces: list[RawTuple] = []
    assert run({}, GivenSource([7, 7]).draw, [0, 0, None, None], traces) == 7
    assert as_record(traces[0]).dropped == frozenset({1})


@pytest.mark.parametrize("kind", ["kh", "kl", "dh", "dl"])
def test_a_group_keeps_members_by_the_same_rule(kind: str) -> None:
    """A group's keep of whole members sets aside the members the sorted rule names, all their dice."""
    for dice in itertools.product(range(1, 4), repeat=3):
        roll = parse(f"{{1d3, 1d3, 1d3}}{kind}1").roll({}, GivenSource(dice))
        expected = sorted_rule(kind, 1, dice)
        assert [not d.kept for d in roll.dice] == [i in expected for i in range(3)]
        assert roll.value == sum(v for i, v in enumerate(dice) if i not in expected)


def test_every_written_modifier_is_resolved_by_its_name() -> None:
    """tree.Mods (as written) and term.Modifiers (resolved) name the same modifiers, so a term's
    parameters are found and resolved field by field, in the same order both ways."""
    from interpreter.dice.term import MOD_FIELDS, Modifiers, parameter_nodes, spec_for
    from interpreter.record import fields

    assert tuple(f.name for f in fields(Modifiers)) == MOD_FIELDS
    tree = parse_tree("(2+1)d(4+2)r(1)x(6)kh(2)cs>=(5)df(1)mi(2)ma(5)")
    params = parameter_nodes(tree)  # type: ignore[arg-type]
    assert len(params) == 2 + len(MOD_FIELDS)
    given = {"reroll": 2, "explode": 6, "keep": 2, "success": 5, "deduct": 1, "least": 2, "most": 6}
    args = [7, 8, *(given.get(name) if p is not None else None for name, p in zip(MOD_FIELDS, params[2:], strict=True))]
    spec = spec_for(tree, args)  # type: ignore[arg-type]
    assert (spec.count, spec.sides, spec.keep, spec.tests) == (7, 8, ("kh", 2), ((">=", 5), ("==", 1)))
    assert spec.reroll is not None and spec.reroll[1] and spec.reroll[2] and not spec.reroll[3]
    assert spec.explode is not None and [spec.explode[v] for v in range(1, 9)] == [False] * 5 + [True] * 3
    assert spec.shown[1:] == (2, 2, 3, 4, 5, 6, 6, 6)
