"""Statistics of a pool of dice, each written once as a fold over the pool's faces, highest first.

A pool is a multiset: what a statistic reads is which faces its dice show and how many show each.
Every statistic is a small fold: a starting state, a step taking the state, one face and the number
of kept dice showing it (faces come in order, the highest first), and a final value.  A rolled pool
is read by sorting its dice and folding them (`fold_rolled`); exact odds fold every possible count of
every face at once (dice.pool).  There is no other definition of a statistic.

A face is (value, gain, marks): what the die shows, what it adds to the term's own result (its
value, or its success when the term counts successes) and its count of each symbol of the pool.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Sequence
from typing import Any

from interpreter.errors import BadParameter
from interpreter.record import record, replace

Face = tuple[Any, int, tuple[int, ...]]  # (value, gain, marks)
State = Any

_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "!=": operator.ne, ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt,
}
_OP = r"(==|!=|>=|<=|>|<|=)"
# (patterns kept as text: `re` compiles one when it is first used, not at every start)
_RANKED = r"^(?:(\d+)(?:st|nd|rd|th) )?(highest|lowest)$"
_SUM_OF = r"^sum of (highest|lowest) (\d+)$"
_COUNT = rf"^count *{_OP} *(.+)$"
_SETS = r"^sets(?: of (\d+))?$"
_TOTAL = r"^total ([A-Z][a-z]*)(?: *- *([A-Z][a-z]*))?$"
_CONDITION = rf"^{_OP} *(.+)$"
_NUMBER = r"^-?\d+$"
SIMPLE = ("sum", "dice", "largest set", "largest set face", "any match")
FORMS = ("sum, dice, highest, lowest, 2nd highest, 3rd lowest, sum of highest 2, count >= 5, count == hit_face, "
         "largest set, largest set face, sets, sets of 3, any match, total S, total S - F; and after any but the lowest "
         "ones: where > 1 (only the dice meeting it)")


@record
class Statistic:
    """One statistic of a pool: its kind ('result' is the term's own value) and what it is told.

    ``rank`` is the n of `2nd highest`, the k of `sum of highest k` or the n of `sets of n`; ``op`` and
    ``arg`` the condition of `count`; ``where`` the condition a die must meet to be read at all;
    ``symbol`` the symbol `total` adds up (``less`` one it takes away).  A threshold written as a formula is kept as its text
    (``texts``) until the run gives it a value (`bound`).
    """

    text: str
    kind: str
    rank: int = 0
    op: str = ""
    arg: int = 0
    where: tuple[str, int] | None = None
    symbol: str = ""
    less: str = ""  # `total S - F`: the symbol taken away
    texts: tuple[str, ...] = ()  # formulas to evaluate: the count's threshold, then the where's

    def bound(self, values: Sequence[int]) -> Statistic:
        """This statistic with its formula thresholds given values (in the order of `texts`)."""
        if not self.texts:
            return self
        found = list(values)
        arg = found.pop(0) if self.kind == "count" and _unwritten(self.arg) else self.arg
        where = self.where
        if where is not None and found:
            where = (where[0], found.pop(0))
        return replace(self, arg=arg, where=where, texts=())


_FORMULA = -(2 ** 70)  # the threshold of a condition written as a formula, until it is bound


def _unwritten(arg: int) -> bool:
    return arg == _FORMULA


RESULT = Statistic("result", "result")


def _condition(op: str, text: str) -> tuple[tuple[str, int], str | None]:
    """A condition's operator and number, or its formula text to evaluate later."""
    op = "==" if op == "=" else op
    text = text.strip()
    if re.match(_NUMBER, text):
        return (op, int(text)), None
    return (op, _FORMULA), text


def parse_statistic(text: str) -> Statistic:
    """A statistic from its text; BadParameter (with the forms allowed) when it is none."""
    words = " ".join(str(text).split())
    where = None
    texts: tuple[str, ...] = ()
    if " where " in words:
        words, _, condition = words.rpartition(" where ")
        found = re.match(_CONDITION, condition)
        if found is None:
            raise BadParameter(f"'{text}': 'where' takes a condition such as 'where > 1' or 'where != hitch'")
        where, later = _condition(found.group(1), found.group(2))
        texts = (later,) if later else ()
    stat = _base(words)
    if stat is None or where is not None and stat.kind in ("lowest", "sum of lowest"):
        raise BadParameter(f"'{text}' is not a statistic of a pool; use one of: {FORMS}")
    return replace(stat, text=" ".join(str(text).split()), where=where, texts=stat.texts + texts)


def _base(words: str) -> Statistic | None:
    """The statistic of the words before any `where`."""
    if words in SIMPLE:
        return Statistic(words, words)
    found = re.match(_RANKED, words)
    if found and int(found.group(1) or 1) >= 1:
        return Statistic(words, found.group(2), rank=int(found.group(1) or 1))
    found = re.match(_SUM_OF, words)
    if found and int(found.group(2)) >= 1:
        return Statistic(words, f"sum of {found.group(1)}", rank=int(found.group(2)))
    found = re.match(_SETS, words)
    if found and int(found.group(1) or 2) >= 2:
        return Statistic(words, "sets", rank=int(found.group(1) or 2))
    found = re.match(_TOTAL, words)
    if found:
        return Statistic(words, "total", symbol=found.group(1), less=found.group(2) or "")
    found = re.match(_COUNT, words)
    if found:
        (op, arg), later = _condition(found.group(1), found.group(2))
        return Statistic(words, "count", op=op, arg=arg, texts=(later,) if later else ())
    return None


# -- the folds ---------------------------------------------------------------------------------

class Fold:
    """One statistic as a fold: `start(total)`, `step(state, face, count)`, `final(state)`.

    ``total`` is how many dice the pool keeps (the lowest ones count from it); ``key`` says what one
    die adds, for statistics that do not care which faces come first (None for those that do).
    """

    __slots__ = ("final", "key", "reach", "start", "step")

    def __init__(self, start: Callable[[int], State], step: Callable[[State, Face, int], State],
                 final: Callable[[State], Any] = lambda s: s, key: Callable[[Face], Any] | None = None,
                 reach: str = "dice"):
        self.start, self.step, self.final, self.key = start, step, final, key
        self.reach = reach  # what its states number at most: "dice", "faces", "both", "sum" or "flag"

    def states(self, dice: int, faces: int, span: int) -> int:
        """At most how many states it takes over `dice` dice of `faces` faces whose values lie `span` apart."""
        return {"dice": dice + 1, "faces": faces + 1, "both": (dice + 1) * (faces + 1), "sum": dice * span + 1,
                "flag": 2}[self.reach]


def fold_for(stat: Statistic, symbols: Sequence[str]) -> Fold:
    """The fold of a statistic over a pool whose symbols are `symbols`."""
    kind, rank = stat.kind, stat.rank
    if stat.texts:
        raise BadParameter(f"'{stat.text}' needs its threshold before the pool is read")
    if kind == "result":
        return Fold(lambda _: 0, lambda s, f, n: s + f[1] * n, key=lambda f: f[1], reach="sum")
    if kind == "sum":
        fold = Fold(lambda _: 0, lambda s, f, n: s + f[0] * n if n else s, key=lambda f: f[0], reach="sum")
    elif kind == "dice":
        fold = Fold(lambda _: 0, lambda s, f, n: s + n, key=lambda f: 1)
    elif kind == "count":
        test, arg = _OPS[stat.op], stat.arg
        fold = Fold(lambda _: 0, lambda s, f, n: s + n if n and test(f[0], arg) else s,
                    key=lambda f: bool(test(f[0], arg)))
    elif kind == "total":
        fold = _total(stat, symbols)
    elif kind == "highest":
        fold = Fold(lambda _: (0, 0), lambda s, f, n: _ranked(s, f[0], n, rank), lambda s: s[1], reach="both")
    elif kind == "lowest":
        fold = Fold(lambda total: (total - rank + 1, 0), lambda s, f, n: _ranked_low(s, f[0], n), lambda s: s[1],
                    reach="both")
    elif kind == "sum of highest":
        fold = Fold(lambda _: (0, 0), lambda s, f, n: _take(s, f[0], n, rank), lambda s: s[1], reach="sum")
    elif kind == "sum of lowest":
        fold = Fold(lambda total: (total - rank, 0), lambda s, f, n: _take_low(s, f[0], n), lambda s: s[1],
                    reach="sum")
    elif kind == "largest set":
        fold = Fold(lambda _: 0, lambda s, f, n: max(s, n))
    elif kind == "largest set face":
        fold = Fold(lambda _: (0, 0), lambda s, f, n: (n, f[0]) if n > s[0] else s, lambda s: s[1], reach="both")
    elif kind == "sets":
        fold = Fold(lambda _: 0, lambda s, f, n: s + 1 if n >= rank else s)
    else:  # any match
        fold = Fold(lambda _: False, lambda s, f, n: s or n >= 2, reach="flag")
    return _filtered(fold, stat.where) if stat.where is not None else fold


def _total(stat: Statistic, symbols: Sequence[str]) -> Fold:
    """`total S` (how many S the dice show) or `total S - F` (how many more S than F)."""
    for symbol in (stat.symbol, stat.less) if stat.less else (stat.symbol,):
        if symbol not in symbols:
            shown = ", ".join(symbols) if symbols else "none: its faces are numbers"
            raise BadParameter(f"'{stat.text}': the pool shows no symbol '{symbol}' (its symbols: {shown})")
    at = list(symbols).index(stat.symbol)
    if stat.less:
        less = list(symbols).index(stat.less)
        return Fold(lambda _: 0, lambda s, f, n: s + (f[2][at] - f[2][less]) * n,
                    key=lambda f: f[2][at] - f[2][less], reach="sum")
    return Fold(lambda _: 0, lambda s, f, n: s + f[2][at] * n, key=lambda f: f[2][at], reach="sum")


def _ranked(state: tuple[int, Any], value: Any, count: int, rank: int) -> tuple[int, Any]:
    """The n-th highest: (dice seen, the value at the rank once reached)."""
    seen, found = state
    if seen < rank <= seen + count:
        found = value
    return seen + count, found


def _ranked_low(state: tuple[int, Any], value: Any, count: int) -> tuple[int, Any]:
    """The n-th lowest, counted from the top: (dice still above its rank, its value once reached)."""
    above, found = state
    if 0 < above <= count:
        found = value
    return above - count, found


def _take(state: tuple[int, Any], value: Any, count: int, rank: int) -> tuple[int, Any]:
    """The sum of the k highest: (dice taken, their sum)."""
    taken, total = state
    more = min(count, rank - taken)
    return (taken + more, total + value * more) if more > 0 else state


def _take_low(state: tuple[int, Any], value: Any, count: int) -> tuple[int, Any]:
    """The sum of the k lowest, counted from the top: (dice still to pass over, the sum of those below)."""
    skip, total = state
    more = count - max(skip, 0) if skip < count else 0
    return skip - count, total + value * more if more > 0 else total


def _filtered(fold: Fold, where: tuple[str, int]) -> Fold:
    """A fold that sees only the faces meeting a condition."""
    test, arg = _OPS[where[0]], where[1]
    step, key = fold.step, fold.key

    def only(state: State, face: Face, count: int) -> State:
        return step(state, face, count) if test(face[0], arg) else state

    return Fold(fold.start, only, fold.final,
                None if key is None else lambda f: key(f) if test(f[0], arg) else None, fold.reach)


def fold_rolled(stats: Sequence[Statistic], faces: Sequence[Face], symbols: Sequence[str]) -> tuple[Any, ...]:
    """Every statistic of a rolled pool: its kept dice's faces, sorted, folded."""
    ordered = sorted(faces, key=order_key, reverse=True)
    folds = [fold_for(s, symbols) for s in stats]
    states = [f.start(len(ordered)) for f in folds]
    i = 0
    while i < len(ordered):
        j = i
        while j < len(ordered) and ordered[j] == ordered[i]:
            j += 1
        states = [f.step(s, ordered[i], j - i) for f, s in zip(folds, states, strict=True)]
        i = j
    return tuple(f.final(s) for f, s in zip(folds, states, strict=True))


def order_key(face: Face) -> tuple[int, bool, tuple[int, ...]]:
    """Where a face comes among a pool's faces: by value ("at least" above the same number), then symbols."""
    value = face[0]
    return int.__int__(value), type(value) is not int, face[2]
