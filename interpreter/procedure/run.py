"""Running a compiled procedure once, with dice drawn from a source, and the result it gives."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from interpreter.absent import reported
from interpreter.procedure.kinds import RUNNERS
from interpreter.procedure.start import finished, sheet_names, start_env, worded
from interpreter.procedure.steps import run_steps
from interpreter.procedure.worlds import EvalContext, World
from interpreter.record import record
from interpreter.ruleset.model import Ruleset
from interpreter.ruleset.params import find_procedure
from interpreter.ruleset.tables import table_functions


@record
class Result:
    """What one run of a procedure gave: the outcome, the values, the trace of every roll, sheet changes."""

    ruleset: str
    procedure: str
    outcome: str
    values: Mapping[str, Any]
    trace: tuple[Any, ...]
    changes: tuple[tuple[tuple[Any, ...], Any, Any], ...] = ()


def run(ruleset: Ruleset, name: str, args: Mapping[str, Any], source: Any,
        sheet: Mapping[str, Any] | None = None) -> Result:
    """Run a procedure once, drawing dice from the source; `sheet` is a sheet bound to names (sheet.bind)."""
    return run_to_end(ruleset, name, args, source, sheet)[0]


def run_to_end(ruleset: Ruleset, name: str, args: Mapping[str, Any], source: Any,
               sheet: Mapping[str, Any] | None = None) -> tuple[Result, dict[str, Any]]:
    """A run's result and every name it ended with (what the sheet layer writes back)."""
    proc = find_procedure(ruleset, name)
    env = start_env(ruleset, proc, args, sheet)
    ctx = EvalContext(ruleset, exact=False, handlers=RUNNERS, source=source, functions=table_functions(ruleset),
                      sheet_names=sheet_names(ruleset, sheet))
    [(world, _)] = run_steps(proc.steps, [(World(env), 1)], ctx)
    outcome = finished(proc, world.outcome)
    values = {v: worded(proc, v, reported(world.env.get(v))) for v in proc.values}
    return Result(ruleset.id, proc.name, outcome, values, world.trace), dict(world.env)


__all__ = ["Result", "run", "run_to_end"]
