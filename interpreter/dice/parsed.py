"""A dice expression parsed once and kept, to roll again and again: what `interpreter.dice(EXPR)` gives.

It rolls through the same compiled roller as `rules roll` (every die traced), with one generator
drawn from directly; its odds are those `rules odds EXPR` prints.  The result's `str()` is the line
`rules roll` prints, made only when asked for.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING

from interpreter import limits
from interpreter.dice.expr import DiceExpr, RandomSource, parse
from interpreter.dice.report import render_roll
from interpreter.dice.roller import Draw, Env, Runner, Traces
from interpreter.dice.term import walk
from interpreter.dice.trace import Die, RollTrace
from interpreter.dice.tree import Chain, Num
from interpreter.errors import EvaluationError

if TYPE_CHECKING:
    from interpreter.dice.expression_odds import ExpressionOdds

__all__ = ["ParsedDice", "RolledDice"]

_NOTHING: Env = {}
_SHARED: list[RandomSource] = []  # dice from the generator of rolls given none, made on first use


def shared_source() -> RandomSource:
    """Dice from one generator seeded by the system once, for rolls that are given no generator."""
    if not _SHARED:
        _SHARED.append(RandomSource(RandomSource.generator(None)))
    return _SHARED[0]


def _drawing(random_: Callable[[], float]) -> Draw:
    """One die, 1 to sides, from a generator's `random` as RandomSource.draw draws it (the same numbers)."""
    def draw(sides: int) -> int:
        return int(random_() * sides) + 1
    return draw


class RolledDice(tuple):  # type: ignore[type-arg]  # (value, raw traces, expression): made at the cost of a tuple
    """One roll of a kept expression: its `value`, every die (`dice`), and `str()` as a chat line."""

    __slots__ = ()

    @property
    def value(self) -> int:
        """The roll's result."""
        value: int = self[0]
        return value

    @property
    def roll(self) -> RollTrace:
        """The full trace of the roll."""
        return RollTrace(self[0], self[1], _NOTHING)

    @property
    def dice(self) -> tuple[Die, ...]:
        """Every die, kept or not, in draw order."""
        return self.roll.dice

    def __int__(self) -> int:
        return self.value

    def __str__(self) -> str:
        return render_roll(self[2], self.roll)

    def __repr__(self) -> str:
        return f"RolledDice({self[2].text!r}, value={self[0]})"


_made = tuple.__new__


class ParsedDice:
    """A dice expression parsed once (docs/dice.md): `roll(rng=None)`, `odds()`, `mean`, `str()`; immutable."""

    __slots__ = ("_draw", "_expr", "_risky", "_run", "_static")

    _draw: tuple[random.Random | None, Callable[[], RolledDice] | None]  # the last generator, its roll
    _expr: DiceExpr
    _risky: bool  # whether the value could leave 64 bits (it multiplies, or holds a large number)
    _run: Runner
    _static: int

    def __init__(self, text: str):
        expr = parse(text)
        if expr.names:
            raise EvaluationError(f"'{text}' names {', '.join(sorted(expr.names))}; a kept expression rolls "
                                  "dice and numbers only (give the values in the text)")
        set_ = object.__setattr__
        set_(self, "_expr", expr)
        run = expr.runner
        set_(self, "_run", run if not isinstance(run, int) else lambda env, draw, ctx, traces: run)
        set_(self, "_static", expr.static)
        set_(self, "_risky", any(isinstance(n, Chain) and any(op == "*" for op, _ in n.rest)
                                 or isinstance(n, Num) and abs(n.value) > 2 ** 40 for n in walk(expr.tree)))
        set_(self, "_draw", (None, None))

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError("a dice expression cannot be changed")

    def roll(self, rng: random.Random | None = None) -> RolledDice:
        """Roll once with `rng` (a `random.Random`; a generator seeded by the system when None)."""
        if rng is None:
            rng = shared_source().rng
        last, rolling = self._draw
        if last is not rng or rolling is None:
            rolling = self._rolling(rng)
            object.__setattr__(self, "_draw", (rng, rolling))
        return rolling()

    def _rolling(self, rng: random.Random) -> Callable[[], RolledDice]:
        """One roll with dice from `rng`, everything it reads bound once (a bot rolls one expression often)."""
        source = RandomSource(rng)
        draw, uniform = _drawing(rng.random), source.uniform
        run, static, expr, risky = self._run, self._static, self._expr, self._risky

        def rolling() -> RolledDice:
            traces: Traces = []
            value = run(_NOTHING, draw, [static, 0, source, uniform], traces)
            if risky and not limits.INT_MIN <= value <= limits.INT_MAX:
                raise EvaluationError(f"the result of '{expr.text}' is too large")
            return _made(RolledDice, (value, traces, expr))
        return rolling

    def odds(self) -> ExpressionOdds:
        """The exact distribution of the value (dice.distribution.Distribution), as `rules odds EXPR` gives it;
        its `str()` is one line for a chat."""
        from interpreter.dice.expression_odds import ExpressionOdds
        from interpreter.errors import RulesError, in_library_words

        try:
            return ExpressionOdds.of(self._expr.text, self._expr.distribution({}))
        except RulesError as err:  # (the library's words: `roll(expr)`, not a command)
            in_library_words(err)
            raise

    @property
    def mean(self) -> float:
        """The expected value."""
        mean: float = self.odds().mean
        return mean

    @property
    def warnings(self) -> tuple[str, ...]:
        """Each warning about the expression (dice.warnings) as `<expr>:1:COL: message`."""
        return tuple(f"{w.where()}: {w.message}" for w in self._expr.warnings)

    @property
    def text(self) -> str:
        return self._expr.text

    def __str__(self) -> str:
        return self._expr.text

    def __repr__(self) -> str:
        return f"ParsedDice({self._expr.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ParsedDice) and other._expr == self._expr

    def __hash__(self) -> int:
        return hash(("dice", self._expr.text))
