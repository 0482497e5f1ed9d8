"""The odds of one procedure under two rulesets, side by side: each outcome's probability and each
value's mean, before and after."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from interpreter.procedure.odds import ExactOdds, odds
from interpreter.record import field, record
from interpreter.ruleset.model import CompiledRuleset
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


Distribution = Mapping[object, Number]


@record
class Comparison:
    """A procedure at one parameter set under the base and the house ruleset (or under the one that has it)."""

    procedure: str
    params: Mapping[str, Any]
    outcomes: Mapping[str, Pair]
    values: Mapping[str, Pair]
    exact: bool  # both sides' odds are exact fractions with nothing cut off
    distributions: Mapping[str, tuple[Distribution | None, Distribution | None]] = field(default_factory=dict)
    only: str | None = None  # "before" or "after" for a procedure only one of the rulesets has

    @property
    def changed(self) -> bool:
        """Whether any outcome's chance or any value's distribution differs."""
        if self.only is not None:
            return True
        return (any(p.before != p.after for p in self.outcomes.values())
                or any(before != after for before, after in self.distributions.values()))


def mean(dist: Mapping[object, Number]) -> Number | None:
    """The mean of a value's distribution over its numeric results (flags count 1 and 0); None when none is."""
    numeric = {v: p for v, p in dist.items() if isinstance(v, (int, float)) and v is not None}
    mass = sum(numeric.values(), Fraction(0))
    if not numeric or not mass:
        return None
    total = sum((p * (int(v) if isinstance(v, bool) else v) for v, p in numeric.items()), Fraction(0))
    return total / mass


Sheet = Mapping[str, object]  # a sheet bound to names (sheet.bind)


def compare(base: CompiledRuleset, house: CompiledRuleset, name: str, args: Mapping[str, str],
            sheets: tuple[Sheet | None, Sheet | None] = (None, None)) -> Comparison:
    """The odds of `name` with `args` under both rulesets; `sheets` are the base's and the house's
    sheet bound to names, used where the procedure works on one. A procedure only one ruleset has
    is computed on that side alone (the other side's numbers are None)."""
    sides: list[ExactOdds | None] = []
    takes = [{p.name for p in rs.procedures[name].params} if name in rs.procedures else set() for rs in (base, house)]
    for i, (rs, sheet) in enumerate(zip((base, house), sheets, strict=True)):
        if name not in rs.procedures:
            sides.append(None)
            continue
        proc = find_procedure(rs, name)
        # a parameter only the other side takes (an overlay's effect flag, say) is left out here
        mine = {k: v for k, v in args.items() if k in takes[i] or k not in takes[1 - i]}
        # a procedure that works on no sheet still reads a trait a parameter names (`actor=PER`) off it
        reads = proc.sheet != "none" or any(str(v) in rs.traits for v in mine.values())
        sides.append(odds(rs, name, mine, sheet if sheet is not None and reads else None))
    before, after = sides
    if before is None and after is None:
        find_procedure(house, name)  # raises: neither has it
    old_outcomes = before.outcomes if before is not None else {}
    new_outcomes = after.outcomes if after is not None else {}
    outcomes = {o: Pair(old_outcomes.get(o), new_outcomes.get(o))
                for o in list(old_outcomes) + [o for o in new_outcomes if o not in old_outcomes]}
    old_values = before.values if before is not None else {}
    new_values = after.values if after is not None else {}
    values, dists = {}, {}
    for v in list(old_values) + [v for v in new_values if v not in old_values]:
        old = mean(old_values[v]) if v in old_values else None
        new = mean(new_values[v]) if v in new_values else None
        dists[v] = (old_values.get(v), new_values.get(v))
        if old is not None or new is not None:
            values[v] = Pair(old, new)
    whole = all(s.exact and not s.values_cut for s in sides if s is not None)
    only = "after" if before is None else "before" if after is None else None
    return Comparison(name, dict(args), outcomes, values, whole, dists, only)


__all__ = ["Comparison", "Pair", "compare", "mean"]
