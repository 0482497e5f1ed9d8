"""Rolling: compiled roll functions for every node of a dice expression."""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from itertools import repeat
from typing import Any

from interpreter import limits
from interpreter.absent import Absent
from interpreter.dice.keep import LATER, Dropper, dropped, dropper, kept_total
from interpreter.dice.sources import DiceSource
from interpreter.dice.term import TermSpec, parameter_nodes, spec_for
from interpreter.dice.trace import RawTuple, as_record
from interpreter.dice.tree import Chain, Compare, Dice, DiceGroup, Name, Neg, Node, Num
from interpreter.errors import BadParameter, EvaluationError, LimitExceeded, Location, UnknownName

# A compiled node: run(env, draw, ctx, traces) -> value.
Context = list[Any]  # [dice rolled so far against the limit, reference depth, the DiceSource, its `uniform`]
Traces = list[RawTuple]  # what each dice term left behind, in roll order (trace.RawTerm reads it)
Env = Mapping[str, Any]
Draw = Callable[[int], int]  # one die of so many sides: its face index
Runner = Callable[[Env, Draw, Context, Traces], int]


def _too_many() -> LimitExceeded:
    """The error for rolling more dice than allowed."""
    return LimitExceeded(f"the roll needs more than {limits.MAX_DICE_ROLLED} dice")


def _draw_rerolled(spec: TermSpec, draw: Draw, ctx: Context, hist: dict[int, tuple[int, ...]], index: int) -> int:
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


def roll_spec(spec: TermSpec, draw: Draw, ctx: Context, traces: Traces, counted: bool) -> int:
    """Roll one resolved term with all its modifiers and record its trace."""
    if spec.raw is not None:
        draw = _face_drawer(spec, ctx[2])
    elif spec.codes is not None:
        draw = _symbol_drawer(spec, draw)
    if not counted:
        ctx[0] += spec.count
        if ctx[0] > limits.MAX_DICE_ROLLED:
            raise _too_many()
    hist: dict[int, tuple[int, ...]] = {}
    if spec.compound:
        vals, throws = _compound(spec, draw, ctx, hist)
        return settle(spec, vals, traces, spec.gain_of, _dropper(spec, vals), hist or None, None, throws)
    vals, parents = _throw(spec, draw, ctx, hist)
    return settle(spec, vals, traces, _adder(spec), _dropper(spec, vals), hist or None, parents)


def _dropper(spec: TermSpec, vals: list[int]) -> Dropper | None:
    """The term's keep/drop for so many dice (None without one)."""
    return None if spec.keep is None else dropper(spec.keep, len(vals))


def settle(spec: TermSpec, vals: list[int], traces: Traces, add: Callable[[int], int] | None,
           drop: Dropper | None, hist: dict[int, tuple[int, ...]] | None = None,
           parents: dict[int, int] | None = None, throws: dict[int, tuple[int, ...]] | None = None) -> int:
    """A thrown term's total: the sum over the dice its keep/drop keeps (`drop`, None when there is
    none) of what each adds (`add`; None: its own value), recorded in the trace."""
    out = None if drop is None else drop(vals)
    result = sum(vals) if add is None else sum(map(add, vals))
    if out:
        for i in out:
            result -= vals[i] if add is None else add(vals[i])
    traces.append((spec, vals, out, hist, parents, result, throws))
    return result


def _adder(spec: TermSpec) -> Callable[[int], int] | None:
    """What a die of a term adds, by its face index: None where that is the index itself."""
    if spec.success is None and spec.faces is None and not spec.natural:
        return None
    return spec.gain.__getitem__


def _throw(spec: TermSpec, draw: Draw, ctx: Context,
           hist: dict[int, tuple[int, ...]]) -> tuple[list[int], dict[int, int] | None]:
    """A term's dice thrown, each rerolled at once as its rule says, then exploding dice thrown again
    (breadth first): the face indices in draw order, and the die each extra die came from."""
    n, s, etab = spec.count, spec.sides, spec.explode
    if spec.reroll is None:
        vals = list(map(draw, repeat(s, n)))
    else:
        vals = [_draw_rerolled(spec, draw, ctx, hist, i) for i in range(n)]
    if etab is None:
        return vals, None
    frontier = [i for i, v in enumerate(vals) if etab[v]]
    if not frontier:
        return vals, None
    parents: dict[int, int] = {}
    again = not spec.explode_once
    depth = 0
    while frontier:
        depth += 1
        if depth > limits.MAX_EXPLOSION_DEPTH:
            raise LimitExceeded(f"'{spec.text}' exploded more than {limits.MAX_EXPLOSION_DEPTH} times in a row")
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
    return vals, parents


def _compound(spec: TermSpec, draw: Draw, ctx: Context,
              hist: dict[int, tuple[int, ...]]) -> tuple[list[int], dict[int, tuple[int, ...]]]:
    """`!!`: each die thrown, and thrown again while it shows an exploding face, before the next die is
    thrown; a die's value is the sum of its throws.  The dice's values, and the throws (face indices) of
    each die that exploded."""
    etab, value, s = spec.explode, spec.value, spec.sides
    assert etab is not None
    vals: list[int] = []
    throws: dict[int, tuple[int, ...]] = {}
    for i in range(spec.count):
        v = draw(s) if spec.reroll is None else _draw_rerolled(spec, draw, ctx, hist, i)
        if not etab[v]:
            vals.append(value(v))
            continue
        thrown = [v]
        while etab[v]:
            if len(thrown) > limits.MAX_EXPLOSION_DEPTH:
                raise LimitExceeded(f"'{spec.text}' exploded more than {limits.MAX_EXPLOSION_DEPTH} times in a row")
            ctx[0] += 1
            if ctx[0] > limits.MAX_DICE_ROLLED:
                raise _too_many()
            v = draw(s) if spec.reroll is None else _draw_rerolled(spec, draw, ctx, {}, 0)
            thrown.append(v)
        throws[i] = tuple(thrown)
        vals.append(sum(map(value, thrown)))
    return vals, throws


