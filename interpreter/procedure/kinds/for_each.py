"""`for_each`: run steps once per trait, with the trait's value under the alias, and write it back to the trait."""

from __future__ import annotations

from interpreter.errors import UnknownName
from interpreter.hints import suggest
from interpreter.procedure.writing import Writer
from interpreter.record import replace
from interpreter.ruleset.context import CompileContext, P, ProcContext, Scope, Spec, compile_steps
from interpreter.ruleset.derived import refresh
from interpreter.ruleset.kind import Instances, RawStep, StepKind
from interpreter.ruleset.liveness import SHEET, Liveness, Names
from interpreter.ruleset.specs import ForEach, Step


def compile_for_each(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> ForEach:
    known = ctx.sections.traits
    if isinstance(spec["for_each"], str):  # a trait group: its traits in the order they are declared
        group = spec["for_each"]
        traits = tuple(name for name, trait in known.items() if trait.group == group)
        if not traits:
            groups = sorted({t.group for t in known.values() if t.group})
            c.problem(UnknownName(f"no trait is in group '{group}'", c.where(path + ("for_each",)),
                                  suggest(group, groups) or ("groups: " + ", ".join(groups) if groups else None)))
    else:
        traits = tuple(spec["for_each"])
    for i, name in enumerate(traits):
        if name not in known:
            c.problem(UnknownName(f"unknown trait '{name}'", c.where(path + ("for_each", i)), suggest(name, list(known))))
    inner = scope.copy(weak=True)  # the steps may run no times (an empty list)
    inner.define(spec["as"])
    ctx.writable.add(spec["as"])
    steps = compile_steps(c, spec["steps"], path + ("steps",), inner, ctx)
    return ForEach(traits, spec["as"], steps)


def reads(lv: Liveness, spec: ForEach, out: Names) -> tuple[ForEach, set[str]]:
    annotated, head = lv.loop(spec.steps, out | {SHEET, spec.alias})
    return replace(spec, steps=annotated), set(head) | set(spec.traits)


def writes(spec: ForEach, *_: object) -> set[str]:
    return {spec.alias, SHEET} | set(spec.traits)


def write_for_each(w: Writer, step: Step[ForEach]) -> None:
    spec = step.spec
    index = f"#{w.temp()}.trait"  # which trait the loop is at (a name no formula can write)
    traits = w.keep(spec.traits)
    names = w.names()  # the traits and the alias are sheet names: they live with the sheet's
    w.set(index, "0")
    w.loop_names.append((index,))
    head = w.block(spec.steps[-1].live if spec.steps else step.live, step.where)
    body = w.block(None, spec.steps[0].where if spec.steps else step.where)
    w.loop_names.pop()
    after = w.block(step.live, None)
    w.jump(head)

    w.enter(head)
    at = w.temp()
    w.emit(f"{at} = {w.get(index)}")
    with w.under(f"if {at} >= {len(spec.traits)}:"):
        w.jump(after)
    w.emit(f"{names}[{spec.alias!r}] = {names}[{traits}[{at}]]")
    w.jump(body)

    w.loop_names.append((index,))
    w.enter(body)
    w.steps(spec.steps)
    at = w.temp()
    w.emit(f"{at} = {w.get(index)}")
    with w.under(f"if {spec.alias!r} in {names}:"):
        w.emit(f"{names}[{traits}[{at}]] = {names}[{spec.alias!r}]")
        if w.ruleset.sheet is not None:
            w.emit(f"_refresh({w.keep(w.ruleset)}, {names})")
    w.set(index, f"{at} + 1")
    w.jump(head)
    w.loop_names.pop()

    w.enter(after)
    w.drop(index)
    w.emit(f"{names}.pop({spec.alias!r}, None)")


def describe(step: Step[ForEach]) -> str:
    spec = step.spec
    return f"For each of {', '.join(spec.traits)}, as `{spec.alias}`:"


def sample(g: Instances, times: float, depth: int) -> list[RawStep]:
    """None: the steps need traits and a character sheet, which the differential procedures have not."""
    return []


KIND = StepKind(
    keys=("for_each",), specs=(ForEach,), compile=compile_for_each, reads=reads, writes=writes, draws=True,
    jumps=True, goes_on=False, write=write_for_each, describe=describe, sample=sample,
    helpers={"_refresh": refresh}
)
