"""Warnings about the dice expressions of a compiled ruleset, each at its place in the file.

A dice expression can be valid and still not say what was meant (dice.warnings): Roll20's
`10d10>7` is a comparison here, and `1d10x>=20` never explodes.  `rules validate` prints these after
a ruleset passes, as `FILE:LINE:COL: $.path: message`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from interpreter.errors import Location
from interpreter.ruleset.model import CompiledRuleset
from interpreter.ruleset.pool_warnings import pool_warnings
from interpreter.ruleset.specs import RollStep, walk

if TYPE_CHECKING:
    from interpreter.load.document import Document

__all__ = ["dice_warnings"]


class _Nowhere:
    """A document stand-in that places nothing (for asking whether there is any warning at all)."""

    def where(self, path: object) -> Location:
        return Location()


_NOWHERE = _Nowhere()


def dice_warnings(ruleset: CompiledRuleset, doc: Document | Callable[[], Document]) -> list[str]:
    """Every warning about the ruleset's dice: its named dice, its tables' dice and its roll steps, then
    each pool whose exact odds would be refused at a sample size (ruleset.pool_warnings).

    `doc` is the ruleset's document, or a function giving it (read only when there is a warning to place)."""
    pools = pool_warnings(ruleset)
    if callable(doc) and not any(e.warnings for e, _ in _expressions(ruleset, _NOWHERE)):
        return pools
    if callable(doc):
        doc = doc()
    out = []
    for expr, where in _expressions(ruleset, doc):
        for warning in expr.warnings:
            place = where.shifted(warning.col - 1)
            out.append(f"{place}: {place.path}: {warning.message}" if place.path else f"{place}: {warning.message}")
    return out + pools


def _expressions(ruleset: CompiledRuleset, doc: Document | _Nowhere) -> Iterator[tuple[Any, Location]]:
    """Each dice expression of the ruleset written in its file, with where it is written."""
    for name, expr in ruleset.dice.items():
        yield expr, doc.where(("dice", name))
    for name, table in ruleset.tables.items():
        if table.die is not None:
            yield table.die, doc.where(("tables", name, "die"))
    for proc in ruleset.procedures.values():
        for step in walk(proc.steps):
            if isinstance(step.spec, RollStep):
                for r in step.spec.rolls:
                    if r.expr is not None:
                        yield r.expr, r.where
