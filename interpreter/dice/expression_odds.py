"""The exact odds of a kept dice expression (`interpreter.dice(EXPR).odds()`): a distribution that
knows its expression, so that ``str()`` is one line for a chat."""

from __future__ import annotations

from interpreter.dice.distribution import Distribution
from interpreter.dice.report import odds_line

__all__ = ["ExpressionOdds"]


class ExpressionOdds(Distribution):
    """A distribution with its expression's ``text``; ``str()`` is ``4d6kh3: 3 to 18, mean 12.24, ...``."""

    __slots__ = ("text",)

    text: str

    @classmethod
    def of(cls, text: str, dist: Distribution) -> ExpressionOdds:
        """The distribution `dist` of the expression `text`."""
        odds = cls.__new__(cls)
        for slot in Distribution.__slots__:
            setattr(odds, slot, getattr(dist, slot))
        odds.text = text
        return odds

    def __str__(self) -> str:
        return odds_line(self.text, self)
