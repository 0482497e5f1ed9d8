"""A term's dice as a mixture of plain pools: the one account of rerolls and explosions that exact odds use.

A term of n dice that explode is, for each number t of explosions, a pool of t dice that showed an
exploding face (and were thrown again), n that stopped, weighted by how many ways there are to get
there; `xo` likewise, with each of the a dice that exploded once thrown once more.  Each pool is a
union of kinds of dice (a count and a weight per face); a keep/drop applies to the whole pool.
`pools` gives them; dice.pool's walk (any statistic) and dice.odds' kept sums read them alike.
"""

from __future__ import annotations

import math

from interpreter import limits
from interpreter.dice.term import TermSpec
from interpreter.errors import LimitExceeded

Pools = list[tuple[int, list[int]]]  # (dice, weight of each face) per kind of die


def pools(spec: TermSpec, weights: list[int], mass: float = limits.TRUNCATION_MASS) -> tuple[list[tuple[Pools, int]], int]:
    """(the pool, its weight) for each way the term's explosions can go, and the common denominator.

    `weights` are one die's face weights after its reroll rule (index = face).  Endless explosions are
    cut off once what lies beyond is below `mass`: the weights then add up to less than the denominator.
    """
    n, table = spec.count, spec.explode
    total = sum(weights)
    exploding = [x if table is not None and table[v] else 0 for v, x in enumerate(weights)]
    if not any(exploding) or n == 0:
        return [([(n, weights)], 1)], total ** n
    stopping = [x - e for x, e in zip(weights, exploding, strict=True)]
    if spec.explode_once:
        return ([([(a, exploding), (n - a, stopping), (a, weights)], math.comb(n, a) * total ** (n - a))
                 for a in range(n + 1)], total ** (2 * n))
    tmax = explosion_cutoff(n, sum(exploding), total, mass)
    return ([([(t, exploding), (n, stopping)], math.comb(n + t - 1, t) * total ** (tmax - t))
             for t in range(tmax + 1)], total ** (n + tmax))


def explosion_cutoff(count: int, exploding: int, total: int, mass: float = limits.TRUNCATION_MASS) -> int:
    """The fewest total explosions t with P(more than t explosions among `count` dice) below the truncation mass.

    The number of explosions is negative binomial.  Its tail is summed directly, from the far
    end back (small terms first), so no rounding of a running sum near 1 decides where to stop.
    Past the mode each term is the previous times r_t = q(count+t)/(t+1), which falls towards q,
    so what lies beyond the last term computed is at most term·r/(1-r).
    """
    q = exploding / total
    logq = math.log(q)
    logp = count * math.log1p(-q)
    terms: list[float] = []
    t = 0
    limit = limits.MAX_DICE_ROLLED * 4
    mode = max(0, math.floor((count - 1) * q / (1 - q)))
    floor = mass * 1e-3
    while True:
        term = math.exp(logp)
        terms.append(term)
        ratio = q * (count + t) / (t + 1)
        if t > mode and ratio < 1 and term * ratio / (1 - ratio) < floor:
            break
        logp += logq + math.log((count + t) / (t + 1))
        t += 1
        if t > limit:
            raise LimitExceeded(
                "these dice explode so often that their odds cannot be computed to the required precision")
    tail = floor  # bounds the mass beyond the last term computed
    cut = len(terms) - 1
    for i in range(len(terms) - 1, -1, -1):
        if tail >= mass:
            break
        cut = i
        tail += terms[i]
    return cut
