"""`if`: run the `then` steps where the condition holds, the `else` steps where it does not.

When neither branch rolls, calls or loops, both are written inside the current block as a Python
`if`; otherwise the condition chooses the block to run next, and both branches continue at the
block after the step, where the worlds of both are merged again for exact odds.
"""

from __future__ import annotations

from typing import Any

from interpreter.procedure.writing import Writer
from interpreter.ruleset.specs import If, Step


def write_if(w: Writer, step: Step[If]) -> None:
    spec = step.spec
    with w.located(step.where):
        holds = w.value(spec.cond)
    known, value = w.known(holds)
    if known:  # the condition reads only fixed names: only the branch it takes is written
        w.steps(spec.then if value else spec.otherwise)
        return
    if w.can_inline(spec.then + spec.otherwise):
        with w.under(f"if {holds}:"):
            w.steps(spec.then)
        if spec.otherwise:
            with w.under("else:"):
                w.steps(spec.otherwise)
        return
    then = w.block(None, spec.then[0].where if spec.then else None)
    otherwise = w.block(None, spec.otherwise[0].where) if spec.otherwise else None
    after = w.block(step.live, None)
    w.jump_if(holds, then, after if otherwise is None else otherwise)
    w.enter(then)
    w.steps(spec.then)
    w.jump(after)
    if otherwise is not None:
        w.enter(otherwise)
        w.steps(spec.otherwise)
        w.jump(after)
    w.enter(after)


def kind() -> dict[str, Any]:
    return {"if": write_if}
