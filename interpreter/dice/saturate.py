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
from interpreter.dice.compound import capped_compound, kept_total
from interpreter.dice.distribution import Distribution, poly_mul, poly_pow
from interpreter.dice.keep import keep_plan
from interpreter.dice.term import TermSpec, parameter_nodes, spec_for
from interpreter.dice.tree import Chain, Dice, Node, Num
from interpreter.record import replace

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
    if spec.compound:
        if spec.success is None and keep_plan(spec.keep, spec.count)[1] >= spec.count:  # keeps every die: a sum
            return capped_term(replace(spec, compound=False, keep=None), cap)
        return capped_compound(spec, cap)  # (counting compounding dice are exact already)
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
    n = spec.count
    # n dice add up to S(x)^n / (lead - E(x))^n, S the faces that stop and E those that explode (by what
    # they add; E without its constant term, which `lead` holds).  The series of (lead - E)^-n has
    # coefficients G_k / lead^(n+k), G_k whole numbers from k G_k = sum_j (k + (n-1) j) e_j lead^(j-1) G_(k-j)
    # (J. C. P. Miller's recurrence for a power of a series); only those below the cap are needed.
    steps = [(j, e) for j, e in enumerate(again) if j and e]
    series = [1]
    for k in range(1, cap):
        acc = 0
        for j, e in steps:
            if j > k:
                break
            acc += (k + (n - 1) * j) * e * lead ** (j - 1) * series[k - j]
        series.append(acc // k)
        if not k % 64:
            budget.check("these exact odds", "use fewer dice, or roll them with `rules roll EXPR --seed N`")
    scaled = (0, [g * lead ** (cap - 1 - k) for k, g in enumerate(series)])
    off, power = poly_pow((0, stop), n)
    if off >= cap:
        return Distribution({cap: 1}, 1)
    low, weights_below = poly_mul((off, power[:cap - off]), scaled)
    den = lead ** (n + cap - 1)
    out = {low + i: x for i, x in enumerate(weights_below) if x and low + i < cap}
    out[cap] = den - sum(out.values())
    return Distribution(out, den)


def keep_members(dists: list[Distribution], kind: str, k: int) -> Distribution:
    """The total of the members a keep/drop keeps, members independent."""
    high, keep = keep_plan((kind, k), len(dists))
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
    first = dists[0].weights()
    if first is not None and all(d == dists[0] for d in dists[1:]):  # members alike: their totals kept face by face
        found, den = first
        faces = sorted(found.items(), reverse=high)
        return Distribution(kept_total(faces, len(dists), keep, den), den ** len(dists))
    states: dict[tuple[int, ...], Fraction | float] = {(): Fraction(1)}
    for d in dists:
        nxt: dict[tuple[int, ...], Fraction | float] = {}
        for (state, p), (v, q) in product(states.items(), d.probs):
            best = tuple(sorted((*state, v), reverse=high)[:keep])
            nxt[best] = nxt.get(best, 0) + p * q
        states = nxt
        budget.check("these exact odds", "use fewer dice, or roll them with `rules roll EXPR --seed N`")
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
