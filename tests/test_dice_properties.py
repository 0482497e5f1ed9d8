"""Generated expressions against the enumerating reference, and sampling against exact odds."""

from __future__ import annotations

import math
import operator
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_dice_oracle import combine, term_odds

from interpreter.dice.expr import RandomSource, parse
from interpreter.errors import LimitExceeded

OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul}
COMPARE = {">=": operator.ge, "<": operator.lt, "==": operator.eq}


@st.composite
def dice_terms(draw):
    """One random dice term: (text, reference distribution, explodes without end?)."""
    sides = draw(st.integers(1, 12))
    explode = draw(st.sampled_from([None, None, "x", "xN", "xo", "xo>="])) if sides >= 2 else None
    count = draw(st.integers(0, 2 if explode else 4))
    pieces: list[str] = []
    kwargs: dict = {"count": count, "sides": sides}
    face = st.integers(1, sides)
    reroll = draw(st.sampled_from([None, "r<=", "r>", "r", "rr<=", "rr>="]))
    if reroll is not None:
        n = draw(face)
        again = reroll.startswith("rr")
        op = {"r<=": "<=", "r>": ">", "r": "==", "rr<=": "<=", "rr>=": ">="}[reroll]
        if again and (n == 1 and op == ">=" or n == sides and op == "<="):
            n = 1 if op == "<=" else sides  # never reroll every face
            if sides == 1:
                reroll = None
        if reroll is not None:
            pieces.append(f"{reroll}{n}")
            kwargs["reroll"] = ((op, n), again)
    endless = False
    if explode == "x":
        pieces.append("x")
        kwargs["explode"] = (("max", None), False)
        endless = True
    elif explode == "xN":
        n = draw(face)
        pieces.append(f"x{n}")
        kwargs["explode"] = (("==", n), False)
        endless = True
    elif explode == "xo":
        pieces.append("xo")
        kwargs["explode"] = (("max", None), True)
    elif explode == "xo>=":
        n = draw(face)
        pieces.append(f"xo>={n}")
        kwargs["explode"] = ((">=", n), True)
    if endless and "reroll" in kwargs and kwargs["reroll"][1]:
        (rop, rn), _ = kwargs["reroll"]
        table = {"<=": operator.le, ">=": operator.ge}[rop]
        target = sides if kwargs["explode"][0][0] == "max" else kwargs["explode"][0][1]
        if all(v == target for v in range(1, sides + 1) if not table(v, rn)):
            pieces.pop()
            del kwargs["explode"]
            endless = False
    if draw(st.booleans()):
        kind = draw(st.sampled_from(["kh", "kl", "dh", "dl"]))
        k = draw(st.integers(0, 4))
        pieces.append(f"{kind}{k}")
        kwargs["keep"] = (kind, k)
    if draw(st.booleans()):
        op = draw(st.sampled_from([">=", ">", "=", "<=", "<"]))
        n = draw(face)
        pieces.append(f"cs{op}{n}")
        kwargs["success"] = ("==" if op == "=" else op, n)
        if draw(st.booleans()):
            d = draw(face)
            pieces.append(f"df={d}")
            kwargs["deduct"] = ("==", d)
    order = draw(st.permutations(pieces))
    text = f"{count}d{sides}{''.join(order)}"
    return text, term_odds(depth=8, **kwargs), endless


@st.composite
def expressions(draw):
    """A random expression of one or two dice terms with arithmetic and maybe a comparison."""
    text, dist, endless = draw(dice_terms())
    if draw(st.booleans()):
        text, dist = f"-{text}", {-v: p for v, p in dist.items()}
    if draw(st.booleans()):
        op = draw(st.sampled_from(sorted(OPS)))
        other, odist, oend = draw(dice_terms())
        text, dist, endless = f"{text} {op} {other}", combine(dist, odist, OPS[op]), endless or oend
    if draw(st.booleans()):
        c = draw(st.integers(-3, 5))
        text, dist = f"{text} + {c}", {v + c: p for v, p in dist.items()}
    if draw(st.booleans()):
        op = draw(st.sampled_from(sorted(COMPARE)))
        c = draw(st.integers(0, 8))
        text, dist = f"{text} {op} {c}", combine(dist, {c: 1}, lambda a, b: int(COMPARE[op](a, b)))
    return text, dist, endless


@settings(max_examples=220, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(expressions())
def test_generated_expressions_match_enumeration(case):
    text, ref, endless = case
    ref = {v: p for v, p in ref.items() if p}
    try:
        dist = parse(text).distribution({})
    except LimitExceeded:
        # allowed only where explosions meet keep/drop: a pool of unbounded size (never a wrong answer)
        assert endless and any(k in text for k in ("kh", "kl", "dh", "dl")), text
        return
    ours = dist.as_dict()
    if not endless:
        assert dist.exact
        assert ours == ref, text
    else:
        slack = float(1 - sum(ref.values())) + dist.truncated + 1e-12
        for v in set(ours) | set(ref):
            assert abs(float(ours.get(v, 0)) - float(ref.get(v, 0))) <= slack, (text, v)
    rng = RandomSource(random.Random(len(text)))
    for _ in range(5):
        assert parse(text).roll({}, rng).value in ours or endless, text


def chi_square_critical(df: int, z: float = 3.09) -> float:
    """The chi-square value exceeded with probability about 0.001 (Wilson–Hilferty)."""
    h = 2 / (9 * df)
    return df * (1 - h + z * math.sqrt(h)) ** 3


SAMPLED = [
    "1d20+5", "4d6kh3", "10d10x10cs>=8", "2d20kh1+5>=15", "3d6r<=2", "2d6rr1",
    "3d8xo", "2d10x>=9kh1", "6d10cs>=7df=1", "1d6*1d4-2", "4d4x", "(1d4)d6", "5d6x6dl2",
]


@pytest.mark.parametrize("text", SAMPLED)
def test_sampling_agrees_with_exact_odds(text):
    expr = parse(text)
    dist = expr.distribution({})
    rng = RandomSource(random.Random(20240601 + len(text)))
    n = 20000
    seen: dict[int, int] = {}
    for _ in range(n):
        v = expr.roll({}, rng).value
        seen[v] = seen.get(v, 0) + 1
    assert set(seen) <= set(dist.values)
    bins: list[list[float]] = []
    expected, observed = 0.0, 0
    for v, p in dist.probs:
        expected += float(p) * n
        observed += seen.get(v, 0)
        if expected >= 5:
            bins.append([expected, observed])
            expected, observed = 0.0, 0
    if bins:
        bins[-1][0] += expected
        bins[-1][1] += observed + n - sum(seen.get(v, 0) for v in dist.values)
    stat = sum((o - e) ** 2 / e for e, o in bins)
    assert len(bins) >= 2
    assert stat < chi_square_critical(len(bins) - 1), (text, stat, len(bins))
