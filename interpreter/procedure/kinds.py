"""The step kinds of the procedure language: for each YAML key, its compiler and its runner.

This list is the one place a step kind is declared. Compiling tries the keys in this
order; the first key a step has names its kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from interpreter.procedure import call
from interpreter.procedure import steps as run
from interpreter.procedure.worlds import Handler
from interpreter.record import record
from interpreter.ruleset import steps as build
from interpreter.ruleset.context import StepCompiler
from interpreter.sheet import steps as sheet


@record
class StepKind:
    """A step kind: the YAML key that names it, how it compiles, how it runs."""

    key: str
    compile: StepCompiler
    run: Handler


def _kind(key: str, compile_one: Any, run_one: Any) -> StepKind:
    return StepKind(key, compile_one, run_one)  # each runner takes its own kind's Step[Spec]


STEP_KINDS: tuple[StepKind, ...] = (
    _kind("let", build.compile_let, run.run_let),
    _kind("roll", build.compile_roll, run.run_roll),
    _kind("decide", build.compile_decide, run.run_decide),
    _kind("stop", build.compile_stop, run.run_stop),
    _kind("if", build.compile_if, run.run_if),
    _kind("repeat", build.compile_loop, run.run_repeat),
    _kind("while", build.compile_loop, run.run_repeat),
    _kind("best_of", build.compile_best_of, run.run_best_of),
    _kind("contest", build.compile_contest, run.run_contest),
    _kind("table", build.compile_table_step, run.run_table),
    _kind("call", build.compile_call, call.run_call),
    _kind("update", sheet.compile_update, sheet.run_update),
    _kind("damage", sheet.compile_damage, sheet.run_damage),
    _kind("heal", sheet.compile_heal, sheet.run_heal),
    _kind("require", sheet.compile_require, sheet.run_require),
    _kind("for_each", sheet.compile_for_each, sheet.run_for_each),
)

COMPILERS: Mapping[str, StepCompiler] = {k.key: k.compile for k in STEP_KINDS}
RUNNERS: Mapping[str, Handler] = {k.key: k.run for k in STEP_KINDS}
