"""A sweep: the exact odds of one procedure at every point of a grid of parameter values.

Every point is the one exact-odds computation (`procedure.odds.odds`) of the same compiled
ruleset, in one process: the ruleset is loaded and compiled once, the procedure's steps once, and
the distribution caches of the dice (a pool of five d10 is worked out once, whatever point needs
it) serve every point after the first. A point is the same computation a single `rules odds` makes,
so its numbers are the same.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence

from interpreter import budget
from interpreter.procedure.odds import ExactOdds, odds
from interpreter.record import record
from interpreter.ruleset.model import CompiledRuleset
from interpreter.ruleset.params import find_procedure


@record
class Point:
    """One point of a sweep: the swept parameters' values there (as given) and the odds."""

    at: tuple[str, ...]
    args: Mapping[str, object]
    odds: ExactOdds


@record
class Sweep:
    """The odds of a procedure across one or two swept parameters, first parameter outermost."""

    ruleset: str
    procedure: str
    outcomes: tuple[str, ...]  # declared order, best first
    axes: tuple[tuple[str, tuple[str, ...]], ...]
    points: tuple[Point, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """The swept parameters' names."""
        return tuple(name for name, _ in self.axes)

    @property
    def values(self) -> tuple[str, ...]:
        """Every value reported at some point, in the order the procedure declares them."""
        seen: dict[str, None] = {}
        for point in self.points:
            seen.update(dict.fromkeys(point.odds.values))
        return tuple(seen)


def sweep(ruleset: CompiledRuleset, name: str, fixed: Mapping[str, object], axes: Sequence[tuple[str, Sequence[str]]],
          sheet: Mapping[str, object] | None = None, each: Callable[[], None] | None = None) -> Sweep:
    """The odds of `name` at every combination of the swept values, with `fixed` for the other parameters.

    `sheet` is a sheet bound to names (sheet.bind), the same at every point; `each` is called after each point.
    The whole sweep has one budget (budget.command_budget), refused as soon as the points left are foreseen
    not to fit it.
    """
    proc = find_procedure(ruleset, name)
    points = []
    total = math.prod(len(values) for _, values in axes)
    with budget.command_budget(f"a sweep of {total} points", "sweep fewer values, or fewer parameters at once"):
        for at in itertools.product(*(values for _, values in axes)):
            args = dict(fixed)
            args.update({axis: value for (axis, _), value in zip(axes, at, strict=True)})
            points.append(Point(tuple(at), args, odds(ruleset, name, args, sheet)))
            budget.foresee(len(points), total)  # refused as soon as the points left cannot fit the budget
            if each is not None:
                each()
    outcomes = list(proc.outcomes)
    for point in points:  # an outcome a step reports without declaring it comes after the declared ones
        outcomes += [o for o in point.odds.outcomes if o not in outcomes]
    return Sweep(ruleset.id, proc.name, tuple(outcomes), tuple((n, tuple(v)) for n, v in axes), tuple(points))


__all__ = ["Point", "Sweep", "sweep"]
