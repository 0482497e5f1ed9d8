"""Exact odds through endless explosions by saturation, and the order statistics of dice groups.

When a value is only compared with numbers of at most some bound, what matters is min(value, cap)
for a cap just above that bound.  An exploding term whose faces all add zero or more has an exact
distribution of min(value, cap): a die's generating function is A(x) / (W - E(x)) (A the faces
that stop, E those that explode, W the total weight) and only the coefficients below the cap are
needed; the rest of the mass is "at least the cap".
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from itertools import product

from interpreter import budget
from interpreter.dice.distribution import Distribution
from interpreter.dice.term import TermSpec, keep_plan, parameter_nodes, spec_for
from interpreter.dice.tree import Chain, Dice, Node, Num

Capped = list[int]  # weights of 0 .. cap-1, then of "cap or more"


def _capped_mul(a: Capped, b: Capped, cap: int) -> Capped:
    """min(X + Y, cap) from min(X, cap) and min(Y, cap), X and Y never negative."""
    out = [0] * (cap + 1)
    for i in range(cap):
        budget.check("these exact odds", "use fewer dice, or roll them with `rules roll EXPR --seed N`")
        x = a[i]
        if x:
            for j in range(cap - i):
                out[i + j] += x * b[j]
    out[cap] = sum(a) * sum(b) - sum(out[:cap])
    return out


@lru_cache(maxsize=1024)
def capped_term(spec: TermSpec, cap: int) -> Distribution | None:
    """The exact distribution of min(value, cap) of an endlessly exploding term, or None when this
    method does not apply (no endless explosion, a keep/drop, or a face that takes away)."""
    if spec.explode is None or spec.explode_once or spec.keep is not None:
        return None
    weights, gain, table = spec.draw_weights(), spec.gain, spec.explode
    faces = [v for v in range(1, spec.sides + 1) if weights[v]]
    if any(gain[v] < 0 for v in faces):
        return None
    if spec.count == 0:
        return Distribution.point(0)
    if cap <= 0:
        return Distribution.point(cap)
    stop, again = [0] * cap, [0] * cap
    for v in faces:
        if gain[v] < cap:
            (again if table[v] else stop)[gain[v]] += weights[v]
    lead = sum(weights) - again[0]
    # q_i = P(one die adds i) = (stop_i + sum_j again_j q_(i-j)) / lead; kept as integers Q_i = q_i lead^(i+1)
    big: list[int] = []
    for i in range(cap):
        acc = stop[i] * lead ** i + sum(again[j] * big[i - j] * lead ** (j - 1) for j in range(1, i + 1) if again[j])
        big.append(acc)
    den = lead ** cap
    die = [x * lead ** (cap - 1 - i) for i, x in enumerate(big)]
    die.append(den - sum(die))
    result: Capped = [1] + [0] * cap
    base, n = die, spec.count
    while n:
        if n & 1:
            result = _capped_mul(result, base, cap)
        n >>= 1
        if n:
            base = _capped_mul(base, base, cap)
    return Distribution(dict(enumerate(result)), den ** spec.count)


def keep_members(dists: list[Distribution], kind: str, k: int) -> Distribution:
    """The total of the members a keep/drop keeps, members independent."""
    high, keep = keep_plan(kind, k, len(dists))
    if keep <= 0:
        return Distribution.point(0)
    if keep >= len(dists):
        acc = dists[0]
        for d in dists[1:]:
            acc = Distribution.combine(acc, d, "+")
        return acc
    if keep == 1:
        pick = max if high else min
        acc = dists[0]
        for d in dists[1:]:
            acc = Distribution.combine(acc, d, pick)
        return acc
    states: dict[tuple[int, ...], Fraction | float] = {(): Fraction(1)}
    for d in dists:
        nxt: dict[tuple[int, ...], Fraction | float] = {}
        for (state, p), (v, q) in product(states.items(), d.probs):
            best = tuple(sorted((*state, v), reverse=high)[:keep])
            nxt[best] = nxt.get(best, 0) + p * q
        states = nxt
    out: dict[int, Fraction | float] = {}
    for state, p in states.items():
        out[sum(state)] = out.get(sum(state), 0) + p
    missing = 1.0
    for d in dists:
        missing *= 1.0 - d.truncated
    return Distribution.from_dict(out, truncated=1.0 - missing)


def lower_bound(node: Node) -> int | None:
    """A number the node's value is never below, where one is easy to see (None otherwise)."""
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Chain):
        if any(op != "+" for op, _ in node.rest):
            return None
        parts = [lower_bound(node.first), *(lower_bound(n) for _, n in node.rest)]
        return None if None in parts else sum(p for p in parts if p is not None)
    if isinstance(node, Dice) and all(p is None or isinstance(p, Num) for p in parameter_nodes(node)):
        spec = spec_for(node, [p.value if isinstance(p, Num) else None for p in parameter_nodes(node)])
        w = spec.draw_weights()
        low = min(spec.gain[v] for v in range(1, spec.sides + 1) if w[v])
        if spec.keep is not None or spec.explode is not None:
            return 0 if low >= 0 else None
        return spec.count * low
    return None


def operand_caps(node: Chain, cap: int | None) -> list[int | None]:
    """Caps for the operands of a sum: the cap less what the others add at the least."""
    count = len(node.rest) + 1
    if cap is None or any(op != "+" for op, _ in node.rest):
        return [None] * count
    lows = [lower_bound(node.first), *(lower_bound(n) for _, n in node.rest)]
    out: list[int | None] = []
    for i in range(count):
        others = lows[:i] + lows[i + 1:]
        out.append(None if None in others else cap - sum(x for x in others if x is not None))
    return out
