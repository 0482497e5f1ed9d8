"""The library's mistakes in the library's words: what the engine tells the `rules` command as
`--sheet` or `rules roll EXPR --seed N`, a program calling a function hears as `sheet=` or `roll(expr)`."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from interpreter.errors import RulesError, in_library_words

__all__ = ["library_words"]

P = ParamSpec("P")
R = TypeVar("R")


def library_words(function: Callable[P, R]) -> Callable[P, R]:
    """The function, its mistakes (a ``RulesError``, as raised) reworded in the library's words."""
    @functools.wraps(function)
    def spoken(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return function(*args, **kwargs)
        except RulesError as err:
            in_library_words(err)
            raise
    return spoken
