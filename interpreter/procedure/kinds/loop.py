"""`repeat` and `while`: run the body a number of times, or while a condition holds, at most `max` times.

The loop's state (iterations done, its count and maximum) is held under names no formula can
write (`#t3.done`): while the loop runs they tell apart, for exact odds, worlds that have looped
different numbers of times; they are dropped when it ends. A loop runs its body at most
limits.MAX_LOOP_ITERATIONS times; for exact odds, the worlds still looping are cut off once their
probability is below limits.TRUNCATION_MASS (the mass cut off is reported).
"""

from __future__ import annotations

from typing import Any

from interpreter import limits
from interpreter.errors import LimitExceeded, Location
from interpreter.procedure.writing import Writer
from interpreter.ruleset.specs import Loop, Step


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


def kind() -> dict[str, Any]:
    return {"repeat": write_loop, "while": write_loop}


HELPERS = {"_loop_limit": loop_limit}
