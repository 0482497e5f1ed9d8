"""Dice from a generator drawn in one loop, and kept totals found without finding the kept dice.

A term of plain dice rolled from a generator draws them in one loop (`RandomSource.uniform`) instead of
one `draw` call a die, and a keep that sets one die aside, keeps one or keeps all finds its total
without finding which dice (`keep.kept_total`), leaving `keep.LATER` in the trace for `RawTerm.dropped`
to resolve when read.  Both are shortcuts of one definition: the same seed must give the same dice,
totals and dropped dice as drawing die by die and settling with `keep.dropped`.
"""

from __future__ import annotations

import random

import pytest

import interpreter
from interpreter.dice.expr import parse
from interpreter.dice.keep import LATER, dropped, keep_plan, kept_total
from interpreter.dice.sources import RandomSource
from interpreter.dice.trace import RollTrace

EXPRESSIONS = ["4d6kh3", "4d6kl3", "2d20kh1", "2d20kl1", "5d6dl2", "5d6dh1", "3d6kh1", "3d6kl1", "6d6",
               "3d8+2", "20d10kh5", "4d6kh4", "{4d6kh3, 3d6}kh1", "2d6dl1 + 1d4kh1", "10d3kl9"]


class DieByDie:
    """Random dice drawn one `draw` at a time, as RandomSource.draw draws them, with no `uniform`."""

    uniform = None

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.source = RandomSource(self.rng)

    def draw(self, sides: int) -> int:
        return self.source.draw(sides)

    def draw_face(self, faces: tuple[int, ...]) -> int:
        return self.source.draw_face(faces)


def _seen(trace: RollTrace) -> list[tuple[list[int], frozenset[int] | None, int]]:
    return [(list(t.values), t.dropped, t.result) for t in trace.raw]


@pytest.mark.parametrize("text", EXPRESSIONS)
def test_one_loop_draws_the_same_dice_as_die_by_die(text: str) -> None:
    expr = parse(text)
    kept = interpreter.dice(text)
    for seed in range(150):
        one_loop = kept.roll(random.Random(seed))
        die_by_die = expr.roll({}, DieByDie(seed))
        assert one_loop.value == die_by_die.value, (text, seed)
        assert _seen(one_loop.roll) == _seen(die_by_die), (text, seed)
        assert str(one_loop) == str(interpreter.roll(text, dice=[d.value for d in one_loop.dice]))


@pytest.mark.parametrize("kind", ["kh", "kl", "dh", "dl"])
def test_kept_total_is_the_sum_of_what_dropped_leaves(kind: str) -> None:
    rng = random.Random(7)
    for n in range(1, 7):
        for k in range(n + 1):
            total = kept_total((kind, k), n)
            _, count = keep_plan((kind, k), n)
            assert (total is None) == (count not in (1, n - 1, n) or n == 0)
            for _ in range(40):
                values = [rng.randint(1, 4) for _ in range(n)]
                out = dropped((kind, k), values) or frozenset()
                expected = sum(v for i, v in enumerate(values) if i not in out)
                if total is not None:
                    assert total(values) == expected, (kind, k, values)


def test_the_trace_resolves_a_later_drop_when_read() -> None:
    roll = interpreter.dice("4d6kh3").roll(random.Random(3)).roll
    term = roll.raw[0]
    assert roll.written[0][2] is LATER
    assert term.dropped == dropped(("kh", 3), term.values)
    assert sum(term.kept()) == term.result
