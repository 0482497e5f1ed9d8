"""How large a procedure is, counted on its document before any step of it is compiled.

Compiling a procedure and writing its code take time and memory in proportion to its size, the
procedures it calls included; a procedure larger than limits.MAX_PROCEDURE_STEPS steps or
MAX_PROCEDURE_CHARS characters of steps is refused in one line, in milliseconds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sized
from typing import Any

from interpreter import limits
from interpreter.errors import Invalid, LimitExceeded, Location
from interpreter.ruleset.kind import Kinds, naming


def check_size(name: str, specs: Mapping[str, Any], where: Callable[[tuple[Any, ...]], Location],
               kinds: Kinds, takes: Mapping[str, Sized] | None = None) -> None:
    """Refuse a procedure larger than a procedure may be, the procedures it calls included
    (limits.MAX_PROCEDURE_STEPS and MAX_PROCEDURE_CHARS), before compiling any of its steps:
    compiling and writing a procedure grow with its size.  `takes` holds the effects that reach each
    procedure: each adds a step that switches it, counted with the steps written."""
    count = chars = switched = 0
    seen, todo = {name}, [name]
    while todo:
        callee_name = todo.pop()
        steps = (specs.get(callee_name) or {}).get("steps") or []
        switched += len((takes or {}).get(callee_name, ()))
        count, chars = count + _steps_in(steps), chars + _chars_in(steps)
        for callee in _callees(steps, naming(kinds, "procedure")):
            if callee not in seen and callee in specs:
                seen.add(callee)
                todo.append(callee)
    count += switched
    if count > limits.MAX_PROCEDURE_STEPS or chars > limits.MAX_PROCEDURE_CHARS:
        size = f"{count} steps" if count > limits.MAX_PROCEDURE_STEPS else f"{chars} characters of steps"
        size += f" ({switched} of them for the effects that reach it)" if switched and \
            count > limits.MAX_PROCEDURE_STEPS else ""
        calls = f" (nested ones and those of the {len(seen) - 1} procedures it calls included)" if len(seen) > 1 \
            else " (nested ones included)"
        raise Invalid([LimitExceeded(
            f"procedure '{name}' has {size}{calls}; a procedure has at most {limits.MAX_PROCEDURE_STEPS} "
            f"steps and {limits.MAX_PROCEDURE_CHARS} characters of steps", where(("procedures", name, "steps")),
            "split it into procedures that `call` one another" if len(seen) == 1 else "make it smaller")])


def _steps_in(steps: list[object]) -> int:
    """How many steps a list of steps holds, the steps nested in theirs included (counted before compiling)."""
    count = 0
    todo: list[object] = [steps]  # lists of steps (or what a malformed step holds instead)
    while todo:
        found = todo.pop()
        if not isinstance(found, list):
            continue
        count += len(found)
        todo.extend(step.get(key) for step in found if isinstance(step, dict) for key in _NESTED if key in step)
    return count


def _callees(steps: list[object], calling: frozenset[str]) -> list[str]:
    """The procedures steps call (the value of a key in `calling`), nested steps included."""
    out: list[str] = []
    todo: list[object] = [steps]
    while todo:
        found = todo.pop()
        if isinstance(found, list):
            for step in found:
                if isinstance(step, dict):
                    out += [step[key] for key in calling if isinstance(step.get(key), str)]
                    todo.extend(step.get(key) for key in _NESTED if key in step)
    return out


def _chars_in(value: object) -> int:
    """The characters of a document's keys and texts (a number or a flag counts as one)."""
    count, todo = 0, [value]
    while todo:
        found = todo.pop()
        if isinstance(found, str):
            count += len(found)
        elif isinstance(found, dict):
            count += sum(len(str(key)) for key in found)
            todo.extend(found.values())
        elif isinstance(found, list):
            todo.extend(found)
        else:
            count += 1
    return count


_NESTED = ("then", "else", "steps")  # the keys of a step that hold steps
