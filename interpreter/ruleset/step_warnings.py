"""Warnings about the steps of a compiled ruleset, each at the step it is about.

A procedure can be valid and still not do what was meant: a `best_of` whose steps set no outcome
and that has no tiebreak keeps its first run every time.  `rules validate` prints these after a
ruleset passes, as `FILE:LINE:COL: $.path: message`, and every other command that loads the file
tells them once (cli.file_warnings).
"""

from __future__ import annotations

from interpreter.ruleset.model import CompiledRuleset
from interpreter.ruleset.specs import BestOf, walk

__all__ = ["step_warnings"]

_TIES = ("best_of keeps the run with the best outcome, and its steps set none: every run ties and the first is "
         "kept; give a tiebreak (tiebreak: total keeps the run with the largest total), or decide an outcome in "
         "its steps")


def step_warnings(ruleset: CompiledRuleset) -> list[str]:
    """Every warning about the ruleset's steps, one located line each."""
    return _tie_warnings(ruleset)


def _tie_warnings(ruleset: CompiledRuleset) -> list[str]:
    """A `best_of` whose steps set no outcome and that has no tiebreak keeps its first run: said once, where it is
    written (it is valid: the count of runs still rolls their dice); one nested in it is not said again."""
    out = []
    for proc in ruleset.procedures.values():
        inside: set[int] = set()  # the steps of a best_of already warned about
        for step in walk(proc.steps):
            if id(step) in inside or not isinstance(step.spec, BestOf) or step.spec.tiebreak is not None:
                continue
            body = list(walk(step.spec.steps))
            if any(ruleset.kinds[s.kind].sets_outcome for s in body if s.kind in ruleset.kinds):
                continue
            inside.update(id(s) for s in body)
            place = step.where
            out.append(f"{place}: {place.path}: {_TIES}" if place.path else f"{place}: {_TIES}")
    return out
