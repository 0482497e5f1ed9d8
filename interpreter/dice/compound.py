"""One compounding die (`!!`) as a distribution, and the total of the dice a pool keeps.

A compounding die is thrown again while it shows an exploding face, and its value is the sum of
its throws: an endless distribution.  Its value is X + s, X the sum of the exploding throws and s
the face that stopped it; with p_x = P(X = x), p_0 = W / lead and p_x = (e_1 p_(x-1) + e_2 p_(x-2)
+ ...) / lead, where e_j is the weight of the exploding faces showing j, W the weight of all faces
and lead = W - e_0.  Scaled, P_x = p_x lead^(x+1) / W is a whole number, and P(value = k) is
(P_0 s_k + P_1 s_(k-1) + ...) / lead^(x+1) term by term: exact below any bound, "the bound or more"
its exact remainder.

`kept_total` adds up the dice a keep or drop keeps, without going through the dice one by one:
the faces are taken in the order of keeping, and for each number m of dice placed so far (fewer than
are kept) a polynomial over the total so far, packed into one integer, is carried forward.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from interpreter import budget, limits
from interpreter.dice.distribution import Distribution, poly_pow, unpack
from interpreter.dice.keep import keep_plan
from interpreter.dice.term import TermSpec
from interpreter.errors import EvaluationError, LimitExceeded

ADVICE = "use fewer dice, or roll them with `rules roll EXPR --seed N`"
Face = tuple[int, int]  # (what a die adds, its weight)


def compound_die(spec: TermSpec, cap: int) -> tuple[list[tuple[int, int]], int, int]:
    """One compounding die of a term: (value, weight) for every value below `cap`, the denominator,
    and the weight of "`cap` or more"."""
    weights = spec.draw_weights()
    table = spec.explode
    assert table is not None
    stop: dict[int, int] = {}
    again: dict[int, int] = {}
    for index in range(1, spec.sides + 1):
        if weights[index]:
            shown = spec.value(index)
            side = again if table[index] else stop
            side[shown] = side.get(shown, 0) + weights[index]
    if any(v < 0 for v in again):
        raise EvaluationError(f"'{spec.text}' compounds on a face below 0, so its value has no lowest bound")
    total = sum(weights)
    lead = total - again.pop(0, 0)
    low = min(stop)
    span = cap - low  # the sums of exploding throws that can still end below the cap
    if span <= 0:
        return [], 1, 1
    if span > 4 * limits.MAX_DICE_ROLLED * max(1, min(again, default=1)):
        raise LimitExceeded(f"exact odds of '{spec.text}' would need too many throws of each die; {ADVICE}")
    scaled = [1]
    steps = sorted(again.items())
    for x in range(1, span):
        acc = 0
        for j, e in steps:
            if j > x:
                break
            acc += e * scaled[x - j] * lead ** (j - 1)
        scaled.append(acc)
        if not x % 64:
            budget.check("these exact odds", ADVICE)
    top = span - 1
    out: dict[int, int] = {}
    for x, px in enumerate(scaled):
        if px:
            factor = px * lead ** (top - x)
            for s, w in stop.items():
                if x + s < cap:
                    out[x + s] = out.get(x + s, 0) + factor * w
    den = lead ** (top + 1)
    pairs = sorted(out.items())
    return pairs, den, den - sum(w for _, w in pairs)


def die_cap(spec: TermSpec, mass: float) -> int:
    """A value a compounding die reaches with probability below `mass`."""
    weights = spec.draw_weights()
    table = spec.explode
    assert table is not None
    faces = [i for i in range(1, spec.sides + 1) if weights[i]]
    q = sum(weights[i] for i in faces if table[i]) / sum(weights)
    throws = math.ceil(math.log(mass) / math.log(q)) + 1
    highest = max(spec.value(i) for i in faces)
    return max(1, highest) * throws + 1


def kept_total(faces: Sequence[Face], count: int, keep: int, den: int, limit: int | None = None) -> dict[int, int]:
    """The weights of the total of the first `keep` of `count` dice, faces given in the order of keeping.

    Every die shows one of the faces; their weights may add up to less than `den` (a die cut off),
    and then so do the results (over den ** count).  With `limit`, totals above it are left out.
    """
    if keep <= 0 or count <= 0:
        return {0: sum(w for _, w in faces) ** max(count, 0)}
    keep = min(keep, count)
    if len(faces) * keep * keep * count > limits.MAX_ODDS_WORK:  # refused from this estimate, before the work
        raise LimitExceeded(f"exact odds of these kept dice would take too much work; {ADVICE}")
    low = min(g for g, _ in faces)
    size = (den ** count).bit_length() // 8 + 1  # bytes a weight takes, packed
    bits = 8 * size
    after = [0] * len(faces)  # the weight of the faces after each one
    acc = 0
    for i in range(len(faces) - 1, -1, -1):
        after[i] = acc
        acc += faces[i][1]
    comb = math.comb
    mask = -1 if limit is None else (1 << ((limit - keep * low + 1) * bits)) - 1
    states: dict[int, int] = {0: 1}  # dice placed (all kept so far) -> packed weights by total so far
    result = 0
    for i, (gain, weight) in enumerate(faces):
        g = (gain - low) * bits
        rest = after[i]
        new: dict[int, int] = {}
        for m, poly in states.items():
            left = count - m
            room = keep - m
            power = 1
            for j in range(room):
                if j:
                    power *= weight
                    if not power:
                        break
                new[m + j] = new.get(m + j, 0) + (((poly << (j * g)) & mask) * (comb(left, j) * power) if j else poly)
            # this face fills the kept dice: `room` of its dice are kept; any others lie below it
            tail = (weight + rest) ** left - sum(comb(left, j) * weight ** j * rest ** (left - j) for j in range(room))
            if tail:
                result += ((poly << (room * g)) & mask) * tail
        states = new
        budget.check("these exact odds", ADVICE)
    slots = result.bit_length() // bits + 1
    return {at + keep * low: w for at, w in enumerate(unpack(result, slots, size)) if w}


def _in_keep_order(pairs: Sequence[tuple[int, int]], spec: TermSpec, high: bool) -> list[Face]:
    """(gain, weight) of a die's values, in the order a keep takes them."""
    ordered = sorted(pairs, reverse=high)
    return [(spec.gain_of(v), w) for v, w in ordered]


