"""Dice expressions as Python expression source that gives only the value: the sampling fast path.

A roll with its trace (roller) records every die; a sampled run that only wants the
outcome needs the value alone. `DiceWriter` writes a dice tree as an expression over
`r` (a generator's `random` method) that draws the same numbers in the same order as
`DiceExpr.roll` with a `RandomSource` of that generator, so both give the same value:
`1dN` becomes `int(r() * N) + 1`, a few dice added up or kept highest or lowest become
`max(...)`, `min(...)` or a sum without a list, pools that explode and count successes a
loop without a trace, and anything else runs roller.roll_spec and drops the trace. The
dice limits (per roll, explosion depth) are counted as the roller counts them, in the list
`_c` ([dice so far, 0, None]) that the caller creates before the roll.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from interpreter import limits
from interpreter.absent import Absent
from interpreter.dice.roller import roll_spec, static_dice
from interpreter.dice.term import TermSpec, keep_plan, parameter_nodes, spec_for
from interpreter.dice.tree import Chain, Compare, Dice, Name, Neg, Node, Num
from interpreter.errors import BadParameter, EvaluationError, LimitExceeded, Location
from interpreter.formula.emit import Unsupported

LO, HI = limits.INT_MIN, limits.INT_MAX
_ARITH = {"+": "+", "-": "-", "*": "*"}
_COMPARE = {">=", ">", "==", "!=", "<=", "<"}
INLINE = 6  # at most this many dice are written out one by one


class Draws:
    """A dice source over a generator's `random` method, drawing as RandomSource does."""

    __slots__ = ("random",)

    def __init__(self, random: Callable[[], float]):
        self.random = random

    def draw(self, sides: int) -> int:
        return int(self.random() * sides) + 1

    def draw_face(self, faces: tuple[int, ...]) -> int:
        return faces[int(self.random() * len(faces))]


def _too_many() -> LimitExceeded:
    return LimitExceeded(f"the roll needs more than {limits.MAX_DICE_ROLLED} dice")


def general(spec: TermSpec, r: Callable[[], float], c: list[Any], counted: bool = True) -> int:
    """Any term, by the roller itself; its trace is dropped."""
    draws = Draws(r)
    ctx = [c[0], 0, draws]
    value = roll_spec(spec, draws.draw, ctx, [], counted)
    c[0] = ctx[0]
    return value


def pool(spec: TermSpec, r: Callable[[], float], c: list[Any]) -> int:
    """A term without rerolls, keeps or written faces: each die adds its gain; exploding dice throw again."""
    s, gain, etab = spec.sides, spec.gain, spec.explode
    total = 0
    pending = 0
    for _ in range(spec.count):
        v = int(r() * s) + 1
        total += gain[v]
        if etab is not None and etab[v]:
            pending += 1
    if pending:
        assert etab is not None
        again = not spec.explode_once
        depth = 0
        while pending:
            depth += 1
            if depth > limits.MAX_EXPLOSION_DEPTH:
                raise LimitExceeded(f"'{spec.text}' exploded more than {limits.MAX_EXPLOSION_DEPTH} times in a row")
            c[0] += pending
            if c[0] > limits.MAX_DICE_ROLLED:
                raise _too_many()
            thrown, pending = pending, 0
            for _ in range(thrown):
                v = int(r() * s) + 1
                total += gain[v]
                if again and etab[v]:
                    pending += 1
    return total


def term(spec: TermSpec, r: Callable[[], float], c: list[Any]) -> int:
    """A resolved term, by the quickest way that draws as the roller does."""
    if spec.reroll is None and spec.keep is None and spec.raw is None:
        return pool(spec, r, c)
    return general(spec, r, c)


def variable_term(node: Dice, cache: dict[tuple[int, ...], TermSpec], r: Callable[[], float], c: list[Any],
                  counted: bool, *args: int) -> int:
    """A term whose count, sides or modifiers come from names: resolved per distinct arguments."""
    spec = cache.get(args)
    if spec is None:
        spec = spec_for(node, list(args))
        if len(cache) < 256:
            cache[args] = spec
    if not counted:
        c[0] += spec.count
        if c[0] > limits.MAX_DICE_ROLLED:
            raise _too_many()
    return term(spec, r, c)


def whole(value: Any, name: str, col: int) -> int:
    """A name's value inside dice: a whole number (a flag counts as 0 or 1)."""
    if isinstance(value, int):
        return int(value)
    if isinstance(value, Absent):
        raise value.error(name)  # the traced roll places it at its step
    raise BadParameter(f"'{name}' must be a whole number or a dice expression, not {type(value).__name__}",
                       Location("<expr>", 1, col))


def too_large(text: str) -> int:
    raise EvaluationError(f"the result of '{text}' is too large")