def _symbol_drawer(spec: TermSpec, draw: Draw) -> Callable[[int], int]:
    """A draw function for a symbol die: a written face is drawn (1 to the number written), its index given."""
    codes = spec.codes
    assert codes is not None
    written = len(codes)
    return lambda _sides: codes[draw(written) - 1]


def _face_drawer(spec: TermSpec, source: DiceSource) -> Callable[[int], int]:
    """A draw function for a die with written faces: the index of the face the source gives."""
    raw, index = spec.raw, spec.faces
    assert raw is not None and index is not None
    pick = source.draw_face
    return lambda _sides: index.index(pick(raw)) + 1


def _term_runner(spec: TermSpec) -> Runner:
    """A roll function for a term whose parameters are all constant."""
    s, n = spec.sides, spec.count
    if spec.raw is not None or spec.codes is not None or spec.compound or spec.reroll is not None \
            or spec.explode is not None:
        def run_term(env: Env, draw: Draw, ctx: Context, traces: Traces) -> int:
            return roll_spec(spec, draw, ctx, traces, True)
        return run_term
    add = _adder(spec)
    if n == 1 and add is None and spec.keep is None:
        def run_one(env: Env, draw: Draw, ctx: Context, traces: Traces) -> int:
            v = draw(s)
            traces.append((spec, [v], None, None, None, v, None))
            return v
        return run_one
    sides = (s,) * n
    # Dice from a generator are drawn in one loop, as RandomSource.draw draws each (the same numbers).
    if add is not None or spec.keep is None:
        drop = None if spec.keep is None else dropper(spec.keep, n)

        def run_once(env: Env, draw: Draw, ctx: Context, traces: Traces) -> int:  # each die thrown once
            u = ctx[3]
            vals = list(map(draw, sides)) if u is None else [int(u() * s) + 1 for _ in sides]
            return settle(spec, vals, traces, add, drop)
        return run_once
    pick, total = dropper(spec.keep, n), kept_total(spec.keep, n)

    def run_kept(env: Env, draw: Draw, ctx: Context, traces: Traces) -> int:  # settle, for numbered dice
        u = ctx[3]
        vals = list(map(draw, sides)) if u is None else [int(u() * s) + 1 for _ in sides]
        if total is not None:  # which dice were set aside is found when the trace is read
            result = total(vals)
            traces.append((spec, vals, LATER, None, None, result, None))
            return result
        out = pick(vals)
        result = sum(vals)
        for i in out or ():
            result -= vals[i]
        traces.append((spec, vals, out, None, None, result, None))
        return result
    return run_kept


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
    if isinstance(node, DiceGroup):
        return sum(static_dice(m) for m in node.members)
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
    if isinstance(node, DiceGroup):
        return _compile_group(node)
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

    def run(env: Env, draw: Draw, ctx: Context, traces: Traces) -> int:
        args = [p if p is None or isinstance(p, int) else p(env, draw, ctx, traces) for p in params]
        spec = spec_for(node, args)
        return roll_spec(spec, draw, ctx, traces, isinstance(params[0], int))
    return run


def _compile_name(node: Name) -> Runner:
    """A roll function looking a name up in the environment."""
    name = node.name
    where = Location("<expr>", 1, node.col)

    def run(env: Env, draw: Draw, ctx: Context, traces: Traces) -> int:
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
            if isinstance(v, Absent):
                raise v.error(name)  # located at the step that rolls
            raise BadParameter(
                f"'{name}' must be a whole number or a dice expression, not {type(v).__name__}", where)
        ctx[1] += 1
        if ctx[1] > limits.MAX_DICE_DEPTH:
            raise LimitExceeded(f"dice expressions refer to each other more than {limits.MAX_DICE_DEPTH} deep", where)
        try:
            result: int = sub(env, draw, ctx, traces)
            return result
        finally:
            ctx[1] -= 1
    return run


def _compile_group(node: DiceGroup) -> Runner:
    """A roll function for a dice group: members rolled in turn, dice of dropped members marked dropped."""
    members = [compile_node(m) for m in node.members]
    keep = node.keep
    karg = None if keep is None else compile_node(keep[1])
    where = Location("<expr>", 1, node.col)

    def run(env: Env, draw: Draw, ctx: Context, traces: Traces) -> int:
        totals, spans = [], []
        for m in members:
            start = len(traces)
            totals.append(m if isinstance(m, int) else m(env, draw, ctx, traces))
            spans.append((start, len(traces)))
        if keep is None or karg is None:
            return sum(totals)
        k = karg if isinstance(karg, int) else karg(env, draw, ctx, traces)
        if k < 0:
            raise EvaluationError(f"'{node.text}' keeps or drops a negative number of members ({k})", where)
        drop = dropped((keep[0], k), totals)
        if not drop:
            return sum(totals)
        for i in drop:
            a, b = spans[i]
            for j in range(a, b):
                traces[j] = as_record(traces[j]).all_dropped()
        return sum(totals) - sum([totals[i] for i in drop])
    return run
