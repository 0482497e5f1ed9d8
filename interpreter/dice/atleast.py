"""A saturated roll total: known only to be at least some number, for exact odds through explosions.

Exact odds of a procedure lump the endless tail of an exploding roll into one value, `AtLeast(c)`
("c or more"), whose probability is exact.  Whatever the procedure then asks of it that has one
answer for every number from c up (`>= 5`, `> 0`, `+ 2`) is answered; anything else raises
`Undecided`, and the odds are computed again with the tail cut off instead.

Arithmetic that never lowers a larger number (adding, taking away or multiplying by a number,
dividing by a positive one rounding down, `max` and `min`) gives another `AtLeast`, which keeps how
a bound on its own value maps back to a bound on the roll it came from: a comparison it cannot
settle then says how far that roll must be told apart (`Undecided.need`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn, Self

from interpreter.formula.functions import Partial

BIG = 2 ** 62  # numbers this large are beyond any roll total (limits.MAX_DICE_ROLLED dice of at most MAX_FACES)


class Undecided(Exception):
    """A formula asked of a saturated total something its lower bound does not settle.

    ``need`` is the cap the roll that made the total would need for the question to be settled, where
    that is known (a comparison with a number); None otherwise.
    """

    def __init__(self, message: str, need: int | None = None):
        super().__init__(message)
        self.need = need
        self.lumped = False  # it was asked where a loop with no bound had lumped its numbers (procedure.settle)


def _undecided(*_: Any) -> NoReturn:
    raise Undecided("a formula compares or combines exploding totals in a way their lower bounds do not settle")


def _asking(what: str) -> Callable[..., NoReturn]:
    """An operation 'at least' cannot answer, refused saying which (the reason exact odds give for cutting off)."""
    def refuse(*_: object) -> NoReturn:
        raise Undecided(f"a formula takes {what} of an exploding total, which its lower bound does not settle")
    return refuse


class AtLeast(Partial):
    """A total of at least `int.__int__(self)`, exact value unknown.

    ``base`` is the cap of the roll it came from (it moves with additions), so that a comparison it cannot
    settle can say how large that cap would have to be; ``root`` maps a bound on this value to the bound on
    that roll's total that would settle it (None: the bound itself, less what was added).
    """

    def __new__(cls, low: int, base: int | None = None, root: Callable[[int], int] | None = None) -> Self:
        made = super().__new__(cls, low)
        made.base = int.__int__(made) if base is None else base
        made.root = root
        return made

    base: int
    root: Callable[[int], int] | None

    def _mapped(self, low: int, back: Callable[[int], int]) -> AtLeast:
        """The value of a monotone function of this one: at least `low`; `back` maps a bound on it to one on this."""
        root = self.root
        if root is None:
            shift = self.base - self.low  # the roll's total is this value plus `shift`
            return AtLeast(low, None, lambda bound: back(bound) + shift)
        return AtLeast(low, None, lambda bound: root(back(bound)))

    @property
    def low(self) -> int:
        """The lower bound."""
        return int.__int__(self)

    def _need(self, bound: int) -> NoReturn:
        """Refuse a question settled only by knowing whether the total reaches `bound`."""
        need = self.root(bound) if self.root is not None else bound - self.low + self.base
        raise Undecided("a formula needs more of an exploding total than 'at least'", need)

    def __repr__(self) -> str:
        return f"AtLeast({self.low})"

    __str__ = __repr__

    def __hash__(self) -> int:
        return hash(("at least", self.low))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, AtLeast):
            return self.low == other.low
        if isinstance(other, int) and (other < self.low or other >= BIG):
            return False
        if not isinstance(other, int):
            return NotImplemented
        self._need(other + 1)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __ge__(self, other: object) -> bool:
        if isinstance(other, int) and not isinstance(other, AtLeast):
            if self.low >= other:
                return True
            if other >= BIG:
                return False
            self._need(other)
        _undecided()

    def __gt__(self, other: object) -> bool:
        if isinstance(other, int) and not isinstance(other, AtLeast):
            if self.low > other:
                return True
            if other >= BIG:
                return False
            self._need(other + 1)
        _undecided()

    def __le__(self, other: object) -> bool:
        return not self > other

    def __lt__(self, other: object) -> bool:
        return not self >= other

    def __add__(self, other: object) -> AtLeast:
        if isinstance(other, AtLeast):
            return AtLeast(self.low + other.low, None)
        if isinstance(other, int):
            if self.root is not None:
                added = int(other)
                return self._mapped(self.low + added, lambda bound: bound - added)
            return AtLeast(self.low + other, self.base)
        _undecided()

    __radd__ = __add__

    def __sub__(self, other: object) -> AtLeast:
        if isinstance(other, int) and not isinstance(other, AtLeast):
            return self + -other
        _undecided()

    def __mul__(self, other: object) -> int:
        if isinstance(other, int) and not isinstance(other, AtLeast) and other >= 0:
            if not other:
                return 0
            times = int(other)
            return self._mapped(self.low * times, lambda bound: -(-bound // times))
        _undecided()

    __rmul__ = __mul__

    def __floordiv__(self, other: object) -> AtLeast:
        """Rounded down by a positive number: still at least the bound divided, and as large as the total grows."""
        if isinstance(other, int) and not isinstance(other, AtLeast) and other > 0:
            by = int(other)
            return self._mapped(self.low // by, lambda bound: bound * by)
        _undecided()

    def __bool__(self) -> bool:
        if self.low > 0:
            return True
        self._need(1)

    __rsub__ = __neg__ = _asking("the negative")
    __rfloordiv__ = __truediv__ = __rtruediv__ = __divmod__ = __rdivmod__ = _asking("a division (other than // a positive number)")
    __mod__ = __rmod__ = _asking("a remainder (%)")
    __pow__ = __rpow__ = _asking("a power (**)")
    __int__ = __index__ = __float__ = __round__ = __trunc__ = __floor__ = __ceil__ = _asking("the exact value")
    __abs__ = __pos__ = __invert__ = _asking("abs() or a sign")
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = __lshift__ = __rshift__ = _asking("a bit operation")
