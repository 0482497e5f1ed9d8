"""Rolling: dice sources, compiled roll functions, and the traced result of a roll."""

from __future__ import annotations

import operator
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from interpreter import limits
from interpreter.dice.syntax import Chain, Compare, Dice, Name, Neg, Node, Num
from interpreter.dice.term import TermSpec, parameter_nodes, spec_for
from interpreter.errors import BadParameter, EvaluationError, LimitExceeded, Location, UnknownName

# A compiled node: run(env, draw, ctx, traces) -> value.  ctx is [dice rolled, name depth].
Runner = Callable[[Mapping[str, Any], Callable[[int], int], list, list], int]
# What one dice term leaves behind: (spec, values, dropped, reroll history, parents, result).
RawTerm = tuple


class DiceSource(Protocol):
    """Where die results come from."""

    def draw(self, sides: int) -> int:
        """One die, 1..sides."""
        ...


class RandomSource:
    """Dice from a random.Random generator."""

    __slots__ = ("_random", "rng")

    def __init__(self, rng: random.Random | None = None):
        self.rng = rng if rng is not None else random.Random()
        self._random = self.rng.random

    def draw(self, sides: int) -> int:
        """One die, 1..sides."""
        return int(self._random() * sides) + 1


class GivenSource:
    """Dice results written out in advance, used in order."""

    __slots__ = ("used", "values")

    def __init__(self, values: Sequence[int]):
        self.values = tuple(int(v) for v in values)
        self.used = 0

    def draw(self, sides: int) -> int:
        """The next given value, which must be a face of the die."""
        if self.used >= len(self.values):
            raise BadParameter(
                f"not enough given dice: {len(self.values)} were given and the roll needs more")
        value = self.values[self.used]
        if not 1 <= value <= sides:
            raise BadParameter(f"given die {value} is not a face of a d{sides}")
        self.used += 1
        return value

    def remaining(self) -> int:
        """How many given values have not been used."""
        return len(self.values) - self.used

    def check_exhausted(self) -> None:
        """Complain when given values were left over."""
        left = self.values[self.used:]
        if left:
            word = "die was" if len(left) == 1 else "dice were"
            raise BadParameter(f"{len(left)} given {word} not used: {', '.join(map(str, left))}")


class Die:
    """One die of a roll, with what happened to it."""

    __slots__ = ("deducted", "exploded", "from_", "kept", "rerolled", "sides", "success", "value")

    def __init__(self, value: int, sides: int, kept: bool = True, rerolled: tuple[int, ...] = (),
                 exploded: bool = False, from_: int | None = None, success: bool | None = None,
                 deducted: bool = False):
        self.value, self.sides, self.kept, self.rerolled = value, sides, kept, rerolled
        self.exploded, self.from_, self.success, self.deducted = exploded, from_, success, deducted

    def __repr__(self) -> str:
        extra = "".join(f", {k}={getattr(self, k)!r}" for k in self.__slots__[2:]
                        if getattr(self, k) not in (None, False, (), True) or k == "kept" and not self.kept)
        return f"Die({self.value}, d{self.sides}{extra})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Die):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    __hash__ = None  # type: ignore[assignment]


class TermTrace:
    """One dice term of a roll: its text, its dice in draw order and its result."""

    __slots__ = ("counting", "dice", "result", "sides", "text")

    def __init__(self, raw: RawTerm):
        spec, vals, dropped, hist, parents, result = raw
        self.text: str = spec.text
        self.sides: int = spec.sides
        self.result: int = result
        self.counting: bool = spec.success is not None
        triggered = set(parents.values()) if parents else ()
        succ, ded = spec.success, spec.deduct
        dice = []
        for i, v in enumerate(vals):
            kept = not dropped or i not in dropped
            dice.append(Die(
                v, spec.sides, kept,
                hist.get(i, ()) if hist else (),
                i in triggered,
                parents.get(i) if parents else None,
                (kept and succ[v]) if succ is not None else None,
                bool(kept and ded is not None and ded[v])))
        self.dice: tuple[Die, ...] = tuple(dice)

    def __repr__(self) -> str:
        return f"TermTrace({self.text!r}, {list(self.dice)!r}, result={self.result})"


