"""Exact odds of dice terms: per-die weights, explosion mixtures, keep/drop order statistics."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from itertools import product

from interpreter import budget, limits
from interpreter.dice.distribution import Distribution, Poly, poly_add, poly_mul, poly_pow, poly_scale
from interpreter.dice.keep import keep_plan
from interpreter.dice.term import TermSpec, parameter_nodes, spec_for
from interpreter.dice.throws import explosion_cutoff
from interpreter.dice.tree import Chain, Compare, Dice, DiceGroup, Name, Neg, Node, Num
from interpreter.errors import EvaluationError, LimitExceeded
from interpreter.record import replace

MAX_PARAMETER_COMBINATIONS = 2000


def _poly(weights: list[int], gain: tuple[int, ...], faces: range | list[int]) -> Poly:
    """The weight polynomial of a die's contribution: Σ weight(face) · x^gain(face)."""
    used = [v for v in faces if weights[v]]
    if not used:
        return 0, [0]
    lo = min(gain[v] for v in used)
    hi = max(gain[v] for v in used)
    out = [0] * (hi - lo + 1)
    for v in used:
        out[gain[v] - lo] += weights[v]
    return lo, out


class _Work:
    """A step counter that stops computations which would take unreasonably long."""

    __slots__ = ("guess", "steps")

    def __init__(self) -> None:
        self.steps = 0
        self.guess = 0

    def estimate(self, n: int) -> None:
        """Refuse at once work whose rough upper bound, summed so far, is far beyond the limit."""
        self.guess += n
        if self.guess > 5 * limits.MAX_ODDS_WORK:
            raise LimitExceeded("computing these exact odds would take too much work; use fewer dice, or roll it with `rules roll EXPR --seed N`")

    def add(self, n: int) -> None:
        """Count n more steps."""
        self.steps += n
        if self.steps > limits.MAX_ODDS_WORK:
            raise LimitExceeded("computing these exact odds would take too much work; use fewer dice, or roll it with `rules roll EXPR --seed N`")
        budget.check("these exact odds", "use fewer dice, or roll it with `rules roll EXPR --seed N`")


