"""Running a compiled procedure once, with dice drawn from a source, and the result it gives."""

from __future__ import annotations

from collections.abc import Mapping

from interpreter.absent import reported
from interpreter.procedure.run_context import LiveRun
from interpreter.procedure.start import finished, sheet_names, start_env, worded
from interpreter.record import record
from interpreter.ruleset.model import CompiledRuleset
from interpreter.ruleset.params import find_procedure
from interpreter.ruleset.tables import table_functions


@record
class RunResult:
    """What one run of a procedure gave: the outcome, the values, the trace of every roll, sheet changes."""

    ruleset: str
    procedure: str
    outcome: str
    values: Mapping[str, object]
    trace: tuple[object, ...]
    changes: tuple[tuple[tuple[object, ...], object, object], ...] = ()
    follow_up: tuple[tuple[str, str], ...] = ()  # (flag, effect): effects the result switches on for the next run


def run(ruleset: CompiledRuleset, name: str, args: Mapping[str, object], source: object,
        sheet: Mapping[str, object] | None = None) -> RunResult:
    """Run a procedure once, drawing dice from the source; `sheet` is a sheet bound to names (sheet.bind)."""
    return run_to_end(ruleset, name, args, source, sheet)[0]


def run_to_end(ruleset: CompiledRuleset, name: str, args: Mapping[str, object], source: object,
               sheet: Mapping[str, object] | None = None) -> tuple[RunResult, dict[str, object]]:
    """A run's result and every name it ended with (what the sheet layer writes back)."""
    proc = find_procedure(ruleset, name)
    env = start_env(ruleset, proc, args, sheet)
    ctx = LiveRun(ruleset, source, table_functions(ruleset), sheet_names(ruleset, sheet), traced=True)
    outcome, _, ended = ctx.run(proc, env)
    values = {v: worded(proc, v, reported(x)) for v, x in zip(proc.values, ended, strict=True)}
    follow_up = tuple((e.param, e.name) for e in ruleset.effects.values()
                      if e.param is not None and proc.name in e.after and values.get(e.after[proc.name]) is True)
    return RunResult(ruleset.id, proc.name, finished(proc, outcome), values, tuple(ctx.trace or ()),
                  follow_up=follow_up), env


__all__ = ["RunResult", "run", "run_to_end"]