class Roll:
    """The outcome of rolling an expression: its value and a trace of every dice term."""

    __slots__ = ("_raw", "_terms", "env", "value")

    def __init__(self, value: int, raw: list[RawTerm], env: Mapping[str, Any]):
        self.value = value
        self._raw = raw
        self._terms: tuple[TermTrace, ...] | None = None
        self.env = env

    @property
    def terms(self) -> tuple[TermTrace, ...]:
        """One trace per dice term, in roll order."""
        if self._terms is None:
            self._terms = tuple(TermTrace(r) for r in self._raw)
        return self._terms

    @property
    def dice(self) -> tuple[Die, ...]:
        """Every die of every term, in draw order."""
        return tuple(d for t in self.terms for d in t.dice)

    def to_json(self) -> list[dict[str, Any]]:
        """Every die as a JSON-ready dict, all terms flattened in draw order."""
        out: list[dict[str, Any]] = []
        for term in self.terms:
            base = len(out)
            for d in term.dice:
                item: dict[str, Any] = {"value": d.value}
                if not d.kept:
                    item["kept"] = False
                    item["dropped"] = True
                if d.rerolled:
                    item["rerolled"] = list(d.rerolled)
                if d.success is not None:
                    item["success"] = d.success
                if d.deducted:
                    item["deducted"] = True
                if d.exploded:
                    item["exploded"] = True
                if d.from_ is not None:
                    item["from"] = base + d.from_
                out.append(item)
        return out

    def __repr__(self) -> str:
        return f"Roll(value={self.value}, terms={list(self.terms)!r})"


def _too_many() -> LimitExceeded:
    """The error for rolling more dice than allowed."""
    return LimitExceeded(f"the roll needs more than {limits.MAX_DICE_ROLLED} dice")


def _draw_rerolled(spec: TermSpec, draw: Callable[[int], int], ctx: list, hist: dict, index: int) -> int:
    """Throw one die and apply its reroll rule at once."""
    s, table = spec.sides, spec.reroll
    assert table is not None
    v = draw(s)
    if not table[v]:
        return v
    earlier = [v]
    while True:
        ctx[0] += 1
        if ctx[0] > limits.MAX_DICE_ROLLED:
            raise _too_many()
        v = draw(s)
        if not (spec.reroll_again and table[v]):
            break
        earlier.append(v)
    hist[index] = tuple(earlier)
    return v


def roll_spec(spec: TermSpec, draw: Callable[[int], int], ctx: list, traces: list, counted: bool) -> int:
    """Roll one resolved term with all its modifiers and record its trace."""
    n, s = spec.count, spec.sides
    if not counted:
        ctx[0] += n
        if ctx[0] > limits.MAX_DICE_ROLLED:
            raise _too_many()
    hist: dict[int, tuple[int, ...]] = {}
    if spec.reroll is None:
        vals = [draw(s) for _ in range(n)]
    else:
        vals = [_draw_rerolled(spec, draw, ctx, hist, i) for i in range(n)]
    parents = None
    etab = spec.explode
    if etab is not None:
        frontier = [i for i, v in enumerate(vals) if etab[v]]
        if frontier:
            parents = {}
            again = not spec.explode_once
            depth = 0
            while frontier:
                depth += 1
                if depth > limits.MAX_EXPLOSION_DEPTH:
                    raise LimitExceeded(
                        f"'{spec.text}' exploded more than {limits.MAX_EXPLOSION_DEPTH} times in a row")
                ctx[0] += len(frontier)
                if ctx[0] > limits.MAX_DICE_ROLLED:
                    raise _too_many()
                nxt = []
                for p in frontier:
                    idx = len(vals)
                    v = draw(s) if spec.reroll is None else _draw_rerolled(spec, draw, ctx, hist, idx)
                    vals.append(v)
                    parents[idx] = p
                    if again and etab[v]:
                        nxt.append(idx)
                frontier = nxt
    dropped = None
    if spec.keep is not None:
        kind, k = spec.keep
        total_dice = len(vals)
        high = kind in ("kh", "dl")
        keep = k if kind in ("kh", "kl") else total_dice - k
        if keep < total_dice:
            order = sorted(range(total_dice), key=vals.__getitem__, reverse=high)
            dropped = frozenset(order[max(keep, 0):])
    if spec.success is None:
        result = sum(vals)
        if dropped:
            result -= sum(vals[i] for i in dropped)
    else:
        gain = spec.gain
        result = sum(map(gain.__getitem__, vals))
        if dropped:
            result -= sum(gain[vals[i]] for i in dropped)
    traces.append((spec, vals, dropped, hist or None, parents, result))
    return result


def _term_runner(spec: TermSpec) -> Runner:
    """A fast roll function for a term whose parameters are all constant."""
    s, n = spec.sides, spec.count
    if spec.plain and n == 1:
        def run_one(env: Mapping[str, Any], draw: Callable[[int], int], ctx: list, traces: list) -> int:
            v = draw(s)
            traces.append((spec, [v], None, None, None, v))
            return v
        return run_one
    if spec.plain:
        rn = range(n)

        def run_plain(env: Mapping[str, Any], draw: Callable[[int], int], ctx: list, traces: list) -> int:
            vals = [draw(s) for _ in rn]
            total = sum(vals)
            traces.append((spec, vals, None, None, None, total))
            return total
        return run_plain

    def run_term(env: Mapping[str, Any], draw: Callable[[int], int], ctx: list, traces: list) -> int:
        return roll_spec(spec, draw, ctx, traces, True)
    return run_term


