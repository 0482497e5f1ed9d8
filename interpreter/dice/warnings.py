"""Warnings about a dice expression that is valid but likely not what was meant.

Two kinds: Roll20's success count `10d10>7` (here a comparison of the total, as `2d20kh1+5>=15` needs
it to be), and a modifier no face of its die can meet (`1d10x>=20` explodes on 20 or more, so never).
Each warning has the column of the expression it is about; nothing here changes what the dice do.
"""

from __future__ import annotations

from interpreter.dice.keep import keep_plan
from interpreter.dice.term import walk
from interpreter.dice.tree import Compare, Cond, Dice, Name, Node, Num
from interpreter.errors import Location
from interpreter.record import record

_TESTS = {">=": int.__ge__, ">": int.__gt__, "==": int.__eq__, "<=": int.__le__, "<": int.__lt__}
_WORDS = {">=": "{n} or more", ">": "more than {n}", "==": "{n}", "<=": "{n} or less", "<": "less than {n}"}


@record
class DiceWarning:
    """A warning about a dice expression, at a column of its text (1-based)."""

    message: str
    col: int

    def where(self) -> Location:
        """Its place in the expression text, as errors give it."""
        return Location("<expr>", 1, self.col)


def warnings_of(text: str, tree: Node) -> tuple[DiceWarning, ...]:
    """Every warning about an expression, in the order of its text."""
    found: list[DiceWarning] = []
    for node in walk(tree):
        if isinstance(node, Compare):
            found.extend(_success_count(text, node))
        elif isinstance(node, Dice):
            found.extend(_never(node))
    return tuple(sorted(found, key=lambda w: w.col))


def _success_count(text: str, node: Compare) -> list[DiceWarning]:
    """`10d10>7`: Roll20 counts the dice of 7 or more; here the total is compared with 7."""
    left, right = node.left, node.right
    written = text[node.col - 1:node.col + 1]
    op = ">" if written.startswith(">") and written != ">=" else "<" if written.startswith("<") and written != "<=" \
        else "=" if written.startswith("=") and written != "==" else None
    if op is None or not isinstance(left, Dice) or left.mods.success is not None or not isinstance(right, (Num, Name)):
        return []
    count = left.count
    if isinstance(count, Num):
        kept = count.value if left.mods.keep is None or not isinstance(left.mods.keep[1], Num) else \
            keep_plan((left.mods.keep[0], left.mods.keep[1].value), count.value)[1]
        if min(kept, count.value) < 2:
            return []  # one die: its total is the die, and the comparison is the count
    n = right.value if isinstance(right, Num) else right.name
    term = left.text
    if op == ">":
        advice = (f"to count the dice above {n}, write '{term}cs>{n}' "
                  f"(Roll20's '{term}>{n}' counts {n} or more: '{term}cs>={n}')")
    elif op == "<":
        advice = (f"to count the dice below {n}, write '{term}cs<{n}' "
                  f"(Roll20's '{term}<{n}' counts {n} or less: '{term}cs<={n}')")
    else:
        advice = f"to count the dice showing {n}, write '{term}cs={n}'"
    return [DiceWarning(f"'{term}{op}{n}' compares the total of the dice with {n}; {advice}", node.col)]


def _never(node: Dice) -> list[DiceWarning]:
    """Modifiers of a term with fixed sides that no face of its die can meet."""
    shown = _faces(node)
    if shown is None:
        return []
    m = node.mods
    die = f"a d{len(shown)}" if node.faces is None else "its die"
    out = []
    for cond, verb in ((m.reroll, "rerolls"), (m.explode, "explodes"), (m.success, "counts a success"),
                       (m.deduct, "takes a success away")):
        if cond is None or cond.op == "max" or not isinstance(cond.arg, Num):
            continue
        if not any(_meets(cond, v) for v in shown):
            words = _WORDS[cond.op].format(n=cond.arg.value)
            out.append(DiceWarning(f"'{node.text}' never {verb}: it does so on a die showing {words}, "
                                   f"and no face of {die} does", cond.arg.col))
    for bound, word in ((m.least, "mi"), (m.most, "ma")):
        if isinstance(bound, Num) and not any(v < bound.value if word == "mi" else v > bound.value for v in shown):
            out.append(DiceWarning(f"'{node.text}': {word}{bound.value} never changes a die: "
                                   f"no face of {die} is {'below' if word == 'mi' else 'above'} {bound.value}",
                                   bound.col))
    return out


def _faces(node: Dice) -> list[int] | None:
    """The faces a term's die shows, when they are fixed (None when its sides come from a name)."""
    if node.faces is not None:
        return sorted(set(node.faces))
    if isinstance(node.sides, Num) and node.sides.value >= 1:
        return list(range(1, node.sides.value + 1))
    return None


def _meets(cond: Cond, value: int) -> bool:
    assert isinstance(cond.arg, Num)
    return bool(_TESTS[cond.op](value, cond.arg.value))
