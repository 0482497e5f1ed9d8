"""Warnings about pools whose exact odds would be refused at the sizes a ruleset itself names.

A `roll` step that reads a pool (`read:`) has exact odds only while the pool's work estimate stays
within its limit (docs/limits.md).  `rules validate` asks that estimate, and only the estimate, at each
of a procedure's `samples` (its parameters' defaults when it has none), so that a ruleset learns that
`rules odds` would refuse its own example before anyone runs it.  A pool whose size depends on what
earlier steps work out is not known here and is not warned about.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from interpreter.dice.expr import parse_parameter
from interpreter.dice.reading import read_odds
from interpreter.errors import LimitExceeded, RulesError
from interpreter.limits import whole_number
from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset
from interpreter.ruleset.specs import RollStep, walk

__all__ = ["pool_warnings"]


def pool_warnings(ruleset: CompiledRuleset) -> list[str]:
    """`FILE:LINE:COL: $.path: message` for each pool read whose exact odds a sample size would refuse."""
    out = []
    for proc in ruleset.procedures.values():
        for sample, env in _samples(ruleset, proc):
            for roll in (r for step in walk(proc.steps) if isinstance(step.spec, RollStep) for r in step.spec.rolls):
                stats = [stat for _, stat in roll.reads]
                if not stats or any(s.texts for s in stats):
                    continue
                try:
                    read_odds(roll.expr, env, stats, True, check_only=True)
                except LimitExceeded as err:
                    shown = " ".join(f"{k}={v}" for k, v in sample.items()) or "the defaults"
                    place = roll.where
                    out.append(f"{place}: {place.path}: at {shown}, {err.message}"
                               if place.path else f"{place}: at {shown}, {err.message}")
                except (RulesError, TypeError, ValueError):  # a size the steps work out: not known here
                    continue
    return list(dict.fromkeys(out))


def _samples(ruleset: CompiledRuleset, proc: CompiledProcedure) -> Iterator[tuple[Mapping[str, object], dict[str, object]]]:
    """Each sample of a procedure (or its defaults) with the names a pool may read at it."""
    for sample in proc.samples or ({},):
        env: dict[str, object] = {**ruleset.constants, **ruleset.dice}
        for p in proc.params:
            value = sample.get(p.name, p.default)
            if value is None:
                continue
            if p.type == "dice":
                try:
                    env[p.name] = parse_parameter(str(value))
                except RulesError:
                    continue
            elif p.type == "int" and isinstance(value, str):
                try:
                    env[p.name] = whole_number(value)
                except OverflowError:
                    continue
            else:
                env[p.name] = value
        yield sample, env
