"""The size a hover foresees for a dice expression is an upper bound of the real one (icepool as the oracle),
and an expression of millions of values is told too large from its text alone, at once."""

from __future__ import annotations

import time

import icepool
import pytest

from interpreter.dice.expr import parse
from interpreter.lsp.estimate import MAX_VALUES, size_of

ORACLE = {
    "3d6": 3 @ icepool.d(6),
    "4d6kh3": icepool.d(6).highest(4, 3),
    "5d10kl2": icepool.d(10).lowest(5, 2),
    "2d6*2d6": (2 @ icepool.d(6)) * (2 @ icepool.d(6)),
    "1d20+5": icepool.d(20) + 5,
    "2d10-1d4": (2 @ icepool.d(10)) - icepool.d(4),
    "-1d8+1d12": -icepool.d(8) + icepool.d(12),
}


@pytest.mark.parametrize("text", sorted(ORACLE))
def test_the_foreseen_size_holds_the_real_distribution(text):
    outcomes = list(ORACLE[text].outcomes())
    size = size_of(parse(text).tree, {})
    assert size.low <= min(outcomes) and max(outcomes) <= size.high
    assert len(outcomes) <= size.values and size.fits


def test_names_are_read_from_constants_and_named_dice():
    size = size_of(parse("(n)d6 + boost").tree, {"n": 4, "boost": parse("1d4")})
    outcomes = list((4 @ icepool.d(6) + icepool.d(4)).outcomes())
    assert size.low <= min(outcomes) and max(outcomes) <= size.high and len(outcomes) <= size.values
    assert not size_of(parse("(n)d6").tree, {}).fits  # a name it cannot tell is not built


@pytest.mark.parametrize("text", ["3d1000+1d1000*3000", "1d1000*1000+1d1000", "1000d1000"])
def test_millions_of_values_are_told_too_large_at_once(text):
    started = time.process_time()
    size = size_of(parse(text).tree, {})
    assert not size.fits and (size.values > MAX_VALUES or size.work > 0)
    assert time.process_time() - started < 0.05
