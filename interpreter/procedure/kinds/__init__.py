"""The step kinds of the procedure language: for each YAML key, the one place its meaning is written.

Each module writes, for the steps of its kind, the code that does the step to one state (see
procedure.program); tracing a run, sampling runs and exact odds all run that code.

- ``let``: `let`, names bound to formula values;
- ``roll``: `roll`, dice rolled (and a pool's statistics read);
- ``decide``: `decide` (the first branch that holds sets the outcome) and `stop`;
- ``contest``: `contest`, two sides compared, ties to the declared side, the margin;
- ``branch``: `if`;
- ``loop``: `repeat` and `while`;
- ``best_of``: `best_of`, the best (or worst) of N runs of its steps;
- ``table``: `table`, a row looked up by a key or rolled on a die;
- ``call``: `call`, another procedure run with arguments;
- ``sheet_change``: `update`, `damage` and `heal`, a character sheet's values changed;
- ``require``: `require`, a procedure refused unless a condition holds;
- ``for_each``: `for_each`, steps run once per trait.

Compiling a step (checking its names and references) is ruleset.step_compilers'; the list of
step keys is ruleset.kinds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from interpreter.procedure.function import write_function
from interpreter.procedure.kinds import (
    best_of,
    branch,
    call,
    contest,
    decide,
    for_each,
    let,
    loop,
    require,
    roll,
    sheet_change,
    table,
)
from interpreter.procedure.program import Program, write
from interpreter.procedure.writing import StepWriter

if TYPE_CHECKING:
    from interpreter.ruleset.model import Procedure, Ruleset

_MODULES = (let, roll, decide, contest, branch, loop, best_of, table, call, sheet_change, require, for_each)

WRITERS: Mapping[str, StepWriter] = {key: write for m in _MODULES for key, write in m.kind().items()}
"""Step key -> the function writing a step of that kind."""

HELPERS: Mapping[str, Any] = {name: f for m in _MODULES for name, f in getattr(m, "HELPERS", {}).items()}
"""What the code of steps calls, by the names it uses."""


def program_of(ruleset: Ruleset, proc: Procedure, bound: Mapping[str, Any] | None = None) -> Program:
    """The blocks of a procedure for exact odds, written the first time they are needed and kept on the procedure;
    with `bound`, written with those start values in them (see writing.unchanged)."""
    key = ("program", tuple(sorted((bound or {}).items())))
    found = proc.memo.written.get(key)
    if found is None or found[0] is not proc.steps:  # (a copy of a procedure with other steps shares the memo)
        found = _kept(proc, key, (proc.steps, write(ruleset, proc, proc.steps, WRITERS, HELPERS, bound=bound)))
    program: Program = found[1]
    return program


def _kept(proc: Procedure, key: Any, made: Any) -> Any:
    written = proc.memo.written
    if len(written) >= 64:  # the code of many parameter sets: the oldest go
        del written[next(iter(written))]
    written[key] = made
    return made


def function_of(ruleset: Ruleset, proc: Procedure, bound: Mapping[str, Any] | None = None) -> Any:
    """The function that runs a procedure once, written the first time it is run and kept on the procedure;
    with `bound`, written with those start values in them (see writing.unchanged)."""
    key = ("function", tuple(sorted((bound or {}).items())))
    found = proc.memo.written.get(key)
    if found is None or found[0] is not proc.steps:
        found = _kept(proc, key, (proc.steps, write_function(ruleset, proc, WRITERS, HELPERS, bound)))
    return found[1]
