"""The kept-sum fast path of exact odds (dice.odds `_keep_dp`) against the general pool walk (dice.pool).

Both read the same pools of dice (dice.throws); the walk folds the `result` statistic over the kept
multiset, `_keep_dp` sums the same thing with the dice past the last kept one summed out in closed
form.  A thousand and more random terms (counts, sides, keep/drop, explosions, rerolls, successes,
mi/ma, custom faces) must give the same distribution, to the fraction where both are exact.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from interpreter.dice.distribution import Distribution
from interpreter.dice.odds import term_distribution
from interpreter.dice.pool import RESULT, pool_odds
from interpreter.dice.syntax import parse_tree
from interpreter.dice.term import TermSpec, parameter_nodes, spec_for
from interpreter.dice.tree import Dice, Num
from interpreter.errors import LimitExceeded

TERMS = 1200


def random_term(rng: random.Random) -> str:
    """A random dice term in the notation, small enough to weigh in milliseconds."""
    count = rng.randint(0, 5)
    if rng.random() < 0.1:
        die = rng.choice(["dF", "d{1,1,2,3,5}", "d{-1,0,0,2}"])
        sides = 4
    else:
        sides = rng.randint(2, 10)
        die = f"d{sides}"
    text = f"{count}{die}"
    if rng.random() < 0.25:
        text += rng.choice(["r", "rr"]) + rng.choice(["1", "<2", f"<={min(2, sides - 1)}"])
    form = rng.random() if sides >= 5 and count <= 3 else 1.0  # explosions weighed in milliseconds
    if form < 0.2:
        text += "x"
    elif form < 0.3:
        text += f"x>={sides - 1}"
    elif form < 0.45:
        text += "xo"
    if rng.random() < 0.15:
        text += f"mi{rng.randint(1, 3)}"
    if rng.random() < 0.85:
        text += rng.choice(["kh", "kl", "dh", "dl"]) + str(rng.randint(0, count + 1))
    if rng.random() < 0.3:
        text += f"cs>={rng.randint(1, sides)}"
        if rng.random() < 0.4:
            text += "df1"
    return text


def resolved(text: str) -> TermSpec:
    tree = parse_tree(text)
    assert isinstance(tree, Dice)
    return spec_for(tree, [p.value if isinstance(p, Num) else None for p in parameter_nodes(tree)])


def by_walk(spec: TermSpec) -> Distribution:
    """The term's value as the general engine gives it: the `result` fold over the kept multiset."""
    joint, den = pool_odds(spec, [RESULT])
    return Distribution({key[0]: x for key, x in joint.items()}, den)


def test_the_fast_path_equals_the_walk_over_random_terms() -> None:
    rng = random.Random(31)
    compared = kept = exploding = 0
    while compared < TERMS:
        text = random_term(rng)
        try:
            spec = resolved(text)
            fast = term_distribution(spec)
        except LimitExceeded:
            continue  # a term the rules refuse (it explodes or rerolls forever) is refused by both
        general = by_walk(spec)
        endless = spec.explode is not None and not spec.explode_once
        keeps_all = spec.keep is None or spec.keep in (("dh", 0), ("dl", 0))
        if endless and keeps_all:
            # endless explosions all kept: the polynomial path cuts off where the walk does not; both
            # lose less than the truncation mass
            walked = dict(general.probs)
            assert max(abs(float(p) - float(walked.get(v, 0))) for v, p in fast.probs) < 1e-9, text
        else:
            assert dict(fast.probs) == dict(general.probs), text
            assert fast.truncated == pytest.approx(general.truncated, abs=1e-15), text
        compared += 1
        kept += spec.keep is not None
        exploding += spec.explode is not None
    assert kept > TERMS // 2 and exploding > TERMS // 8  # the forms that matter were drawn often


def test_a_kept_sum_by_both_engines_matches_brute_force() -> None:
    """An outside check of both: 4d6 keeping the highest three, every throw counted."""
    from itertools import product

    counts: dict[int, int] = {}
    for dice in product(range(1, 7), repeat=4):
        v = sum(dice) - min(dice)
        counts[v] = counts.get(v, 0) + 1
    expected = {v: Fraction(c, 6 ** 4) for v, c in counts.items()}
    spec = resolved("4d6kh3")
    assert dict(term_distribution(spec).probs) == expected
    assert dict(by_walk(spec).probs) == expected
