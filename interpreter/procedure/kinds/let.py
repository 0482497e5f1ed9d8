"""`let`: bind names to the values of formulas, in order; then the notes whose condition holds go to the trace
(the steps an effect adds to a procedure say so: ruleset.effect_steps)."""

from __future__ import annotations

from interpreter.procedure.records import NoteRecord
from interpreter.procedure.writing import Writer
from interpreter.ruleset.context import CompileContext, P, ProcContext, Scope, Spec, bind, formula_at, not_sheet
from interpreter.ruleset.kind import Instances, RawStep, StepKind
from interpreter.ruleset.liveness import Liveness, Names, assigned
from interpreter.ruleset.specs import Assign, Let, Step


def compile_let(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> Let:
    assign = []
    for name, value in spec["let"].items():
        at = path + ("let", name)
        not_sheet(c, name, at, ctx)
        assign.append(Assign(name, formula_at(c, value, at, scope), c.where(at)))
        bind(scope, ctx, name)
    return Let(tuple(assign))


def reads(lv: Liveness, spec: Let, out: Names) -> tuple[Let, set[str]]:
    return spec, assigned(out, spec.assign)


def writes(spec: Let, *_: object) -> set[str]:
    return {a.name for a in spec.assign}


def write_let(w: Writer, step: Step[Let]) -> None:
    for a in step.spec.assign:
        with w.located(a.where):
            w.set(a.name, w.value(a.formula))
    for condition, text in step.spec.notes:
        with w.located(step.where):
            holds = w.value(condition)
        w.trace_when(holds, NoteRecord(text))


def describe(step: Step[Let]) -> str:
    return "Set " + "; ".join(f"`{a.name}` to `{a.formula.text}`" for a in step.spec.assign) + "."


def sample(g: Instances, times: float, depth: int) -> list[RawStep]:
    return [{"let": {g.name(): g.number()}}]


KIND = StepKind(
    keys=("let",), specs=(Let,), compile=compile_let, reads=reads, writes=writes, draws=False, jumps=False,
    goes_on=True, write=write_let, describe=describe, sample=sample
)
