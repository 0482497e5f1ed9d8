"""Where die results come from: random dice, or dice given in advance."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from interpreter.errors import BadParameter

if TYPE_CHECKING:
    import random


class DiceSource(Protocol):
    """Where die results come from.

    ``uniform`` is the generator's ``random`` when every die is drawn from one as ``draw`` draws it
    (``int(uniform() * sides) + 1``), so that a term of plain dice may draw them in one loop with the
    same numbers; None for dice given in advance.
    """

    @property
    def uniform(self) -> Callable[[], float] | None:
        """The generator's `random` when dice are drawn from one as `draw` draws them; else None."""
        ...

    def draw(self, sides: int) -> int:
        """One die, 1..sides."""
        ...

    def draw_face(self, faces: tuple[int, ...]) -> int:
        """One die with written faces (repeats allowed): the face it shows."""
        ...


class RandomSource:
    """Dice from a random.Random generator."""

    __slots__ = ("_random", "rng", "uniform")

    def __init__(self, rng: random.Random | None = None):
        if rng is None:
            rng = self.generator(None)
        self.rng = rng
        self._random = self.uniform = self.rng.random

    @staticmethod
    def generator(seed: int | None) -> random.Random:
        """A new generator, seeded when ``seed`` is given (``random`` is imported only by what rolls)."""
        import random

        return random.Random(seed)

    @classmethod
    def seeded(cls, seed: int | None) -> RandomSource:
        """Dice from a new generator seeded with ``seed`` (from the system when None)."""
        return cls(cls.generator(seed))

    def draw(self, sides: int) -> int:
        """One die, 1..sides."""
        return int(self._random() * sides) + 1

    def draw_face(self, faces: tuple[int, ...]) -> int:
        """One die with written faces: each written face equally likely."""
        return faces[int(self._random() * len(faces))]


class GivenSource:
    """Dice results written out in advance, used in order."""

    __slots__ = ("used", "values")

    uniform: Callable[[], float] | None = None  # each die is checked against its own number of sides

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

    def draw_face(self, faces: tuple[int, ...]) -> int:
        """The next given value, which must be one of the written faces."""
        if self.used >= len(self.values):
            raise BadParameter(
                f"not enough given dice: {len(self.values)} were given and the roll needs more")
        value = self.values[self.used]
        if value not in faces:
            shown = "dF" if faces == (-1, 0, 1) else "d{" + ",".join(map(str, faces)) + "}"
            raise BadParameter(f"given die {value} is not a face of a {shown}")
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
