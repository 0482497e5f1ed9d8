"""Events: conditions on what a run reports (its values and its outcome), and whether one holds for a run.

A procedure declares named events (`events: {complication: complications >= 1}`) and `rules odds
--where FORMULA` asks about one more; each is a formula over the procedure's reported values, its
outcome names and `outcome`, its parameters and the ruleset's constants, compiled once. Exact odds weigh it over their final worlds
(procedure.odds) and sampled runs count it over their runs (procedure.sampler): the same formula
decides both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from interpreter.absent import Absent
from interpreter.errors import Location
from interpreter.formula.compile import Formula, compile_formula
from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset

WHERE = Location("--where", 1, 1)  # where a formula given on the command line starts
UNSET = Absent("some runs end without setting it",
               "set it before any step that can end the run, or read it behind a test of the outcome "
               "(outcome == success and ...)", "is not set")


def condition_names(proc: CompiledProcedure, constants: Iterable[str]) -> frozenset[str]:
    """The names an event's formula may read."""
    params = {p.name for p in proc.params if p.type != "dice"}
    return frozenset(proc.values) | frozenset(proc.outcomes) | {"outcome"} | params | frozenset(constants)


def compile_where(ruleset: CompiledRuleset, proc: CompiledProcedure, text: str) -> Formula:
    """The formula of `--where`, checked against the names an event may read (a located error otherwise)."""
    return compile_formula(text, names=condition_names(proc, ruleset.constants), where=WHERE)


def fixed(ruleset: CompiledRuleset, proc: CompiledProcedure, start: Mapping[str, object]) -> dict[str, object]:
    """What a condition reads that no run changes: the constants, the parameters as a run starts, the outcome ranks."""
    out = dict(ruleset.constants)
    out.update((p.name, start[p.name]) for p in proc.params if p.name in start)
    out.update((name, rank) for rank, name in enumerate(proc.outcomes, start=1))
    return out


def holds(formula: Formula, proc: CompiledProcedure, values: Mapping[str, object], outcome: str,
          start: Mapping[str, object], functions: Mapping[str, Callable[..., object]]) -> bool:
    """Whether a condition holds for a run that ended with this outcome and these values (as numbers);
    `start` is what `fixed` gives."""
    env = dict(start)
    for name in formula.names:
        if name in proc.values:
            env[name] = values.get(name, UNSET)
    env["outcome"] = env.get(outcome, 0)
    return bool(formula.evaluate(env, functions))


Conditions = tuple[tuple[str | None, Formula], ...]  # (an event's name, None for `--where`; its formula)


def conditions(proc: CompiledProcedure, where: Formula | None) -> Conditions:
    """The procedure's events, then the asked condition (named None)."""
    return (*proc.events, *(((None, where),) if where is not None else ()))


__all__ = ["WHERE", "Conditions", "compile_where", "condition_names", "conditions", "fixed", "holds"]
