"""Pools read many ways (issue 16): statistics of the same roll, exact odds by multiset walk.

Each statistic is checked against enumeration of every throw written here, over small pools
with keep/drop, rerolls and explosions; sampled frequencies agree with the exact odds.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from fractions import Fraction

import icepool
import pytest
from helpers import chi_square_critical

from interpreter.dice.expr import parse
from interpreter.dice.pool import RESULT, parse_statistic, pool_odds, read_pool
from interpreter.dice.sources import RandomSource
from interpreter.errors import BadParameter


def stat(text: str, kept: list[int]) -> int | bool:
    """The oracle: a statistic of kept dice, computed plainly."""
    ordered = sorted(kept, reverse=True)
    if text == "sum":
        return sum(kept)
    if text == "dice":
        return len(kept)
    if text.endswith(("highest", "lowest")):
        rank = int(text.split()[0][:-2]) if " " in text else 1
        seq = ordered if text.endswith("highest") else ordered[::-1]
        return seq[rank - 1] if len(seq) >= rank else 0
    if text.startswith("count"):
        op, arg = text.split()[1], int(text.split()[2])
        return sum(1 for v in kept if eval(f"{v} {op} {arg}"))
    most = max(Counter(kept).values(), default=0)
    return most if text == "largest set" else most >= 2


def enumerate_pool(faces: list[int], count: int, keep: tuple[str, int] | None, reroll: set[int] | None,
                   texts: list[str], explode: set[int] | None = None, depth: int = 0) -> dict[tuple, Fraction]:
    """Every throw of the pool (rerolling once, exploding up to `depth` times per die), as statistics."""
    die: list[tuple[list[int], Fraction]] = []  # one die's possible chains of shown values

    def chains(prefix: list[int], p: Fraction, left: int) -> None:
        for f in faces:
            throws = [(f, Fraction(1, len(faces)))]
            if reroll and f in reroll:
                throws = [(g, Fraction(1, len(faces) ** 2)) for g in faces]
            for g, q in throws:
                if explode and g in explode and left > 0:
                    chains(prefix + [g], p * q, left - 1)
                elif not (explode and g in explode):
                    die.append((prefix + [g], p * q))
    chains([], Fraction(1), depth)
    out: Counter[tuple] = Counter()
    for throw in itertools.product(die, repeat=count):
        shown = [v for chain, _ in throw for v in chain]
        p = Fraction(1)
        for _, q in throw:
            p *= q
        ordered = sorted(shown, reverse=True)
        if keep is not None:
            kind, k = keep
            n = len(ordered)
            lo, hi = {"kh": (0, k), "kl": (n - k, n), "dh": (k, n), "dl": (0, n - k)}[kind]
            ordered = ordered[max(lo, 0):max(hi, 0)]
        out[tuple(stat(t, ordered) for t in texts)] += p
    return dict(out)


def exact(text: str, texts: list[str]) -> dict[tuple, Fraction | float]:
    """Our joint odds of the statistics (without the term's own result)."""
    joint, den = pool_odds(parse(text).pool_spec({}), [parse_statistic(t) for t in texts])
    done = sum(joint.values()) == den
    out: Counter[tuple] = Counter()
    for key, x in joint.items():
        out[key] += Fraction(x, den) if done else x / den
    return dict(out)


ALL = ["sum", "dice", "highest", "lowest", "2nd highest", "2nd lowest", "count == 6", "count >= 5",
       "count <= 2", "largest set", "any match"]


@pytest.mark.parametrize("text", ALL)
@pytest.mark.parametrize("expr,faces,count,keep,reroll", [
    ("4d6", [1, 2, 3, 4, 5, 6], 4, None, None),
    ("4d6kh3", [1, 2, 3, 4, 5, 6], 4, ("kh", 3), None),
    ("4d6dl1", [1, 2, 3, 4, 5, 6], 4, ("dl", 1), None),
    ("3d6kl2", [1, 2, 3, 4, 5, 6], 3, ("kl", 2), None),
    ("3d6r1", [1, 2, 3, 4, 5, 6], 3, None, {1}),
    ("3d{0,0,1,1,1,2}", [0, 0, 1, 1, 1, 2], 3, None, None),
    ("3dF", [-1, 0, 1], 3, None, None),
])
def test_each_statistic_matches_enumeration(text, expr, faces, count, keep, reroll):
    assert exact(expr, [text]) == enumerate_pool(faces, count, keep, reroll, [text])


def test_statistics_read_together_match_enumeration():
    texts = ["highest", "count == 6", "largest set", "sum", "2nd highest"]
    assert exact("4d6", texts) == enumerate_pool(list(range(1, 7)), 4, None, None, texts)


@pytest.mark.parametrize("expr,keep", [("2d4x", None), ("2d4xkh2", ("kh", 2))])
def test_exploding_pool_matches_enumeration_of_chains(expr, keep):
    texts = ["highest", "dice", "count == 4", "largest set"]
    ours = exact(expr, texts)
    want = enumerate_pool([1, 2, 3, 4], 2, keep, None, texts, explode={4}, depth=10)
    for key in set(ours) | set(want):
        if key[1] > 2 + 10:  # more explosions than the enumeration follows on one die
            continue
        assert abs(float(ours.get(key, 0)) - float(want.get(key, 0))) < 1e-6, key  # the chains cut at 10: 2 * 4**-11


def test_shadowrun_thirty_dice_hits_and_glitch_match_icepool():
    """Hits (5 or 6) and ones on 30d6, read from one roll; a glitch is more than half the dice showing 1."""
    joint, den = pool_odds(parse("30d6cs>=5").pool_spec({}), [RESULT, parse_statistic("count == 1")])
    assert sum(joint.values()) == den
    hits: Counter[int] = Counter()
    ones: Counter[int] = Counter()
    for (h, o), x in joint.items():
        hits[h] += Fraction(x, den)
        ones[o] += Fraction(x, den)
    pool = icepool.d6.pool(30)
    hits_die, ones_die = pool.keep_outcomes([5, 6]).size(), pool.keep_outcomes([1]).size()
    assert all(hits[v] == Fraction(hits_die.probability(v)) for v in range(31))
    assert all(ones[v] == Fraction(ones_die.probability(v)) for v in range(31))
    critical_glitch = sum((Fraction(x, den) for (h, o), x in joint.items() if o > 15 and h == 0), Fraction(0))
    # no hits and more than 15 ones: the other dice all show 2 to 4
    assert critical_glitch == sum(Fraction(math.comb(30, k) * 3 ** (30 - k), 6 ** 30) for k in range(16, 31))


def test_blades_six_dice_highest_and_sixes_match_icepool():
    joint, den = pool_odds(parse("6d6").pool_spec({}), [parse_statistic("highest"), parse_statistic("count == 6"),
                                                        parse_statistic("largest set")])
    best: Counter[int] = Counter()
    sixes: Counter[int] = Counter()
    largest: Counter[int] = Counter()
    for (h, s6, big), x in joint.items():
        best[h] += Fraction(x, den)
        sixes[s6] += Fraction(x, den)
        largest[big] += Fraction(x, den)
    pool = icepool.d6.pool(6)
    assert all(best[v] == Fraction(pool.highest().sum().probability(v)) for v in range(1, 7))
    assert all(sixes[v] == Fraction(pool.keep_outcomes([6]).size().probability(v)) for v in range(7))
    assert all(largest[v] == Fraction(pool.largest_count().probability(v)) for v in range(1, 7))


def test_unknown_statistic_lists_the_forms():
    with pytest.raises(BadParameter, match="2nd highest"):
        parse_statistic("median")


def test_rolled_pool_is_read_from_the_same_dice():
    expr = parse("5d6kh3")
    roll = expr.roll({}, RandomSource(random.Random(4)))
    kept = [d.value for d in roll.dice if d.kept]
    got = read_pool(kept, roll.value, [RESULT, parse_statistic("sum"), parse_statistic("dice"),
                                       parse_statistic("lowest")])
    assert got == (roll.value, roll.value, 3, min(kept))


@pytest.mark.parametrize("expr,texts", [
    ("4d6", ["highest", "count == 6"]),
    ("5d6cs>=5", ["count == 1"]),
    ("3d6r1", ["largest set", "2nd highest"]),
    ("4d6kh3", ["lowest", "any match"]),
    ("2d6x", ["highest", "dice"]),
])
def test_sampled_statistics_agree_with_exact_odds(expr, texts):
    stats = [RESULT, *(parse_statistic(t) for t in texts)]
    parsed = parse(expr)
    joint, den = pool_odds(parsed.pool_spec({}), stats)
    source = RandomSource(random.Random(16))
    n = 6000
    seen: Counter[tuple] = Counter()
    for _ in range(n):
        roll = parsed.roll({}, source)
        seen[read_pool([d.value for d in roll.dice if d.kept], roll.value, stats)] += 1
    bins = [(seen[k], x / den * n) for k, x in joint.items() if x / den * n >= 5]
    rare = n - sum(o for o, _ in bins)
    rare_expected = n - sum(e for _, e in bins)
    if rare_expected >= 5:
        bins.append((rare, rare_expected))
    stat_ = sum((o - e) ** 2 / e for o, e in bins)
    assert stat_ < chi_square_critical(len(bins) - 1), (expr, stat_)
