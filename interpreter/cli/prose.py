"""A procedure's steps as readable sentences, sheet steps included, for `rules describe`.

One small function per step kind, chosen by the kind of the compiled spec; a kind with no
sentence yet is still listed by its YAML key, so a new kind never disappears from the reference.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from interpreter.ruleset.specs import (
    BestOf,
    BoxChange,
    Call,
    Contest,
    Decide,
    ForEach,
    If,
    Let,
    Loop,
    Require,
    Roll,
    Step,
    Steps,
    Stop,
    TableLookup,
    Update,
)

__all__ = ["step_lines"]


def _code(text: Any) -> str:
    return f"`{text}`"


def _let(step: Step[Let]) -> str:
    return "Set " + "; ".join(f"{_code(a.name)} to {_code(a.formula.text)}" for a in step.spec.assign) + "."


def _update(step: Step[Update]) -> str:
    return "On the sheet, set " + "; ".join(f"{_code(a.name)} to {_code(a.formula.text)}"
                                            for a in step.spec.assign) + "."


def _roll(step: Step[Roll]) -> str:
    parts = []
    for r in step.spec.rolls:
        text = f"{_code(r.expr.text)} into {_code(r.name)}"
        if r.reads:
            text += " (reading " + ", ".join(f"{_code(name)} = {stat.text}" for name, stat in r.reads) + ")"
        parts.append(text)
    return "Roll " + "; ".join(parts) + "."


def _decide(step: Step[Decide]) -> str:
    text = ", else ".join(f"{_code(b.outcome)} when {_code(b.cond.text)}"
                          for b in step.spec.branches if b.cond is not None)
    last = [b.outcome for b in step.spec.branches if b.cond is None]
    if last:
        text = f"{text}, otherwise {_code(last[0])}" if text else _code(last[0])
    return f"The outcome is {text}."


def _stop(step: Step[Stop]) -> str:
    spec = step.spec
    return f"Stop when {_code(spec.when.text)}" + (f", with the outcome {_code(spec.outcome)}" if spec.outcome else "") + "."


def _if(step: Step[If]) -> str:
    return f"If {_code(step.spec.cond.text)}:"


def _loop(step: Step[Loop]) -> str:
    spec = step.spec
    words = []
    if spec.times is not None:
        words.append(f"{_code(spec.times.text)} times")
    if spec.condition is not None:
        words.append(f"while {_code(spec.condition.text)}")
    if spec.max is not None:
        words.append(f"at most {_code(spec.max.text)} times")
    counting = f", counting in {_code(spec.counter)}" if spec.counter else ""
    return "Repeat " + ", ".join(words) + counting + ":"


def _best_of(step: Step[BestOf]) -> str:
    spec = step.spec
    text = f"Do this {_code(spec.count.text)} times and keep the best run (best by the outcome order of {_code(spec.procedure)})"
    if spec.worst_when is not None:
        text += f", the worst instead when {_code(spec.worst_when.text)}"
    if spec.tiebreak is not None:
        text += f", ties going to the higher {_code(spec.tiebreak.text)}"
    return text + ":"


def _contest(step: Step[Contest]) -> str:
    spec = step.spec
    text = (f"Compare the actor's {_code(spec.actor.text)} with the defender's {_code(spec.defender.text)}: "
            f"{_code(spec.win)} when the actor's is higher, {_code(spec.lose)} when lower, "
            f"and a tie goes to the {spec.ties}")
    if spec.tied:
        text += f" (noted in {_code(spec.tied)})"
    if spec.margin:
        text += f"; the difference in {_code(spec.margin)}"
    return text + "."


def _table(step: Step[TableLookup]) -> str:
    spec = step.spec
    text = (f"Look up table {_code(spec.table)} at {_code(spec.key.text)}" if spec.key is not None
            else f"Roll on table {_code(spec.table)}")
    if spec.roll_as:
        text += f", the roll in {_code(spec.roll_as)}"
    if spec.value_as:
        text += f", the row's value in {_code(spec.value_as)}"
    return text + "."


def _call(step: Step[Call]) -> str:
    spec = step.spec
    text = f"Run {_code(spec.procedure)}"
    if spec.args:
        text += " with " + ", ".join(f"{a.name} = {_code(a.formula.text)}" for a in spec.args)
    if spec.prefix:
        text += f", its values as {_code(spec.prefix + '_NAME')} and its outcomes as flags {_code(spec.prefix + '_OUTCOME')}"
    if spec.inherit:
        text += ", and take its outcome"
    return text + "."


def _box(step: Step[BoxChange]) -> str:
    spec = step.spec
    verb = "Mark" if step.kind == "damage" else "Heal"
    return f"{verb} {_code(spec.amount.text)} boxes of type {_code(spec.type.text)} on the {_code(spec.track)} track."


def _require(step: Step[Require]) -> str:
    return f"Refuse unless {_code(step.spec.when.text)}: \"{step.spec.message}\"."


def _for_each(step: Step[ForEach]) -> str:
    spec = step.spec
    return f"For each of {', '.join(spec.traits)}, as {_code(spec.alias)}:"


_SENTENCES: dict[type, Callable[[Any], str]] = {
    Let: _let, Update: _update, Roll: _roll, Decide: _decide, Stop: _stop, If: _if, Loop: _loop,
    BestOf: _best_of, Contest: _contest, TableLookup: _table, Call: _call, BoxChange: _box, Require: _require,
    ForEach: _for_each,
}


def step_lines(steps: Steps, depth: int = 0) -> list[str]:
    """The steps as a Markdown list of sentences, nested steps indented under theirs."""
    pad = "   " * depth
    lines = []
    for number, step in enumerate(steps, start=1):
        sentence = _SENTENCES.get(type(step.spec))
        text = sentence(step) if sentence is not None else f"{step.kind}."
        lines.append(f"{pad}{number}. {text}")
        if isinstance(step.spec, If):
            lines.extend(step_lines(step.spec.then, depth + 1))
            if step.spec.otherwise:
                lines.append(f"{pad}   Otherwise:")
                lines.extend(step_lines(step.spec.otherwise, depth + 1))
        else:
            for inner in step.spec.nested():
                lines.extend(step_lines(inner, depth + 1))
    return lines