def static_dice(node: Node) -> int:
    """How many dice the constant-count terms of a tree roll before explosions and rerolls."""
    if isinstance(node, Dice):
        inner = sum(static_dice(p) for p in parameter_nodes(node) if p is not None)
        return inner + (node.count.value if isinstance(node.count, Num) else 0)
    if isinstance(node, Chain):
        return static_dice(node.first) + sum(static_dice(n) for _, n in node.rest)
    if isinstance(node, Neg):
        return static_dice(node.operand)
    if isinstance(node, Compare):
        return static_dice(node.left) + static_dice(node.right)
    return 0


def compile_node(node: Node) -> Runner | int:
    """A roll function for a tree, or a plain int when the tree is constant."""
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Dice):
        return _compile_dice(node)
    if isinstance(node, Name):
        return _compile_name(node)
    if isinstance(node, Neg):
        inner = compile_node(node.operand)
        if isinstance(inner, int):
            return -inner
        return lambda env, draw, ctx, tr: -inner(env, draw, ctx, tr)
    if isinstance(node, Compare):
        return _compile_pair(_COMPARE[node.op], compile_node(node.left), compile_node(node.right), node.col)
    assert isinstance(node, Chain)
    acc = compile_node(node.first)
    for op, operand in node.rest:
        acc = _compile_pair(_ARITH[op], acc, compile_node(operand), node.col)
    return acc


_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv}
_COMPARE = {
    ">=": lambda a, b: int(a >= b), ">": lambda a, b: int(a > b), "==": lambda a, b: int(a == b),
    "!=": lambda a, b: int(a != b), "<=": lambda a, b: int(a <= b), "<": lambda a, b: int(a < b),
}


def _compile_pair(fn: Callable[[int, int], int], left: Runner | int, right: Runner | int, col: int) -> Runner | int:
    """A binary operation over two compiled operands, folding constants."""
    if fn is operator.floordiv:
        def div(a: int, b: int) -> int:
            if b == 0:
                raise EvaluationError("division by zero in dice expression", Location("<expr>", 1, col))
            return a // b
        fn = div
    if isinstance(left, int) and isinstance(right, int):
        return fn(left, right)
    if isinstance(right, int):
        lf = left
        if fn is operator.add:
            return lambda env, draw, ctx, tr: lf(env, draw, ctx, tr) + right  # type: ignore[operator]
        return lambda env, draw, ctx, tr: fn(lf(env, draw, ctx, tr), right)  # type: ignore[operator]
    if isinstance(left, int):
        rf = right
        if fn is operator.add:
            return lambda env, draw, ctx, tr: left + rf(env, draw, ctx, tr)
        return lambda env, draw, ctx, tr: fn(left, rf(env, draw, ctx, tr))
    lf2, rf2 = left, right
    if fn is operator.add:
        return lambda env, draw, ctx, tr: lf2(env, draw, ctx, tr) + rf2(env, draw, ctx, tr)
    return lambda env, draw, ctx, tr: fn(lf2(env, draw, ctx, tr), rf2(env, draw, ctx, tr))


def _compile_dice(node: Dice) -> Runner:
    """A roll function for one dice term."""
    params = [None if p is None else compile_node(p) for p in parameter_nodes(node)]
    if all(p is None or isinstance(p, int) for p in params):
        return _term_runner(spec_for(node, params))  # type: ignore[arg-type]

    def run(env: Mapping[str, Any], draw: Callable[[int], int], ctx: list, traces: list) -> int:
        args = [p if p is None or isinstance(p, int) else p(env, draw, ctx, traces) for p in params]
        spec = spec_for(node, args)
        return roll_spec(spec, draw, ctx, traces, isinstance(params[0], int))
    return run


def _compile_name(node: Name) -> Runner:
    """A roll function looking a name up in the environment."""
    name = node.name
    where = Location("<expr>", 1, node.col)

    def run(env: Mapping[str, Any], draw: Callable[[int], int], ctx: list, traces: list) -> int:
        try:
            v = env[name]
        except KeyError:
            raise UnknownName(f"unknown name '{name}' in dice expression", where) from None
        if type(v) is int:
            return v
        if isinstance(v, int):
            return int(v)
        sub = getattr(v, "run_in", None)
        if sub is None:
            raise BadParameter(
                f"'{name}' must be a whole number or a dice expression, not {type(v).__name__}", where)
        ctx[1] += 1
        if ctx[1] > limits.MAX_DICE_DEPTH:
            raise LimitExceeded(f"dice expressions refer to each other more than {limits.MAX_DICE_DEPTH} deep", where)
        try:
            return sub(env, draw, ctx, traces)
        finally:
            ctx[1] -= 1
    return run
