"""Dice: the notation (docs/dice.md), rolling with a trace, exact odds, and pools read many ways.

The package is also a function: ``interpreter.dice("4d6kh3")`` parses an expression once and keeps it
(dice.parsed.ParsedDice: ``.roll(rng=None)``, ``.odds()``, ``.mean``, ``str()``).

syntax, scan, tree    text to syntax tree          term      a dice term with its parameters resolved
roller, sources       rolling, where dice come from   trace, report   what a roll shows, as text and JSON
expr                  parsed expressions (DiceExpr)   parsed    an expression kept to roll again
distribution, odds    exact odds                   saturate, atleast   exact odds through endless explosions
compound              compounding dice (!!)        warnings  what an expression likely did not mean
statistic, pool, reading   what a roll step's `read` takes from its pool

How this package fits with the others, and the files a new step kind, dice modifier or pool statistic
touches: docs/internals.md.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any


class _Package(ModuleType):
    """This package, callable: interpreter.dice(EXPR)."""

    def __call__(self, text: str) -> Any:
        """A dice expression parsed once, to roll again and again (dice.parsed.ParsedDice)."""
        from interpreter.dice.parsed import ParsedDice

        return ParsedDice(text)


sys.modules[__name__].__class__ = _Package
