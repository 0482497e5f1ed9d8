"""Pools read only for sums (dice.additive) against the general multiset walk (dice.pool.walk).

Both fold the same statistic definitions (dice.statistic); the convolution adds up what each die
reads, the walk places every count of every face.  Random pools (single terms and groups of symbol
and numbered dice, kinds of no dice among them) must give the same joint weights; a group of six
kinds read for net symbols is checked against enumeration of every throw.
"""

from __future__ import annotations

import itertools
import random
import re
from collections import Counter

import pytest

from interpreter.dice.additive import additive
from interpreter.dice.expr import parse
from interpreter.dice.pool import RESULT, parse_statistic, pool_odds, term_faces, walk
from interpreter.dice.reading import read_odds
from interpreter.dice.statistic import fold_for
from interpreter.dice.throws import pools

SYMBOL_DICE = ["d{blank,S,S,SS,A,A,SA,AA}", "d{blank,F,FF,T,T,T,TT,FT}", "d{blank,blank,S,SA,AA,A}",
               "d{blank,S,STr,A}", "d{F,FDe,blank}"]
NUMBERED = ["d6", "d4", "d10cs>=8", "d{0,0,1,1,1,2}", "d8r1", "dF", "d{-2,0,3}", "d6mi3"]


def walked(text: str, reads: list[str]) -> tuple[dict, int]:
    """A single term's joint weights by the walk alone."""
    spec = parse(text).pool_spec({})
    stats = [RESULT if r == "result" else parse_statistic(r) for r in reads]
    folds = [fold_for(s, spec.symbols) for s in stats]
    ways, den = pools(spec, spec.draw_weights())
    out: dict = {}
    for kinds, factor in ways:
        for key, x in walk(term_faces(spec), kinds, spec.keep, folds).items():
            out[key] = out.get(key, 0) + x * factor
    return out, den


@pytest.mark.parametrize("seed", range(40))
def test_a_single_term_read_for_sums_is_the_walk(seed):
    rng = random.Random(seed)
    text = f"{rng.randint(0, 6)}{rng.choice(SYMBOL_DICE + NUMBERED)}"
    spec = parse(text).pool_spec({})
    choices = ["result", "sum", "dice", "count >= 2", "count == 1"] + [f"total {s}" for s in spec.symbols]
    if len(spec.symbols) >= 2:
        choices.append(f"total {spec.symbols[0]} - {spec.symbols[1]}")
    reads = rng.sample(choices, rng.randint(1, 3))
    stats = [RESULT if r == "result" else parse_statistic(r) for r in reads]
    assert additive(stats)
    assert pool_odds(spec, stats) == walked(text, reads)


def group_by_walk(text: str, stats: list) -> tuple[dict, int]:
    """A group's joint weights with a keep of every member, which sends it down the walk."""
    members = text.count(",") + 1
    return read_odds(parse(text + f"kh{members}"), {}, stats, False)


@pytest.mark.parametrize("seed", range(30))
def test_a_group_read_for_sums_is_the_walk(seed):
    rng = random.Random(100 + seed)
    members = [f"{rng.randint(0, 2)}{rng.choice(SYMBOL_DICE)}" for _ in range(rng.randint(2, 4))]
    if rng.random() < 0.3:
        members.append(f"{rng.randint(0, 2)}{rng.choice(NUMBERED)}")
    text = "{" + ", ".join(members) + "}"
    symbols = sorted({s for m in members for s in re.findall(r"[A-Z][a-z]*", m)})
    choices = ["result", "sum", "dice", "count == 0"] + [f"total {s}" for s in symbols]
    if len(symbols) >= 2:
        choices.append(f"total {symbols[0]} - {symbols[-1]}")
    reads = rng.sample(choices, rng.randint(1, 3))
    stats = [RESULT if r == "result" else parse_statistic(r) for r in reads]
    assert read_odds(parse(text), {}, stats, False) == group_by_walk(text, stats)


def test_six_kinds_read_for_net_symbols_match_every_throw():
    text = ("{1d{blank,S,S,SS,A,A,SA,AA}, 1d{blank,S,STr,A}, 0d{blank,blank,S,SA,AA,A}, "
            "1d{blank,F,FF,T,T,T,TT,FT}, 1d{F,FDe,blank}, 0d{blank,blank,F,F,T,T}}")
    reads = ["total S - F", "total A - T", "total Tr", "total De"]
    got, den = read_odds(parse(text), {}, [parse_statistic(r) for r in reads], False)
    faces = [["", "S", "S", "SS", "A", "A", "SA", "AA"], ["", "S", "S!", "A"],
             ["", "F", "FF", "T", "T", "T", "TT", "FT"], ["F", "F?", ""]]
    want: Counter = Counter()
    for throw in itertools.product(*faces):
        shown = "".join(throw)
        want[(shown.count("S") - shown.count("F"), shown.count("A") - shown.count("T"), shown.count("!"),
              shown.count("?"))] += 1
    assert den == 8 * 4 * 8 * 3
    assert got == dict(want)


def test_members_of_no_dice_are_one_kind_and_the_walk_takes_six_kinds():
    """Read for order statistics (no convolution), a group with empty members is one walk, exact; the
    members of no dice show 0 and count as members (`count == 0`)."""
    text = ("{0d{blank,blank,S,SA,AA,A}, 1d{blank,blank,F,F,T,T}, 2d{blank,S,S,SS,A,A,SA,AA}, "
            "1d{blank,F,FF,T,T,T,TT,FT}, 1d{blank,S,S,SS,SS,A,SA,SA,SA,AA,AA,STr}, "
            "0d{blank,F,F,FF,FF,T,T,FT,FT,TT,TT,FDe}, 0d6}")
    reads = ["highest", "total S", "total F", "count == 0"]
    got, den = read_odds(parse(text), {}, [parse_statistic(r) for r in reads], False)
    members = [[["", "", "F", "F", "T", "T"]], [["", "S", "S", "SS", "A", "A", "SA", "AA"]] * 2,
               [["", "F", "FF", "T", "T", "T", "TT", "FT"]],
               [["", "S", "S", "SS", "SS", "A", "SA", "SA", "SA", "AA", "AA", "STr"]]]
    want: Counter = Counter()
    for throw in itertools.product(*(faces for member in members for faces in member)):
        shown, at = [], 0
        for member in members:
            shown.append("".join(throw[at:at + len(member)]))
            at += len(member)
        totals = [len(re.findall(r"[A-Z][a-z]*", s)) for s in shown] + [0, 0, 0]  # three members of no dice
        every = "".join(shown)
        want[(max(totals), every.count("S"), every.count("F"), totals.count(0))] += 1
    assert den == 6 * 8 ** 3 * 12
    assert got == dict(want)
