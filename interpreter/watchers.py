"""Who is told of every ruleset the pipeline gives: the command line, which tells each file's warnings.

Kept apart from ``pipeline`` so that a command that never compiles a ruleset (`rules roll`, the
odds of a dice expression) can be ready to tell warnings without importing the compiler.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from interpreter.load.find import Found
    from interpreter.ruleset.model import CompiledRuleset

# Called with every ruleset compile_ref gives, where it was found and the SHA-256 of each of its files.
Watcher = Callable[["Found", "CompiledRuleset", tuple[str, ...]], None]
_WATCHERS: list[Watcher] = []


@contextlib.contextmanager
def watching(watcher: Watcher) -> Iterator[None]:
    """While the block runs, call `watcher(found, ruleset, digests)` for every ruleset compile_ref gives."""
    _WATCHERS.append(watcher)
    try:
        yield
    finally:
        _WATCHERS.remove(watcher)


def given(found: Found, ruleset: CompiledRuleset, digests: tuple[str, ...]) -> CompiledRuleset:
    """Tell every watcher of this ruleset; the ruleset."""
    for watcher in _WATCHERS:
        watcher(found, ruleset, digests)
    return ruleset


__all__ = ["Watcher", "given", "watching"]