def floordiv(a: int, b: int, col: int) -> int:
    if b == 0:
        raise EvaluationError("division by zero in dice expression", Location("<expr>", 1, col))
    return a // b


def too_many() -> int:
    raise _too_many()


HELPERS: dict[str, Any] = {"_too_many": too_many, "_term": term, "_vterm": variable_term, "_whole": whole, "_too_large": too_large,
                           "_floordiv": floordiv}
"""What written dice call, by the names they use."""

# How the caller resolves a name inside dice: ("dice", DiceExpr) to write that expression in place,
# ("roller", code) for code giving a function (r, c) -> int, ("int", code) for a number's code,
# ("code", code) for code giving the value itself.
NameCode = tuple[str, Any]


class DiceWriter:
    """Writes dice trees as expressions over `r` and the counter `_c`."""

    def __init__(self, keep: Callable[[object], str], name: Callable[[str], NameCode]):
        self.keep = keep
        self.name = name
        self.static = 0  # dice counted before the roll (constant counts, named dice written in place)
        self.risky = False  # whether the value could leave 64 bits: it multiplies, or reads a number

    def write(self, expr: Any) -> str:
        """The code of one roll of a DiceExpr; self.static is what `_c[0]` must start at."""
        self.static = 0
        self.risky = False
        code = self._node(expr.tree, 0)
        if self.static > limits.MAX_DICE_ROLLED:
            raise Unsupported("too many dice")  # the roller refuses it, with its message
        if not self.risky:  # sums and differences of at most 1000 dice of 1000 faces stay far within 64 bits
            return code
        return f"(_t if {LO} <= (_t := {code}) <= {HI} else _too_large({self.keep(expr.text)}))"

    def _node(self, node: Node, depth: int) -> str:
        if isinstance(node, Num):
            self.risky = self.risky or abs(node.value) > 2**40
            return f"({node.value!r})"
        if isinstance(node, Neg):
            return f"(-{self._node(node.operand, depth)})"
        if isinstance(node, Compare) and node.op in _COMPARE:
            return f"int({self._node(node.left, depth)} {node.op} {self._node(node.right, depth)})"
        if isinstance(node, Chain):
            code = self._node(node.first, depth)
            for op, operand in node.rest:
                right = self._node(operand, depth)
                if op in _ARITH:
                    self.risky = self.risky or op == "*"
                    code = f"({code} {op} {right})"
                elif op == "//":
                    code = f"_floordiv({code}, {right}, {node.col})"
                else:
                    raise Unsupported(op)
            return code
        if isinstance(node, Name):
            kind, found = self.name(node.name)
            if kind == "dice":
                if depth >= limits.MAX_DICE_DEPTH:
                    raise Unsupported("dice nested too deep")
                self.static += static_dice(found.tree)
                return self._node(found.tree, depth + 1)
            self.risky = True
            if kind == "roller":
                return f"{found}(r, _c)"
            if kind == "code":
                return str(found)
            return f"({found} if type({found}) is int else _whole({found}, {node.name!r}, {node.col}))"
        if isinstance(node, Dice):
            return self._dice(node, depth)
        raise Unsupported(type(node).__name__)

    def _dice(self, node: Dice, depth: int) -> str:
        m = node.mods
        if m.compound or m.least is not None or m.most is not None or node.marks is not None:
            raise Unsupported("compounding, mi, ma or symbol dice")  # the traced runner rolls them
        params = parameter_nodes(node)
        if all(p is None or isinstance(p, Num) for p in params):
            spec = spec_for(node, [None if p is None else p.value for p in params])  # type: ignore[union-attr]
            self.static += spec.count
            return self._constant(spec)
        if isinstance(node.count, Num):
            self.static += node.count.value
        args = ", ".join("None" if p is None else self._node(p, depth) for p in params)
        cache: dict[tuple[int, ...], TermSpec] = {}
        return (f"_vterm({self.keep(node)}, {self.keep(cache)}, r, _c, "
                f"{isinstance(node.count, Num)!r}, {args})")

    def _constant(self, spec: TermSpec) -> str:
        n, s = spec.count, spec.sides
        one = f"(int(r() * {s}) + 1)"
        if spec.raw is None and spec.reroll is None and spec.explode is None and spec.success is None:
            keep = n if spec.keep is None else keep_plan(spec.keep[0], spec.keep[1], n)[1]
            high = spec.keep is None or keep_plan(spec.keep[0], spec.keep[1], n)[0]
            if n == 0:
                return "(0)"
            if keep >= n and n <= INLINE:
                return "(" + " + ".join([one] * n) + ")"
            if keep == 1 and n <= INLINE:
                return ("max(" if high else "min(") + ", ".join([one] * n) + ")"
        return f"_term({self.keep(spec)}, r, _c)"
