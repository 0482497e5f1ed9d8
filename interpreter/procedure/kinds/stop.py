"""`stop`: end the procedure where a condition holds (or always), with an outcome when one is given."""

from __future__ import annotations

from interpreter.procedure.writing import Writer
from interpreter.ruleset.context import CompileContext, P, ProcContext, Scope, Spec, formula_at, outcome_declared
from interpreter.ruleset.kind import Instances, RawStep, StepKind
from interpreter.ruleset.liveness import Liveness, Names, names
from interpreter.ruleset.specs import Step, Stop


def compile_stop(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> Stop:
    outcome_declared(c, spec.get("outcome"), path + ("outcome",), ctx)
    return Stop(formula_at(c, spec["stop"], path + ("stop",), scope), spec.get("outcome"))


def reads(lv: Liveness, spec: Stop, out: Names) -> tuple[Stop, set[str]]:
    return spec, set(out) | names(spec.when)


def writes(spec: Stop, *_: object) -> set[str]:
    return set()


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


def describe(step: Step[Stop]) -> str:
    spec = step.spec
    return f"Stop when `{spec.when.text}`" + (f", with the outcome `{spec.outcome}`" if spec.outcome else "") + "."


def sample(g: Instances, times: float, depth: int) -> list[RawStep]:
    return [{"stop": g.condition(), "outcome": g.rng.choice((g.outcomes[0], g.outcomes[-1]))}]


KIND = StepKind(
    keys=("stop",), specs=(Stop,), compile=compile_stop, reads=reads, writes=writes, draws=False, jumps=False,
    goes_on=False, write=write_stop, describe=describe, sample=sample, sets_outcome=True
)
