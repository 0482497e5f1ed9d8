"""Exact odds of a loop with no bound whose worlds settle: solved once, instead of followed pass by pass.

A `while` with no `max` goes round as long as its condition holds: its worlds grow less likely
pass by pass but never reach zero, and the worlds still looping are told apart by every value
they carry (a running total keeps growing). After a few passes (SETTLE_AFTER) the worlds that
arrive at the loop's head are lumped: a whole number at or above the cap the computation runs
with becomes `AtLeast(cap)` (what the later steps ask of it has one answer for every number from
the cap up, or the odds are computed again with a larger cap: dice.atleast), and the loop's own
count of passes stops counting. The worlds at the head are then finitely many states: one pass
of each (the head, then the body back to the head) is worked out once, which makes a Markov
chain, and the chance of every way out of the loop is the exact solution of its linear equations
(how often each state is visited: v = w + vQ). Nothing is cut off, so the answer stays exact.

The chain is solved only when its states going on are unlikely enough that a loop running more
than limits.MAX_LOOP_ITERATIONS passes is negligible (below limits.TRUNCATION_MASS); otherwise the
loop is followed pass by pass as before (and stops at that limit, as a run does).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from interpreter import budget, limits
from interpreter.dice.atleast import AtLeast
from interpreter.procedure.merging import Weight, Worlds
from interpreter.procedure.state import State
from interpreter.procedure.weights import Ratio

SETTLE_AFTER = 3  # passes a loop with no bound makes as it is before the worlds at its head are lumped
MAX_STATES = 200  # states of one loop's chain at most (each one pass worked out, then a linear solve)
_MISSING = object()
ADVICE = "bound the loop with `max`, or sample it with `rules run ... --seed N`"

Pass = Callable[[State], tuple[dict[int, Worlds], Worlds]]  # one pass from the head: (ways out by block, back)


def lumped(worlds: Worlds, cap: int, passes: str) -> Worlds:
    """The worlds arriving at a loop's head with every whole number from `cap` up (or an `AtLeast` above it)
    made `AtLeast(cap)`, and the loop's count of passes held still; hidden names are left as they are."""
    out: Worlds = []
    for world, weight in worlds:
        env = dict(world.env)
        for name, value in world.env.items():
            kind = type(value)
            if (kind is int or kind is AtLeast) and name[0] != "#":
                low = int.__int__(value)  # type: ignore[arg-type]
                if low > cap or (low == cap and kind is int):
                    env[name] = AtLeast(cap)
        env[passes] = SETTLE_AFTER
        out.append((State(env, world.outcome, world.stopped), weight))
    return out


def state_key(world: State, names: tuple[str, ...]) -> tuple[object, ...]:
    """What tells a world apart from others at a block (as procedure.merging merges them)."""
    env = world.env
    return (*(env.get(n, _MISSING) for n in names), world.outcome, world.stopped)


def settle(head: int, worlds: Worlds, names: tuple[str, ...], one_pass: Pass) -> dict[int, Worlds] | None:
    """Every way out of the loop at `head` (worlds by the block they go to, END included) from these worlds
    arriving there, lumped and merged; None when the loop's states are too many or go on too likely."""
    index: dict[tuple[object, ...], int] = {}
    states: list[State] = []
    start: list[Fraction] = []
    for world, weight in worlds:
        if type(weight) is not Ratio:
            return None
        index[state_key(world, names)] = len(states)
        states.append(world)
        start.append(Fraction(weight.num, weight.den))
    exits: list[dict[int, Worlds]] = []
    rows: list[dict[int, Fraction]] = []  # state i goes on to state j with probability rows[i][j]
    while len(rows) < len(states):
        if len(states) > MAX_STATES:
            return None
        out, back = one_pass(states[len(rows)])
        row: dict[int, Fraction] = {}
        for world, weight in back:
            if type(weight) is not Ratio:
                return None  # something in the body was cut off: no exact chain
            key = state_key(world, names)
            j = index.get(key)
            if j is None:
                j = index[key] = len(states)
                states.append(world)
                start.append(Fraction(0))
            row[j] = row.get(j, Fraction(0)) + Fraction(weight.num, weight.den)
        if any(type(w) is float for ws in out.values() for _, w in ws):
            return None
        exits.append(out)
        rows.append(row)
    if not _ends_soon(start, rows):
        return None  # it may well run past the loop limit: followed pass by pass, as a run would
    visits = _visits(start, rows)
    left: dict[int, Worlds] = {}
    for i, out in enumerate(exits):
        times = visits[i]
        if not times:
            continue
        for pc, ws in out.items():
            left.setdefault(pc, []).extend((world, _times(weight, times)) for world, weight in ws)
    return left


def _ends_soon(start: list[Fraction], rows: list[dict[int, Fraction]]) -> bool:
    """Whether the chance of still going round after limits.MAX_LOOP_ITERATIONS passes is negligible."""
    chances = [{j: float(q) for j, q in row.items()} for row in rows]
    mass = [float(x) for x in start]
    for _ in range(limits.MAX_LOOP_ITERATIONS):
        if sum(mass) < limits.TRUNCATION_MASS:
            return True
        nxt = [0.0] * len(mass)
        for i, x in enumerate(mass):
            if x:
                for j, q in chances[i].items():
                    nxt[j] += x * q
        mass = nxt
        budget.check("these exact odds", ADVICE)
    return False


def _times(weight: Weight, times: Fraction) -> Weight:
    return Ratio(weight.num * times.numerator, weight.den * times.denominator) if type(weight) is Ratio \
        else weight * times


def _visits(start: list[Fraction], rows: list[dict[int, Fraction]]) -> list[Fraction]:
    """How often each state is visited, v = start + v Q: Gaussian elimination of (I - Q)^T v = start, whose
    pivots stay positive (the states all leave the chain in the end); sparse, states mostly lead onwards."""
    n = len(start)
    eqs: list[dict[int, Fraction]] = [{j: Fraction(1)} for j in range(n)]  # equation j: v_j - sum_i v_i Q_ij
    for i, row in enumerate(rows):
        for j, q in row.items():
            eqs[j][i] = eqs[j].get(i, Fraction(0)) - q
    rhs = list(start)
    for k in range(n):
        pivot = eqs[k]
        budget.check("these exact odds", ADVICE)
        for r in range(k + 1, n):
            factor = eqs[r].get(k)
            if factor is None or not factor:
                continue
            ratio = factor / pivot[k]
            for col, x in pivot.items():
                eqs[r][col] = eqs[r].get(col, Fraction(0)) - ratio * x
            del eqs[r][k]
            rhs[r] -= ratio * rhs[k]
    visits = [Fraction(0)] * n
    for k in range(n - 1, -1, -1):
        eq = eqs[k]
        acc = rhs[k] - sum((x * visits[col] for col, x in eq.items() if col != k), Fraction(0))
        visits[k] = acc / eq[k]
    return visits


__all__ = ["SETTLE_AFTER", "lumped", "settle"]
