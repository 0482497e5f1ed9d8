"""A roll of `interpreter.roll(EXPR)`: the traced roll with its expression, so that ``str()`` is the
line `rules roll` prints and a chat bot posts (`4d6kh3: [~~1~~, 6, 5, 2] = 13`)."""

from __future__ import annotations

from interpreter.dice import trace
from interpreter.dice.report import Expression, render_roll

__all__ = ["Roll"]


class Roll(trace.RollTrace):
    """The value of a roll (``value``), every die (``dice``, ``terms``), the expression rolled (``expr``) and
    the seed of its dice (``seed``: drawn when none was given, None for given dice).

    ``str()`` is one line with every die; ``repr()`` shows the trace.
    """

    __slots__ = ("expr", "seed")

    def __init__(self, expr: Expression, rolled: trace.RollTrace, seed: int | None):
        super().__init__(rolled.value, rolled.written, rolled.env)
        self.expr = expr
        self.seed = seed

    def __str__(self) -> str:
        return render_roll(self.expr, self)
