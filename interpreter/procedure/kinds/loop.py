"""`repeat` and `while`: run the body a number of times, or while a condition holds, at most `max` times.

The loop's state (iterations done, its count and maximum) is held under names no formula can
write (`#t3.done`): while the loop runs they tell apart, for exact odds, worlds that have looped
different numbers of times; they are dropped when it ends. A loop runs its body at most
limits.MAX_LOOP_ITERATIONS times; for exact odds, the worlds still looping are cut off once their
probability is below limits.TRUNCATION_MASS (the mass cut off is reported).
"""

from __future__ import annotations

from interpreter import limits
from interpreter.errors import LimitExceeded, Location
from interpreter.procedure.writing import Writer
from interpreter.record import replace
from interpreter.ruleset.context import CompileContext, P, ProcContext, Scope, Spec, compile_steps, formula_at
from interpreter.ruleset.kind import Instances, RawStep, StepKind
from interpreter.ruleset.liveness import SHEET, Liveness, Names, names
from interpreter.ruleset.liveness import writes as written_by
from interpreter.ruleset.specs import Loop, Step


def compile_loop(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> Loop:
    inner = scope.copy(weak=True)
    counter = spec.get("counter")
    inner.define(counter)
    times = formula_at(c, spec["repeat"], path + ("repeat",), scope) if "repeat" in spec else None
    condition = formula_at(c, spec["while"], path + ("while",), inner) if "while" in spec else None
    most = formula_at(c, spec["max"], path + ("max",), scope) if "max" in spec else None
    steps = compile_steps(c, spec["steps"], path + ("steps",), inner, ctx)
    if counter:
        ctx.bound.add(counter)
    return Loop(times, condition, most, counter, steps)


def reads(lv: Liveness, spec: Loop, out: Names) -> tuple[Loop, Names]:
    annotated, head = lv.loop(spec.steps, out | names(spec.condition) | ({spec.counter} if spec.counter else set()))
    return replace(spec, steps=annotated), head | names(spec.times) | names(spec.max)


def writes(spec: Loop, *_: object) -> set[str]:
    return {spec.counter} if spec.counter else set()


def loop_limit(where: Location) -> None:
    raise LimitExceeded(f"a loop ran more than {limits.MAX_LOOP_ITERATIONS} times", where)


def write_loop(w: Writer, step: Step[Loop]) -> None:
    spec = step.spec
    hidden = f"#{w.temp()}"
    done = f"{hidden}.done"
    names = [done]
    limits_of: dict[str, str] = {}  # "times"/"max" -> the code of its value where the head reads it
    with w.located(step.where):
        for word, formula in (("times", spec.times), ("max", spec.max)):
            if formula is None:
                continue
            code = w.value(formula)
            if w.known(code)[0]:  # written into the head as it is
                limits_of[word] = code
            else:
                w.set(f"{hidden}.{word}", code)
                names.append(f"{hidden}.{word}")
                limits_of[word] = w.get(f"{hidden}.{word}")
    w.set(done, "0")
    w.loop_names.append(tuple(names))
    head_live = spec.steps[-1].live if spec.steps else step.live  # what the body's end leaves is what the head reads
    head = w.block(head_live, step.where)
    body = w.block(None, spec.steps[0].where if spec.steps else step.where)
    w.loop_names.pop()
    after = w.block(step.live, None)
    w.jump(head)

    w.enter(head)
    endless = spec.times is None and spec.max is None and not spec.counter  # its passes counted by nothing it reports
    if endless:
        changed = written_by(spec.steps, w.ruleset.procedures, w.ruleset.tables, w.ruleset.kinds) - {SHEET, "outcome"}
        w.mark_loop(head, body, (done, changed))
    else:
        w.mark_loop(head, body)
    count = w.temp()
    w.emit(f"{count} = {w.get(done)}")
    for word in ("times", "max"):
        if word in limits_of:
            with w.under(f"if {count} >= {limits_of[word]}:"):
                w.jump(after)
    if spec.condition is not None:
        with w.located(step.where):
            holds = w.value(spec.condition)
        with w.under(f"if not {holds}:"):
            w.jump(after)
    w.emit(f"if {count} >= {limits.MAX_LOOP_ITERATIONS}: _loop_limit({w.keep(step.where)})")
    w.set(done, f"{count} + 1")
    if spec.counter:
        w.set(spec.counter, f"{count} + 1")
    w.jump(body)

    w.loop_names.append(tuple(names))
    w.enter(body)
    w.steps(spec.steps)
    w.jump(head)
    w.loop_names.pop()

    w.enter(after)
    for name in names:
        w.drop(name)


def describe(step: Step[Loop]) -> str:
    spec = step.spec
    words = []
    if spec.times is not None:
        words.append(f"`{spec.times.text}` times")
    if spec.condition is not None:
        words.append(f"while `{spec.condition.text}`")
    if spec.max is not None:
        words.append(f"at most `{spec.max.text}` times")
    counting = f", counting in `{spec.counter}`" if spec.counter else ""
    return "Repeat " + ", ".join(words) + counting + ":"


def sample(g: Instances, times: float, depth: int) -> list[RawStep]:
    """A loop a number of times, or while a condition holds at most a few times; its body reads its counter."""
    counter = g.counter()
    if g.rng.random() < 0.5:
        head: RawStep = {"repeat": g.rng.choice(("2", f"clamp({g.number()}, 0, 2)", "1")), "counter": counter}
        body = g.steps(times * 2, depth)
    else:
        head = {"while": g.condition(), "max": g.rng.randint(1, 3), "counter": counter}
        body = g.steps(times * 3, depth)
    return [] if body is None else [{**head, "steps": [*body, g.keep(f"{g.name()} + {counter}")]}]


KIND = StepKind(
    keys=("repeat", "while"), specs=(Loop,), compile=compile_loop, reads=reads, writes=writes, draws=True,
    jumps=True, goes_on=False, write=write_loop, describe=describe, sample=sample,
    helpers={"_loop_limit": loop_limit}
)
