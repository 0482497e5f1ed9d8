"""How large a dice expression's distribution would be, told from its syntax before it is built.

Building a distribution costs about as many values as it has, times the values of what each sum or
product combines.  Two readers share this estimate: every exact distribution (``rules odds``, the
library's ``dice(EXPR).odds()`` and ``.mean``, a procedure's odds) is refused before it is built when its
values would pass limits.MAX_ODDS_VALUES (``refuse_too_large``), and the language server's hover builds
only what ``fits`` its smaller bounds (MAX_VALUES values and MAX_WORK work).  The estimate reads the
tree: each node's lowest and highest value and an upper bound on how many values it takes, and the
work of combining them.  A name is looked up in the ruleset's constants and named dice; what cannot
be told (a name that is neither) counts as too large, so nothing unknown is built.
"""

from __future__ import annotations

from collections.abc import Mapping

from interpreter import limits
from interpreter.dice.tree import Chain, Compare, Dice, DiceGroup, Name, Neg, Node, Num
from interpreter.errors import LimitExceeded
from interpreter.record import record

__all__ = ["LENIENT", "MAX_VALUES", "MAX_WORK", "Size", "refuse_too_large", "size_of"]

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
LENIENT = Size(0, 0, 1)  # what a name that cannot be told counts as where only the surely too large is refused


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
        return unknown
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
    return unknown


def refuse_too_large(tree: Node, env: Mapping[str, object], text: str) -> None:
    """Refuse, before any work, an exact distribution whose values would pass limits.MAX_ODDS_VALUES at the
    values ``env`` gives its names; what cannot be told counts as one value, so only the surely too large
    is refused."""
    size = size_of(tree, env, 0, LENIENT)
    if size.values > limits.MAX_ODDS_VALUES:
        raise LimitExceeded(
            f"the exact odds of '{text}' would take too much work (up to {size.values:,} values, more than "
            f"{limits.MAX_ODDS_VALUES:,}); use fewer or smaller dice, or roll it with `rules roll EXPR --seed N`")