def _kept_sum(faces: list[int], weights: list[int], n: int, keep: int, gain: tuple[int, ...],
              work: _Work) -> dict[int, int]:
    """Weights of the sum of gains of the first `keep` of `n` dice alike, faces taken in the given order.

    States are (dice placed, gain so far) while fewer than `keep` dice are placed; at the face where
    the `keep`-th die falls, the dice below it are summed out in closed form.  The weights add up to
    (sum of the face weights) ** n.
    """
    span = max(gain[v] for v in faces) - min(gain[v] for v in faces) + 1
    work.estimate(len(faces) * keep * (keep * span + 1) * min(keep, n + 1) // 2)
    below, acc = [0] * len(faces), 0  # below[idx]: the weight of the faces after position idx
    for idx in range(len(faces) - 1, -1, -1):
        below[idx] = acc
        acc += weights[faces[idx]]
    result: dict[int, int] = {}
    states: dict[tuple[int, int], int] = {(0, 0): 1}
    comb = math.comb
    for idx, v in enumerate(faces):
        x, r, gv = weights[v], below[idx], gain[v]
        new: dict[tuple[int, int], int] = {}
        tails: dict[tuple[int, int], int] = {}
        for (m, s), wt in states.items():
            room, big = keep - m, n - m
            fac, xp = wt, 1
            for j in range(min(room - 1, big) + 1):  # j dice show this face, fewer than keep placed
                if j:
                    xp *= x
                    fac = fac * (m + j) // j
                key = (m + j, s + j * gv)
                new[key] = new.get(key, 0) + fac * xp
            if room <= big:  # room or more show it: the keep-th die falls here, the rest anywhere below
                tail = tails.get((big, room))
                if tail is None:
                    tail = (x + r) ** big - sum(comb(big, j) * x ** j * r ** (big - j) for j in range(room))
                    tails[(big, room)] = tail
                    work.add(room)
                s2 = s + room * gv
                result[s2] = result.get(s2, 0) + wt * comb(n, m) * tail
            work.add(min(room, big + 1))
        states = new
    for (m, s), wt in states.items():
        if m == n:
            result[s] = result.get(s, 0) + wt
    return result


@lru_cache(maxsize=1024)
def term_distribution(spec: TermSpec) -> Distribution:
    """The exact (or finely truncated) distribution of one resolved dice term."""
    n = spec.count
    if n == 0:
        return Distribution.point(0)
    if spec.compound:  # all added up (no keep, or one of every die), compounding dice total what exploding ones do
        if spec.success is None and keep_plan(spec.keep, n)[1] >= n:
            return term_distribution(replace(spec, compound=False))
        kept_sum = spec.keep is not None and spec.success is None
        from interpreter.dice.compound import compound_term  # (loaded by odds of compounding dice)

        return compound_term(spec, term_distribution(replace(spec, compound=False, keep=None)) if kept_sum else None)
    s, gain = spec.sides, spec.gain
    w = spec.draw_weights()
    g = 0
    for x in w:
        g = math.gcd(g, x)
    w = [x // g for x in w]
    total = sum(w)
    faces = range(1, s + 1)
    etable = spec.explode
    wE = [x if etable and etable[v] else 0 for v, x in enumerate(w)]
    wN = [x - e for x, e in zip(w, wE, strict=True)]
    if etable is not None and not any(wE):
        return term_distribution(replace(spec, explode=None))
    work = _Work()
    if spec.keep is not None:
        return _keep_term(spec, w, work)
    if etable is None:
        return Distribution.from_poly(poly_pow(_poly(w, gain, faces), n), total ** n)
    a, b = _poly(wN, gain, faces), _poly(wE, gain, faces)
    if spec.explode_once:
        per_die = poly_add(poly_scale(a, total), poly_mul(b, _poly(w, gain, faces)))
        return Distribution.from_poly(poly_pow(per_die, n), total ** (2 * n))
    wsum = sum(wE)
    # half the truncation mass goes to the explosions left out, the rest to the unlikeliest largest totals
    tmax = explosion_cutoff(n, wsum, total, limits.TRUNCATION_MASS / 2)
    work.add(tmax * (tmax * len(b[1]) + 1))
    series: Poly = (0, [0])
    bt: Poly = (0, [1])
    for t in range(tmax + 1):
        series = poly_add(series, poly_scale(bt, math.comb(n + t - 1, t) * total ** (tmax - t)))
        work.add(len(bt[1]) + len(series[1]))
        bt = poly_mul(bt, b)
    whole = Distribution.from_poly(poly_mul(poly_pow(a, n), series), total ** (n + tmax))
    return whole.trimmed(limits.TRUNCATION_MASS)


def _keep_term(spec: TermSpec, w: list[int], work: _Work) -> Distribution:
    """A term with keep/drop: the `result` fold (the sum of what each kept die adds) over the kept multiset.

    Dice that explode make a mixture of pools (dice.throws), walked by dice.pool's walk as every pool
    statistic is.  Dice that do not are one pool of dice alike, summed by `_kept_sum`, a fast path of
    that walk (several times faster on a few dice kept out of many), checked against it over a thousand
    random terms by tests/test_kept_engines.py.
    """
    assert spec.keep is not None
    n = spec.count
    if spec.keep[0] in ("dh", "dl") and spec.keep[1] == 0:
        return term_distribution(replace(spec, keep=None))
    if spec.explode is None:
        high, keep = keep_plan(spec.keep, n)
        if keep >= n:
            return term_distribution(replace(spec, keep=None))
        if keep <= 0:
            return Distribution.point(0)
        desc_faces = [v for v in range(spec.sides, 0, -1) if w[v]]
        return Distribution(_kept_sum(desc_faces if high else desc_faces[::-1], w, n, keep, spec.gain, work),
                            sum(w) ** n)
    from interpreter.dice.pool import RESULT, pool_odds  # (the pool walk: loaded by odds that need it)

    joint, den = pool_odds(spec, [RESULT])
    return Distribution({key[0]: x for key, x in joint.items()}, den)


Resolver = Callable[[Name], Distribution]


def node_distribution(node: Node, resolve: Resolver, cap: int | None = None) -> Distribution:
    """The distribution of a syntax tree, every dice term independent of the others.

    With a cap, only min(value, cap) is needed (the value is compared with numbers below the cap):
    exploding terms then give exact odds with "cap or more" as one value.  Nodes that cannot use
    the cap give the whole distribution, which compares the same.
    """
    if isinstance(node, Num):
        return Distribution.point(node.value)
    if isinstance(node, Dice):
        return _dice_distribution(node, resolve, cap)
    if isinstance(node, Chain):
        from interpreter.dice.saturate import operand_caps  # (saturation: loaded by odds that may need it)

        caps = operand_caps(node, cap)
        acc = node_distribution(node.first, resolve, caps[0])
        for (op, operand), c in zip(node.rest, caps[1:], strict=True):
            acc = Distribution.combine(acc, node_distribution(operand, resolve, c), op)
        return acc if cap is None or caps[0] is None else acc.map(lambda v: min(v, cap))
    if isinstance(node, Name):
        return resolve(node)
    if isinstance(node, Neg):
        return node_distribution(node.operand, resolve).map(lambda v: -v)
    if isinstance(node, DiceGroup):
        return _group_distribution(node, resolve, cap)
    assert isinstance(node, Compare)
    right = node_distribution(node.right, resolve)
    left = node_distribution(node.left, resolve, _above(right))
    if right.truncated and not left.truncated:
        right = node_distribution(node.right, resolve, _above(left))
    return Distribution.combine(left, right, node.op)


def _above(dist: Distribution) -> int | None:
    """A cap for a value compared with this one: one more than its largest value, when nothing is cut off."""
    values = dist.values
    return values[-1] + 1 if values and not dist.truncated else None


def _group_distribution(node: DiceGroup, resolve: Resolver, cap: int | None) -> Distribution:
    """A dice group: the sum of its members, or of the members a keep/drop keeps."""
    if node.keep is None:
        return node_distribution(Chain(node.members[0], tuple(("+", m) for m in node.members[1:]), node.col),
                                 resolve, cap)
    kd = node_distribution(node.keep[1], resolve)
    if len(kd.probs) != 1:
        raise LimitExceeded(f"exact odds of '{node.text}' need a fixed number of members to keep or drop")
    k = kd.probs[0][0]
    if k < 0:
        raise EvaluationError(f"'{node.text}' keeps or drops a negative number of members ({k})")
    from interpreter.dice.saturate import keep_members, lower_bound

    # Members never below 0 can be capped whatever is kept: the kept total reaches the cap just when
    # it would with each member capped.
    capped = keep_plan((node.keep[0], k), len(node.members))[1] == 1 or all(
        (low := lower_bound(m)) is not None and low >= 0 for m in node.members)
    dists = [node_distribution(m, resolve, cap if capped else None) for m in node.members]
    out = keep_members(dists, node.keep[0], k)
    return out if cap is None or not capped else out.map(lambda v: min(v, cap))


def _dice_distribution(node: Dice, resolve: Resolver, cap: int | None = None) -> Distribution:
    """A dice term's distribution, mixing over the values of any random parameters."""
    parts = parameter_nodes(node)
    dists = [None if p is None else node_distribution(p, resolve) for p in parts]
    choices = [[(None, 1)] if d is None else _choices(d) for d in dists]
    combos = 1
    for c in choices:
        combos *= len(c)
    if combos > MAX_PARAMETER_COMBINATIONS:
        raise LimitExceeded(f"the parameters of '{node.text}' take too many different values to compute exact odds")
    if combos == 1:
        return _term(spec_for(node, [c[0][0] for c in choices]), cap)
    cost = 0
    for combo in product(*choices):
        count, sides = combo[0][0], combo[1][0]
        if isinstance(count, int) and isinstance(sides, int) and count > 0 and sides > 0:
            cost += (count * sides + 1) * count * sides.bit_length()
    if cost > 2 * limits.MAX_ODDS_BITS:
        raise LimitExceeded(f"computing exact odds for '{node.text}' would take too much work")
    mixed = []
    for combo in product(*choices):
        p: Fraction | float = 1
        for _, q in combo:
            p *= q
        if p:
            mixed.append((p, _term(spec_for(node, [v for v, _ in combo]), cap)))
    return Distribution.mixture(mixed)


def _term(spec: TermSpec, cap: int | None) -> Distribution:
    """A term's distribution; saturated at the cap when that makes endless explosions exact."""
    if cap is not None:
        from interpreter.dice.saturate import capped_term

        capped = capped_term(spec, cap)
        if capped is not None:
            return capped
    return term_distribution(spec)


def _choices(dist: Distribution) -> list[tuple[int, Fraction | float]]:
    """(value, probability) pairs, as exact fractions whenever the weights are integers."""
    wd = dist.weights()
    if wd is None:
        return list(dist.probs)
    weights, den = wd
    return [(v, Fraction(x, den)) for v, x in sorted(weights.items())]
