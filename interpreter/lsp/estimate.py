"""How large a dice expression's distribution would be, told from its syntax before it is built.

A hover shows a dice expression's mean and range; building its distribution costs about as many
values as it has, times the values of what each sum or product combines.  The estimate reads the
tree: each node's lowest and highest value and an upper bound on how many values it takes, and the
work of combining them.  A name is looked up in the ruleset's constants and named dice; what cannot
be told (a name that is neither) counts as too large, so nothing unknown is built.
"""

from __future__ import annotations

from collections.abc import Mapping

from interpreter.dice.tree import Chain, Compare, Dice, DiceGroup, Name, Neg, Node, Num
from interpreter.record import record
from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset

__all__ = ["MAX_VALUES", "MAX_WORK", "Size", "roll_too_big", "size_of"]

MAX_VALUES = 100_000  # values a hover's distribution may have
MAX_WORK = 10_000_000  # dice added one at a time (each die's faces times the values so far), plus the pairs sums combine
_EXPLODING = 20  # how many times its faces an exploding die's total is counted as reaching, at most
_DEEP = 16


@record
class Size:
    """The lowest and highest value a node may take, how many values at most, and the work to build them."""

    low: int
    high: int
    values: int
    work: int = 0

    @property
    def fits(self) -> bool:
        return self.values <= MAX_VALUES and self.work <= MAX_WORK


_UNKNOWN = Size(0, 0, MAX_VALUES + 1, MAX_WORK + 1)


def _span(low: int, high: int, values: int, work: int) -> Size:
    return Size(low, high, max(1, min(values, high - low + 1)), work)


def _dice(node: Dice, env: Mapping[str, object], depth: int, unknown: Size) -> Size:
    count, sides = size_of(node.count, env, depth, unknown), size_of(node.sides, env, depth, unknown)
    if node.faces:
        low_face, high_face = min(node.faces), max(node.faces)
    else:
        low_face, high_face = min(1, sides.low), max(sides.high, 1)
    mods = node.mods
    if mods.success is not None or mods.deduct is not None:  # a count of successes (less failures)
        n = max(abs(count.low), abs(count.high))
        return _span(-n, n, 2 * n + 1, count.work + n * max(high_face - low_face + 1, 1))
    reach = _EXPLODING if mods.explode is not None else 1
    n = max(count.high, 0)
    low = min(max(count.low, 0) * low_face, n * low_face)
    if mods.keep is not None:  # fewer dice may count: as low as none of them
        low = min(low, 0, low_face)
    high = max(n * high_face * reach, low)
    # the dice are added one at a time: each of the faces times each value reached so far
    return _span(low, high, high - low + 1, count.work + sides.work + n * (high_face - low_face + 1) * (high - low + 1))


def _chain(node: Chain, env: Mapping[str, object], depth: int, unknown: Size) -> Size:
    total = size_of(node.first, env, depth, unknown)
    for op, operand in node.rest:
        other = size_of(operand, env, depth, unknown)
        values = total.values * other.values
        work = total.work + other.work + values
        if op in ("+", "-"):
            low, high = (total.low + other.low, total.high + other.high) if op == "+" else (
                total.low - other.high, total.high - other.low)
        elif op == "*":
            corners = [a * b for a in (total.low, total.high) for b in (other.low, other.high)]
            low, high = min(corners), max(corners)
        else:  # `//`, `%` and the like never leave the range of the left side, nor pass its size
            low, high = min(total.low, 0, -abs(total.high)), max(total.high, abs(total.low))
        total = _span(low, high, values, work)
    return total


def size_of(node: Node, env: Mapping[str, object], depth: int = 0, unknown: Size = _UNKNOWN) -> Size:
    """An upper bound on a node's values (and the work of building them); ``env`` names constants and dice,
    and a name it does not hold counts as ``unknown`` (by default: too large)."""
    if depth > _DEEP:
        return _UNKNOWN
    if isinstance(node, Num):
        return Size(node.value, node.value, 1)
    if isinstance(node, Name):
        value = env.get(node.name)
        if isinstance(value, bool) or not isinstance(value, int):
            tree = getattr(value, "tree", None)
            return size_of(tree, env, depth + 1, unknown) if tree is not None else unknown
        return Size(value, value, 1)
    if isinstance(node, Neg):
        inner = size_of(node.operand, env, depth + 1, unknown)
        return Size(-inner.high, -inner.low, inner.values, inner.work)
    if isinstance(node, Compare):
        left, right = size_of(node.left, env, depth + 1, unknown), size_of(node.right, env, depth + 1, unknown)
        return Size(0, 1, 2, left.work + right.work + left.values * right.values)
    if isinstance(node, Chain):
        return _chain(node, env, depth + 1, unknown)
    if isinstance(node, Dice):
        return _dice(node, env, depth + 1, unknown)
    if isinstance(node, DiceGroup):
        members = [size_of(m, env, depth + 1, unknown) for m in node.members]
        values, work = 1, 0
        for member in members:
            values, work = values * member.values, work + member.work + values * member.values
        low = sum(min(m.low, 0) for m in members)
        return _span(low, sum(max(m.high, 0) for m in members), values, work)
    return _UNKNOWN


def _argument(value: object, kind: str) -> object:
    """A sample's argument as the estimate reads it: a whole number, or a dice expression's tree holder."""
    from interpreter.dice.expr import parse
    from interpreter.errors import RulesError

    if isinstance(value, str) and kind == "dice":
        try:
            return parse(value)
        except RulesError:
            return None
    if isinstance(value, str):
        return int(value) if value.lstrip("-").isdigit() and len(value) < 20 else None
    return value


def roll_too_big(ruleset: CompiledRuleset, proc: CompiledProcedure, args: Mapping[str, str]) -> Size | None:
    """The size of the first roll of a procedure's own steps known to be too large to build here, at these
    arguments; None when none is.  A name the estimate cannot tell (a value the steps work out) counts as
    one value, so only what is too large whatever it holds is refused."""
    from interpreter.ruleset.specs import RollStep, walk

    env: dict[str, object] = {**ruleset.dice, **ruleset.constants}
    for p in proc.params:
        env[p.name] = _argument(args.get(p.name, p.default), p.type)
    lenient = Size(0, 0, 1)
    for step in walk(proc.steps):
        if isinstance(step.spec, RollStep):
            for roll in step.spec.rolls:
                for expr in (roll.expr, *roll.variants):
                    size = size_of(expr.tree, env, 0, lenient)
                    if not size.fits:
                        return size
    return None
