"""`decide`: the first branch whose condition holds sets the outcome."""

from __future__ import annotations

from interpreter.procedure.writing import Writer
from interpreter.ruleset.context import CompileContext, P, ProcContext, Scope, Spec, formula_at, outcome_declared
from interpreter.ruleset.kind import Instances, RawStep, StepKind
from interpreter.ruleset.liveness import Liveness, Names, names
from interpreter.ruleset.specs import Branch, Decide, Step


def compile_decide(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> Decide:
    branches = []
    later = scope.copy(weak=True)  # a branch's condition is read only when the ones before it fail
    for i, branch in enumerate(spec["decide"]):
        bpath = path + ("decide", i)
        cond = formula_at(c, branch["when"], bpath + ("when",), later if i else scope) if "when" in branch else None
        outcome_declared(c, branch["outcome"], bpath + ("outcome",), ctx)
        branches.append(Branch(cond, branch["outcome"], c.where(bpath)))
    return Decide(tuple(branches))


def reads(lv: Liveness, spec: Decide, out: Names) -> tuple[Decide, set[str]]:
    return spec, set(out).union(*(names(b.cond) for b in spec.branches))


def writes(spec: Decide, *_: object) -> set[str]:
    return set()  # (the outcome is every procedure's)


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


def describe(step: Step[Decide]) -> str:
    text = ", else ".join(f"`{b.outcome}` when `{b.cond.text}`" for b in step.spec.branches if b.cond is not None)
    last = [b.outcome for b in step.spec.branches if b.cond is None]
    if last:
        text = f"{text}, otherwise `{last[0]}`" if text else f"`{last[0]}`"
    return f"The outcome is {text}."


def sample(g: Instances, times: float, depth: int) -> list[RawStep]:
    return [{"decide": [{"when": g.condition(), "outcome": g.rng.choice(g.outcomes[:-1])},
                        {"when": g.condition(), "outcome": g.outcomes[-1]}]}]


KIND = StepKind(
    keys=("decide",), specs=(Decide,), compile=compile_decide, reads=reads, writes=writes, draws=False,
    jumps=False, goes_on=True, write=write_decide, describe=describe, sample=sample
)
