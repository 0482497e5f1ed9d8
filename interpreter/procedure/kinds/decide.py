"""`decide`: the first branch whose condition holds sets the outcome."""

from __future__ import annotations

from contextlib import nullcontext

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
    jumps=False, goes_on=True, write=write_decide, describe=describe, sample=sample, sets_outcome=True
)
