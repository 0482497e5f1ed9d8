"""`for_each`: run steps once per trait, with the trait's value under the alias, and write it back to the trait."""

from __future__ import annotations

from typing import Any

from interpreter.procedure.writing import Writer
from interpreter.ruleset.derived import refresh
from interpreter.ruleset.specs import ForEach, Step


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


def kind() -> dict[str, Any]:
    return {"for_each": write_for_each}


HELPERS = {"_refresh": refresh}
