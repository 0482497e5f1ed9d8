"""The code a procedure is written as, to read: what `rules describe RULESET PROCEDURE --code` prints.

The code is written as it is for running (procedure.kinds), with a listing kept: the source of
each module, the objects it names by made-up identifiers (`_g0`, ...) said in comments, and the
code of each step under a comment naming the step's place in the YAML (file:line) and its kind.

- `run`: the function a traced or sampled run calls, `run(c, E)` (procedure.function), written
  for no parameters in particular (a sampler writes one with its parameters in it);
- `exact`: the blocks of exact odds, `b0(s, c)`, ... (procedure.program), a best_of's body as
  blocks of their own, listed before the procedure's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from interpreter.procedure.function import write_function
from interpreter.procedure.kinds import helpers, writers
from interpreter.procedure.program import write

if TYPE_CHECKING:
    from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset

FORMS = ("run", "exact")


_HEADERS = {
    "run": ("# {name} as a traced or sampled run runs it: `run(c, E)` gives (outcome, stopped, values);\n"
            "# `E` holds its starting names, `c` rolls the dice and keeps the trace (procedure.context.RunContext)."),
    "exact": ("# {name} as exact odds run it: each block `b(s, c)` runs over one world `s` (its names `e`)\n"
              "# and returns the block to run next (END: done); `c` gives each result of a draw in turn\n"
              "# (procedure.context.OddsContext)."),
}


def listing(ruleset: CompiledRuleset, proc: CompiledProcedure, form: str = "run") -> str:
    """The source a procedure is written as, in one of FORMS, each step's code under its YAML line."""
    modules = [_HEADERS[form].format(name=" ".join(proc.name.split()))]
    if form == "exact":
        write(ruleset, proc, proc.steps, writers(ruleset.kinds), helpers(ruleset.kinds), listing=modules)
    else:
        write_function(ruleset, proc, writers(ruleset.kinds), helpers(ruleset.kinds), listing=modules)
    return "\n\n".join(modules)


__all__ = ["FORMS", "listing"]
