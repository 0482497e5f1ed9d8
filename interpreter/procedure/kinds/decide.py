"""`decide` and `stop`: the first branch whose condition holds sets the outcome; `stop` ends the procedure."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

from interpreter.procedure.writing import Writer
from interpreter.ruleset.specs import Branch, Decide, Step, Stop


def write_decide(w: Writer, step: Step[Decide]) -> None:
    decided = w.temp()
    guarded = False  # whether a branch before may have held
    for branch in step.spec.branches:
        with w.under(f"if not {decided}:") if guarded else nullcontext():  # reached only when none before held
            held = _write_branch(w, branch, decided)
        if held == "always":
            return
        guarded = guarded or held == "maybe"


def _write_branch(w: Writer, branch: Branch, decided: str) -> str:
    """One branch of a decide: whether it holds when reached ("always", "never" or "maybe", in `decided`)."""
    if branch.cond is None:  # the last branch: it holds whenever it is reached
        w.outcome(branch.outcome)
        return "always"
    with w.located(branch.where):
        holds = w.value(branch.cond)
    known, value = w.known(holds)
    if known and not value:  # never holds: nothing to write
        return "never"
    if known:  # always holds when reached
        w.outcome(branch.outcome)
        return "always"
    w.emit(f"{decided} = {holds}")
    with w.under(f"if {decided}:"):
        w.outcome(branch.outcome)
    return "maybe"


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
    with w.under(f"if {holds}:"):
        if spec.outcome is not None:
            w.outcome(spec.outcome)
        w.stop()


def kind() -> dict[str, Any]:
    return {"decide": write_decide, "stop": write_stop}