def compound_term(spec: TermSpec, everything: Distribution | None = None) -> Distribution:
    """A compounding term that counts successes or keeps dice: exact when it counts (what a die adds
    is the same from one more than its highest condition up), cut off where a die's sum grows past
    the truncation mass otherwise.  `everything` is the total of all the dice, for a term that keeps
    some and adds them up (it bounds the kept total)."""
    n = spec.count
    if n == 0:
        return Distribution.point(0)
    success, deduct = spec.tests
    if success is None and spec.keep is not None and min(spec.shown[1:]) >= 0 and everything is not None:
        return _kept_sums(spec, everything)
    if success is not None:
        cap = max(c[1] for c in (success, deduct) if c is not None) + 1
    else:
        cap = die_cap(spec, limits.TRUNCATION_MASS / (2 * n))
    pairs, den, tail = compound_die(spec, cap)
    if success is not None and tail:
        pairs = [*pairs, (cap, tail)]
    if spec.keep is not None:
        high, keep = keep_plan(spec.keep, n)
        if keep < n:
            return Distribution(kept_total(_in_keep_order(pairs, spec, high), n, keep, den), den ** n)
    gains: dict[int, int] = {}
    for v, w in pairs:
        gains[spec.gain_of(v)] = gains.get(spec.gain_of(v), 0) + w
    low = min(gains)
    poly = (low, [gains.get(low + i, 0) for i in range(max(gains) - low + 1)])
    return Distribution.from_poly(poly_pow(poly, n), den ** n)


PRECISION = 64  # bits of each die's probabilities where a distribution is cut off anyway


def _kept_sums(spec: TermSpec, everything: Distribution) -> Distribution:
    """Compounding dice kept or dropped and added up, the whole distribution: cut off where a die
    grows past the truncation mass, and at the total the dice all together reach only as rarely.

    The result is cut off, so its probabilities are floats: each die's are taken to 64 bits (rounded
    down, so what is lost is part of what is cut off), which keeps the numbers multiplied small.
    """
    n = spec.count
    mass = limits.TRUNCATION_MASS / 4
    pairs, den, _ = compound_die(spec, die_cap(spec, mass / n))
    limit = everything.tail_start(mass) if everything.values else None
    high, keep = keep_plan(spec.keep, n)
    scale = 1 << PRECISION
    rounded = [(v, w * scale // den) for v, w in pairs]
    faces = _in_keep_order([(v, w) for v, w in rounded if w], spec, high)
    return Distribution(kept_total(faces, n, min(keep, n), scale, limit), scale ** n)


def capped_compound(spec: TermSpec, cap: int) -> Distribution | None:
    """min(total, cap) of a compounding term that keeps dice and adds up their values, exactly; None
    when a face can take away (then "the cap or more" would not stay so)."""
    if spec.keep is None or spec.success is not None or min(spec.shown[1:]) < 0:
        return None
    n = spec.count
    if n == 0:
        return Distribution.point(0)
    if cap <= 0:
        return Distribution.point(cap)
    high, keep = keep_plan(spec.keep, n)
    pairs, den, tail = compound_die(spec, cap)
    faces = _in_keep_order([*pairs, (cap, tail)] if tail else pairs, spec, high)
    # totals above the cap are not followed: "the cap or more" is what the rest leaves
    out = {v: w for v, w in kept_total(faces, n, keep, den, cap).items() if v < cap}
    out[cap] = den ** n - sum(out.values())
    return Distribution(out, den ** n)
