"""`contest`: compare two sides; the declared side wins ties; bind the margin and whether it was a tie."""

from __future__ import annotations

from interpreter import limits
from interpreter.procedure.writing import Writer
from interpreter.ruleset.context import CompileContext, P, ProcContext, Scope, Spec, bind, formula_at, outcome_declared
from interpreter.ruleset.kind import Instances, RawStep, StepKind
from interpreter.ruleset.liveness import Liveness, Names, names
from interpreter.ruleset.specs import Contest, Step


def compile_contest(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> Contest:
    body = spec["contest"]
    cpath = path + ("contest",)
    outcome_declared(c, body["win"], cpath + ("win",), ctx)
    outcome_declared(c, body["lose"], cpath + ("lose",), ctx)
    contest = Contest(formula_at(c, body["actor"], cpath + ("actor",), scope),
                      formula_at(c, body["defender"], cpath + ("defender",), scope),
                      body["ties"], body["win"], body["lose"], body.get("margin"), body.get("tied"))
    bind(scope, ctx, contest.margin, contest.tied)
    return contest


def reads(lv: Liveness, spec: Contest, out: Names) -> tuple[Contest, set[str]]:
    return spec, (set(out) - {spec.margin, spec.tied}) | names(spec.actor) | names(spec.defender)


def writes(spec: Contest, *_: object) -> set[str]:
    return {n for n in (spec.margin, spec.tied) if n}


def write_contest(w: Writer, step: Step[Contest]) -> None:
    spec = step.spec
    actor, defender = w.temp(), w.temp()
    with w.located(step.where):
        w.emit(f"{actor} = {w.value(spec.actor)}")
        w.emit(f"{defender} = {w.value(spec.defender)}")
    won = f"{actor} >= {defender}" if spec.ties == "actor" else f"{actor} > {defender}"
    with w.under(f"if {won}:"):
        w.outcome(spec.win)
    with w.under("else:"):
        w.outcome(spec.lose)
    if spec.margin:  # a difference of two 64-bit values can leave 64 bits: checked as every formula result is
        margin = w.temp()
        info = w.keep((f"{spec.actor.text} - {spec.defender.text}", step.where))
        w.emit(f"{margin} = {actor} - {defender}")
        w.emit(f"if not {limits.INT_MIN} <= {margin} <= {limits.INT_MAX}: _oor({margin}, {info})")
        w.set(spec.margin, margin)
    if spec.tied:
        w.set(spec.tied, f"{actor} == {defender}")


def describe(step: Step[Contest]) -> str:
    spec = step.spec
    text = (f"Compare the actor's `{spec.actor.text}` with the defender's `{spec.defender.text}`: "
            f"`{spec.win}` when the actor's is higher, `{spec.lose}` when lower, "
            f"and a tie goes to the {spec.ties}")
    if spec.tied:
        text += f" (noted in `{spec.tied}`)"
    if spec.margin:
        text += f"; the difference in `{spec.margin}`"
    return text + "."


def sample(g: Instances, times: float, depth: int) -> list[RawStep]:
    return [{"contest": {"actor": g.number(), "defender": g.number(), "ties": g.rng.choice(("actor", "defender")),
                         "win": g.outcomes[1], "lose": g.outcomes[-1], "margin": g.name()}}]


KIND = StepKind(
    keys=("contest",), specs=(Contest,), compile=compile_contest, reads=reads, writes=writes, draws=False,
    jumps=False, goes_on=True, write=write_contest, describe=describe, sample=sample, sets_outcome=True
)
