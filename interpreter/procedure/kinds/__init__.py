"""The step kinds of the procedure language: for each YAML key, the one module where its meaning is written.

Each module exports one record, `KIND` (a `ruleset.kind.StepKind`): its YAML keys, its compiler,
what it reads and writes, whether it draws or loops, the code it writes for a step (see
procedure.program; tracing a run, sampling runs and exact odds all run that code), the sentence
`rules describe` gives it and random instances of it for the differential test.

- ``let``: `let`, names bound to formula values;
- ``roll``: `roll`, dice rolled (and a pool's statistics read);
- ``decide``: `decide`, the first branch that holds sets the outcome;
- ``stop``: `stop`, the procedure ended;
- ``contest``: `contest`, two sides compared, ties to the declared side, the margin;
- ``branch``: `if`;
- ``loop``: `repeat` and `while`;
- ``best_of``: `best_of`, the best (or worst) of N runs of its steps;
- ``table``: `table`, a row looked up by a key or rolled on a die;
- ``call``: `call`, another procedure run with arguments;
- ``sheet_change``: `update`, `damage` and `heal`, a character sheet's values changed;
- ``require``: `require`, a procedure refused unless a condition holds;
- ``for_each``: `for_each`, steps run once per trait.

`KINDS` is the table of them, the one list of step keys: the pipeline hands it to the compiler,
and the compiled ruleset keeps it for running (`CompiledRuleset.kinds`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

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
    stop,
    table,
)
from interpreter.procedure.writing import StepWriter
from interpreter.ruleset.kind import Kinds, distinct
from interpreter.ruleset.kind import table as kinds_table

if TYPE_CHECKING:
    from interpreter.procedure.program import Program
    from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset

KINDS: Kinds = kinds_table(let.KIND, roll.KIND, decide.KIND, stop.KIND, branch.KIND, loop.KIND, best_of.KIND,
                           contest.KIND, table.KIND, call.KIND, sheet_change.KIND, require.KIND, for_each.KIND)
"""Step key -> its kind, in the order compiling tries the keys (the first a step has names its kind)."""


def writers(kinds: Kinds) -> Mapping[str, StepWriter]:
    """Step key -> the function writing a step of that kind."""
    return {key: kind.write for key, kind in kinds.items()}


def helpers(kinds: Kinds) -> Mapping[str, object]:
    """What the code of steps calls, by the names it uses."""
    return {name: f for kind in distinct(kinds) for name, f in kind.helpers.items()}


def program_of(ruleset: CompiledRuleset, proc: CompiledProcedure, bound: Mapping[str, Any] | None = None) -> Program:
    """The blocks of a procedure for exact odds, written the first time they are needed and kept on the procedure;
    with `bound`, written with those start values in them (see writing.unchanged)."""
    from interpreter.procedure.program import write  # (exact odds' writer: a run never loads it)

    key = ("program", tuple(sorted((bound or {}).items())))
    found = proc.memo.written.get(key)
    if found is None or found[0] is not proc.steps:  # (a copy of a procedure with other steps shares the memo)
        found = _kept(proc, key, (proc.steps, write(ruleset, proc, proc.steps, writers(ruleset.kinds),
                                                         helpers(ruleset.kinds), bound=bound)))
    program: Program = found[1]
    return program


def _kept(proc: CompiledProcedure, key: Any, made: Any) -> Any:
    written = proc.memo.written
    if len(written) >= 64:  # the code of many parameter sets: the oldest go
        del written[next(iter(written))]
    written[key] = made
    return made


def function_of(ruleset: CompiledRuleset, proc: CompiledProcedure, bound: Mapping[str, Any] | None = None) -> Any:
    """The function that runs a procedure once, written the first time it is run and kept on the procedure;
    with `bound`, written with those start values in them (see writing.unchanged)."""
    from interpreter.procedure.function import write_function  # (a run's writer: exact odds never load it)

    key = ("function", tuple(sorted((bound or {}).items())))
    found = proc.memo.written.get(key)
    if found is None or found[0] is not proc.steps:
        found = _kept(proc, key, (proc.steps, write_function(ruleset, proc, writers(ruleset.kinds),
                                                                helpers(ruleset.kinds), bound)))
    return found[1]
