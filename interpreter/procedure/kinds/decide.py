"""`decide` and `stop`: the first branch whose condition holds sets the outcome; `stop` ends the procedure."""

from __future__ import annotations

from typing import Any

from interpreter.procedure.writing import Writer
from interpreter.ruleset.specs import Decide, Step, Stop


def write_decide(w: Writer, step: Step[Decide]) -> None:
    decided = w.temp()
    guarded = False  # whether a branch before may have held
    for branch in step.spec.branches:
        if guarded:  # reached only when no branch before held
            w.emit(f"if not {decided}:")
            w.depth += 1
        if branch.cond is None:  # the last branch: it holds whenever it is reached
            w.outcome(branch.outcome)
        else:
            with w.located(branch.where):
                holds = w.value(branch.cond)
            known, value = w.known(holds)
            if known and not value:  # never holds: nothing to write
                if guarded:
                    w.depth -= 1
                continue
            if known:  # always holds when reached
                w.outcome(branch.outcome)
                if guarded:
                    w.depth -= 1
                return
            w.emit(f"{decided} = {holds}")
            w.emit(f"if {decided}:")
            with w.indented():
                w.outcome(branch.outcome)
        if guarded:
            w.depth -= 1
        if branch.cond is None:
            return
        guarded = True


def write_stop(w: Writer, step: Step[Stop]) -> None:
    spec = step.spec
    if spec.when is None:
        if spec.outcome is not None:
            w.outcome(spec.outcome)
        w.stop()
        return
    with w.located(step.where):
        holds = w.value(spec.when)
    known, value = w.known(holds)
    if known and not value:
        return
    w.emit(f"if {holds}:")
    with w.indented():
        if spec.outcome is not None:
            w.outcome(spec.outcome)
        w.stop()


def kind() -> dict[str, Any]:
    return {"decide": write_decide, "stop": write_stop}
