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
    done, times, most = f"{hidden}.done", f"{hidden}.times", f"{hidden}.most"
    names = (done,) + ((times,) if spec.times is not None else ()) + ((most,) if spec.max is not None else ())
    with w.located(step.where):
        if spec.times is not None:
            w.set(times, w.value(spec.times))
        if spec.max is not None:
            w.set(most, w.value(spec.max))
    w.set(done, "0")
    w.loop_names.append(names)
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
    if spec.times is not None:
        w.emit(f"if {count} >= {w.get(times)}:")
        with w.indented():
            w.jump(after)
    if spec.max is not None:
        w.emit(f"if {count} >= {w.get(most)}:")
        with w.indented():
            w.jump(after)
    if spec.condition is not None:
        with w.located(step.where):
            holds = w.value(spec.condition)
        w.emit(f"if not {holds}:")
        with w.indented():
            w.jump(after)
    w.emit(f"if {count} >= {limits.MAX_LOOP_ITERATIONS}: _loop_limit({w.keep(step.where)})")
    w.set(done, f"{count} + 1")
    if spec.counter:
        w.set(spec.counter, f"{count} + 1")
    w.jump(body)

    w.loop_names.append(names)
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
