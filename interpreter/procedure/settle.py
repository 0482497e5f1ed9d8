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
from interpreter.errors import LimitExceeded, Location
from interpreter.procedure.merging import Weight, Worlds
from interpreter.procedure.state import State
from interpreter.procedure.weights import Ratio

SETTLE_AFTER = 3  # passes a loop with no bound makes as it is before the worlds at its head are lumped
_MISSING = object()
ADVICE = "bound the loop with `max`, or sample it with `rules run ... --seed N`"

class Lumping:
    """How one computation lumps the worlds of loops with no bound (see `lumped`), and whether one settled."""

    def __init__(self, cap: int = 0, enabled: bool = True) -> None:
        self.enabled = enabled
        self.used = False  # some loop's numbers were lumped
        self.cap = cap  # whole numbers from here up are lumped (the cap a comparison asked for)
        self.wide: frozenset[str] = frozenset()  # names told apart up to `wide_cap` instead (reported values)
        self.wide_cap = 0
        self.must_settle = False  # a loop that does not settle is refused instead of followed pass by pass
        self.settled = False  # a loop was solved at once

    def lumped(self, worlds: Worlds, loop: tuple[str, frozenset[str]], held: object) -> Worlds:
        return lumped(worlds, self.cap, loop, held, self.wide, self.wide_cap)


Pass = Callable[[State], tuple[dict[int, Worlds], Worlds]]  # one pass from the head: (ways out by block, back)


def lumped(worlds: Worlds, cap: int, loop: tuple[str, frozenset[str]], held: object, wide: frozenset[str] = frozenset(),
           wide_cap: int = 0) -> Worlds:
    """The worlds arriving at a loop's head with every whole number its body may write from `cap` up (or an
    `AtLeast` above it) made `AtLeast(cap)` (`wide_cap` for the `wide` names, when larger), and the loop's count
    of passes held at `held` (`loop`: the name of that count, and the names the body may write)."""
    passes, changed = loop
    out: Worlds = []
    for world, weight in worlds:
        env = dict(world.env)
        for name in changed:
            value = env.get(name)
            kind = type(value)
            if kind is int or kind is AtLeast:
                low = int.__int__(value)  # type: ignore[arg-type]
                at = max(cap, wide_cap) if name in wide else cap
                if low > at or (low == at and kind is int):
                    env[name] = AtLeast(at)
        env[passes] = held
        out.append((State(env, world.outcome, world.stopped), weight))
    return out


def state_key(world: State, names: tuple[str, ...]) -> tuple[object, ...]:
    """What tells a world apart from others at a block (as procedure.merging merges them)."""
    env = world.env
    return (*(env.get(n, _MISSING) for n in names), world.outcome, world.stopped)


def settle(worlds: Worlds, names: tuple[str, ...], one_pass: Pass, lumping: Lumping,
           where: Location | None) -> dict[int, Worlds] | None:
    """Every way out of a loop (worlds by the block they go to, END included) from these worlds arriving at its
    head, lumped and merged; None when the loop's states are too many or go on too likely."""
    left = _settle(worlds, names, one_pass)
    if left is not None:
        lumping.settled = True
    elif lumping.must_settle:
        raise LimitExceeded(f"a loop with no bound does not settle; {ADVICE}", where)
    return left


def _settle(worlds: Worlds, names: tuple[str, ...], one_pass: Pass, max_states: int = limits.MAX_SETTLE_STATES) -> dict[int, Worlds] | None:
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
        if len(states) > max_states:
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
    """How often each state is visited, v = start + v Q: the chain's strongly connected parts in the order
    they lead to each other, each solved on its own with what flows into it from those before."""
    visits = [Fraction(0)] * len(start)
    inflow = list(start)
    for part in _parts(rows):
        budget.check("these exact odds", ADVICE)
        if len(part) == 1:
            i = part[0]
            stay = rows[i].get(i, Fraction(0))
            visits[i] = inflow[i] / (1 - stay)
        else:
            for i, v in zip(part, _solve(part, rows, inflow), strict=True):
                visits[i] = v
        inside = set(part)
        for i in part:
            for j, q in rows[i].items():
                if j not in inside:
                    inflow[j] += visits[i] * q
    return visits


def _parts(rows: list[dict[int, Fraction]]) -> list[list[int]]:
    """The strongly connected parts of the chain, each before the parts it leads to (Tarjan's algorithm)."""
    n = len(rows)
    order = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    found: list[list[int]] = []
    counter = 0
    for root in range(n):
        if order[root] >= 0:
            continue
        work = [(root, iter(rows[root]))]
        order[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            node, targets = work[-1]
            advanced = False
            for nxt in targets:
                if order[nxt] < 0:
                    order[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack[nxt] = True
                    work.append((nxt, iter(rows[nxt])))
                    advanced = True
                    break
                if on_stack[nxt]:
                    low[node] = min(low[node], order[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == order[node]:
                part = []
                while True:
                    top = stack.pop()
                    on_stack[top] = False
                    part.append(top)
                    if top == node:
                        break
                found.append(part)
    found.reverse()  # Tarjan finds a part after every part it leads to
    return found


def _solve(part: list[int], rows: list[dict[int, Fraction]], inflow: list[Fraction]) -> list[Fraction]:
    """Visits of the states of one part: Gaussian elimination of (I - Q)^T v = inflow over them, whose pivots
    stay positive (the states all leave the chain in the end)."""
    at = {state: k for k, state in enumerate(part)}
    n = len(part)
    eqs: list[dict[int, Fraction]] = [{k: Fraction(1)} for k in range(n)]  # equation k: v_k - sum_i v_i Q_ik
    for i, state in enumerate(part):
        for j, q in rows[state].items():
            k = at.get(j)
            if k is not None:
                eqs[k][i] = eqs[k].get(i, Fraction(0)) - q
    rhs = [inflow[state] for state in part]
    for k in range(n):
        pivot = eqs[k]
        budget.check("these exact odds", ADVICE)
        for r in range(k + 1, n):
            factor = eqs[r].get(k)
            if not factor:
                continue
            ratio = factor / pivot[k]
            for col, x in pivot.items():
                eqs[r][col] = eqs[r].get(col, Fraction(0)) - ratio * x
            del eqs[r][k]
            rhs[r] -= ratio * rhs[k]
    out = [Fraction(0)] * n
    for k in range(n - 1, -1, -1):
        eq = eqs[k]
        out[k] = (rhs[k] - sum((x * out[col] for col, x in eq.items() if col != k), Fraction(0))) / eq[k]
    return out


__all__ = ["SETTLE_AFTER", "lumped", "settle"]
