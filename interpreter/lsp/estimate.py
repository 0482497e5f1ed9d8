"""Whether a procedure's odds are worth starting in a hover: its rolls' sizes, told from their text.

The estimate itself belongs to the dice layer (``interpreter.dice.size``); this module reads a
procedure's rolls at a hover's arguments with it.
"""

from __future__ import annotations

from collections.abc import Mapping

from interpreter.dice.size import LENIENT, MAX_VALUES, MAX_WORK, Size, size_of
from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset

__all__ = ["MAX_VALUES", "MAX_WORK", "Size", "roll_too_big", "size_of"]


def _argument(value: object, kind: str) -> object:
    """A sample's argument as the estimate reads it: a whole number, or a dice expression's tree holder."""
    from interpreter.dice.expr import parse
    from interpreter.errors import RulesError

    if isinstance(value, str) and kind == "dice":
        try:
            return parse(value)
        except RulesError:
            return None
    if isinstance(value, str):
        return int(value) if value.lstrip("-").isdigit() and len(value) < 20 else None
    return value


def roll_too_big(ruleset: CompiledRuleset, proc: CompiledProcedure, args: Mapping[str, str]) -> Size | None:
    """The size of the first roll of a procedure's own steps known to be too large to build here, at these
    arguments; None when none is.  A name the estimate cannot tell (a value the steps work out) counts as
    one value, so only what is too large whatever it holds is refused."""
    from interpreter.ruleset.specs import RollStep, walk

    env: dict[str, object] = {**ruleset.dice, **ruleset.constants}
    for p in proc.params:
        env[p.name] = _argument(args.get(p.name, p.default), p.type)
    for step in walk(proc.steps):
        if isinstance(step.spec, RollStep):
            for roll in step.spec.rolls:
                for expr in (roll.expr, *roll.variants):
                    size = size_of(expr.tree, env, 0, LENIENT)
                    if not size.fits:
                        return size
    return None
