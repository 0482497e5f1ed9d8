"""The odds of one procedure under two rulesets, side by side: each outcome's probability and each
value's mean, before and after."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from interpreter.procedure.odds import odds
from interpreter.record import record
from interpreter.ruleset.model import Ruleset
from interpreter.ruleset.params import find_procedure

Number = Fraction | float


@record
class Pair:
    """One number before and after; None where that side does not have it."""

    before: Number | None
    after: Number | None

    @property
    def difference(self) -> float:
        return float(self.after or 0) - float(self.before or 0)

    @property
    def exact(self) -> bool:
        return all(v is None or isinstance(v, Fraction) for v in (self.before, self.after))


@record
class Comparison:
    """A procedure at one parameter set under the base and the house ruleset."""

    procedure: str
    params: Mapping[str, Any]
    outcomes: Mapping[str, Pair]
    values: Mapping[str, Pair]
    exact: bool  # both sides' odds are exact fractions with nothing cut off


def mean(dist: Mapping[Any, Number]) -> Number | None:
    """The mean of a value's distribution over its numeric results (flags count 1 and 0); None when none is."""
    numeric = {v: p for v, p in dist.items() if isinstance(v, (int, float)) and v is not None}
    mass = sum(numeric.values(), Fraction(0))
    if not numeric or not mass:
        return None
    total = sum((p * (int(v) if isinstance(v, bool) else v) for v, p in numeric.items()), Fraction(0))
    return total / mass


Sheet = Mapping[str, Any]  # a sheet bound to names (sheet.bind)


def compare(base: Ruleset, house: Ruleset, name: str, args: Mapping[str, str],
            sheets: tuple[Sheet | None, Sheet | None] = (None, None)) -> Comparison:
    """The odds of `name` with `args` under both rulesets; `sheets` are the base's and the house's
    sheet bound to names, used where the procedure works on one."""
    sides = []
    for rs, sheet in zip((base, house), sheets, strict=True):
        proc = find_procedure(rs, name)
        sides.append(odds(rs, name, args, sheet if sheet is not None and proc.sheet == "required" else None))
    before, after = sides
    outcomes = {o: Pair(before.outcomes.get(o), after.outcomes.get(o))
                for o in list(before.outcomes) + [o for o in after.outcomes if o not in before.outcomes]}
    values = {}
    for v in list(before.values) + [v for v in after.values if v not in before.values]:
        old = mean(before.values[v]) if v in before.values else None
        new = mean(after.values[v]) if v in after.values else None
        if old is not None or new is not None:
            values[v] = Pair(old, new)
    whole = before.exact and after.exact and not before.values_cut and not after.values_cut
    return Comparison(name, dict(args), outcomes, values, whole)


__all__ = ["Comparison", "Pair", "compare", "mean"]
