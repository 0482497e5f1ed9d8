"""Exact odds: worlds that are the same state, merged into one with the sum of their probabilities.

Two worlds are the same state when they agree on the names that tell them apart where they
are (a block's key, see procedure.program), their outcome and whether they stopped; a name one
world lacks is told apart from any value. The weights of worlds that took the same rolls share
a denominator (procedure.weights), so adding them up is mostly one integer sum.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from operator import itemgetter
from typing import Any

from interpreter import budget, limits
from interpreter.errors import LimitExceeded
from interpreter.procedure.state import State
from interpreter.procedure.weights import Ratio, add_all

Weight = Any  # Ratio, Fraction, float or int (see procedure.weights)
Worlds = list[tuple[State, Weight]]
Env = Mapping[str, object]
FEW = 12  # keys of more names than this read them in one call: a sheet's names, mostly
_MISSING = object()
TOO_MANY = "use fewer dice or repeats, or sample it with `rules run ... --times N`"


class Merger:
    """Merges worlds by the names of a key; what it works out per key is kept for the computation it serves."""

    def __init__(self) -> None:
        self._getters: dict[tuple[str, ...], tuple[Callable[[Env], object], Callable[[Env], object]]] = {}

    def getters(self, names: tuple[str, ...]) -> tuple[Callable[[Env], object], Callable[[Env], object]]:
        """Two functions giving an env's values of the names as a tuple: one lookup of them all (KeyError
        when one is missing), and one giving a marker for a missing name."""
        known = self._getters.get(names)
        if known is None:
            missing = (_MISSING,) * len(names)
            known = self._getters[names] = (itemgetter(*names), lambda env: tuple(map(env.get, names, missing)))
        return known

    def merge(self, worlds: Iterable[tuple[State, Weight]], names: tuple[str, ...]) -> Worlds:
        """Add up the weights of worlds that are the same state by these names, keeping the first one."""
        merged: dict[tuple[Any, ...], list[Any]] = {}
        missing = (_MISSING,) * len(names)
        many = self.getters(names) if len(names) > FEW else None
        fetch = many[0] if many is not None else tuple
        for world, weight in worlds:
            env = world.env
            if many is not None:
                try:
                    key: tuple[object, ...] = (fetch(env), world.outcome, world.stopped)
                except KeyError:  # a name is missing: the markers from now on
                    fetch = many[1]
                    key = (fetch(env), world.outcome, world.stopped)
            else:
                key = (*map(env.get, names, missing), world.outcome, world.stopped)
            seen = merged.get(key)
            if seen is None:
                merged[key] = [world, weight, 0]
                if len(merged) > limits.MAX_WORLDS or not len(merged) % 4096:
                    _counted(merged)
            elif type(weight) is Ratio and type(seen[1]) is Ratio and seen[1].den == weight.den:
                seen[2] += weight.num  # after the same rolls: the usual case, one integer sum
            else:
                before = seen[1]
                seen[1] = (Ratio(before.num + seen[2], before.den) if seen[2] else before) + weight
                seen[2] = 0
        return [(w, Ratio(p.num + more, p.den) if more else p) for w, p, more in merged.values()]


def _counted(merged: dict[tuple[object, ...], list[object]]) -> None:
    """Refuse too many distinct states, and check the time budget now and then."""
    if len(merged) > limits.MAX_WORLDS:
        raise LimitExceeded(f"exact odds need more than {limits.MAX_WORLDS} distinct states; {budget.advice(TOO_MANY)}")
    budget.check("exact odds", TOO_MANY)


def total(worlds: Worlds) -> Any:
    """The probability mass of some worlds."""
    return add_all(p for _, p in worlds)


__all__ = ["FEW", "Merger", "Weight", "Worlds", "total"]
