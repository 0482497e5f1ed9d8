"""`if`: run the `then` steps where the condition holds, the `else` steps where it does not.

When neither branch rolls, calls or loops, both are written inside the current block as a Python
`if`; otherwise the condition chooses the block to run next, and both branches continue at the
block after the step, where the worlds of both are merged again for exact odds.
"""

from __future__ import annotations

from interpreter.procedure.writing import Writer
from interpreter.record import replace
from interpreter.ruleset.context import CompileContext, P, ProcContext, Scope, Spec, compile_steps, formula_at
from interpreter.ruleset.kind import Instances, RawStep, StepKind
from interpreter.ruleset.liveness import Liveness, Names, names
from interpreter.ruleset.specs import If, Step


def compile_if(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> If:
    cond = formula_at(c, spec["if"], path + ("if",), scope)
    then_scope, else_scope = scope.copy(weak=True), scope.copy(weak=True)
    then = compile_steps(c, spec["then"], path + ("then",), then_scope, ctx)
    other = compile_steps(c, spec.get("else") or [], path + ("else",), else_scope, ctx)
    scope.join(then_scope, else_scope)
    return If(cond, then, other)


def reads(lv: Liveness, spec: If, out: Names) -> tuple[If, Names]:
    then, then_in = lv.steps(spec.then, out)
    otherwise, else_in = lv.steps(spec.otherwise, out)
    return replace(spec, then=then, otherwise=otherwise), then_in | else_in | names(spec.cond)


def writes(spec: If, *_: object) -> set[str]:
    return set()  # (only what its steps write)


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


def describe(step: Step[If]) -> str:
    return f"If `{step.spec.cond.text}`:"


def sample(g: Instances, times: float, depth: int) -> list[RawStep]:
    then = g.steps(times, depth)
    if then is None:
        return []
    step: RawStep = {"if": g.condition(), "then": then}
    if g.rng.random() < 0.6:
        step["else"] = g.steps(times, depth)
    return [step]


KIND = StepKind(
    keys=("if",), specs=(If,), compile=compile_if, reads=reads, writes=writes, draws=False, jumps=False,
    goes_on=False, write=write_if, describe=describe, sample=sample
)
