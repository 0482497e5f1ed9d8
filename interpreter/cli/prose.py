"""A procedure's steps as readable sentences, sheet steps included, for `rules describe`.

Each step kind gives its own sentence (`describe` of its record in procedure.kinds); here they are
numbered and nested, the second list of steps a step holds (an `if`'s `else`) under "Otherwise:".
"""

from __future__ import annotations

from interpreter.procedure.kinds import KINDS
from interpreter.ruleset.kind import Kinds
from interpreter.ruleset.specs import Steps

__all__ = ["step_lines"]


def step_lines(steps: Steps, kinds: Kinds = KINDS, depth: int = 0) -> list[str]:
    """The steps as a Markdown list of sentences, nested steps indented under theirs, each named one
    after its name in brackets."""
    pad = "   " * depth
    lines = []
    for number, step in enumerate(steps, start=1):
        named = f"[{step.name}] " if step.name else ""  # what an overlay calls the step by
        lines.append(f"{pad}{number}. {named}{kinds[step.kind].describe(step)}")
        for i, inner in enumerate(step.spec.nested()):
            if i and inner:
                lines.append(f"{pad}   Otherwise:")
            lines.extend(step_lines(inner, kinds, depth + 1))
    return lines
