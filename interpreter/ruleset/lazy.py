"""The procedures of a ruleset known to compile, each compiled when it is first asked for.

A command runs one procedure (and those it calls), yet compiling every procedure of a
ruleset is most of what a start costs.  When the cache remembers that exactly these bytes
compiled without a problem (see ``load/cache.py``), the compiler hands out a `Procedures`
mapping instead: its names are known at once, and each procedure is compiled on first use,
once.  Whatever reads the mapping (a run, describe, a diff) sees the same procedures an
eager compile gives, since compiling one procedure depends only on the sections before the
procedures and on the procedures it calls.  A mapping is read-only like the proxy of an
eager compile.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TypeVar

__all__ = ["Procedures"]

V = TypeVar("V")


class Procedures(Mapping[str, V]):
    """A read-only mapping whose values are made by ``make(name)`` when first read."""

    __slots__ = ("_done", "_make", "_names")

    def __init__(self, names: tuple[str, ...], make: Callable[[str], V]):
        self._names = dict.fromkeys(names)
        self._make = make
        self._done: dict[str, V] = {}

    def __getitem__(self, name: str) -> V:
        done = self._done.get(name)
        if done is not None:
            return done
        if name not in self._names:
            raise KeyError(name)
        value = self._done[name] = self._make(name)
        return value

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return f"Procedures({dict(self.items())!r})"
