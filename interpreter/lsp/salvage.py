"""The parts of a ruleset that parse and compile, while the whole does not: what hover, completion and
definitions read before the file is valid.

The entries a problem lies in (a procedure, a constant, a table; a top-level key for a problem at the
top) are left out, and what remains is checked by the schema and compiled by the real compiler;
what that still finds is left out in turn, for a few rounds.  The ruleset compiled from the rest is
the same kind of object `rules validate` compiles, so every feature reads it as it reads a valid one.
Diagnostics never come from it: they are the validator's.
"""

from __future__ import annotations

from interpreter.errors import Invalid, RulesError
from interpreter.load.document import Document
from interpreter.record import replace
from interpreter.ruleset.model import CompiledRuleset
from interpreter.ruleset.partial import json_steps

__all__ = ["MAX_PROBLEMS", "salvage"]

MAX_PROBLEMS = 200  # a file with more problems than this is not worth taking apart
_ROUNDS = 4
_NAMED = ("ruleset", "title")  # top-level keys the compiler reads as they are: given a stand-in, never dropped


def _left_out(data: dict[str, object], problems: list[RulesError]) -> tuple[dict[str, object], bool]:
    """The data without the entries the problems lie in, and whether anything was left out."""
    out = dict(data)
    cut = False
    for problem in problems:
        steps = json_steps(problem.where.path) if problem.where is not None else None
        if not steps or not isinstance(steps[0], str) or steps[0] not in out:
            continue
        section = out[steps[0]]
        if len(steps) >= 2 and isinstance(section, dict) and steps[1] in section:
            out[steps[0]] = {k: v for k, v in section.items() if k != steps[1]}
        elif steps[0] in _NAMED:
            out[steps[0]] = "unnamed"
        else:
            del out[steps[0]]
        cut = True
    return out, cut


def salvage(doc: Document, problems: list[RulesError]) -> CompiledRuleset | None:
    """The ruleset compiled from the parts of a document free of problems, or None when nothing compiles."""
    from interpreter.load.schema import iter_errors
    from interpreter.procedure.kinds import KINDS
    from interpreter.ruleset.compiler import Compiler

    if not isinstance(doc.data, dict) or len(problems) > MAX_PROBLEMS:
        return None
    data: dict[str, object] = dict(doc.data)
    for key in _NAMED:
        if not isinstance(data.get(key), str):
            data[key] = "unnamed"
    for _ in range(_ROUNDS):
        data, cut = _left_out(data, problems)
        if not cut and problems:
            return None
        trial = replace(doc, data=data)
        problems = list(iter_errors(trial))
        if problems:
            continue
        try:
            return Compiler(trial, KINDS).compile()
        except Invalid as err:
            problems = err.problems
        except RulesError as err:
            problems = [err]
        except Exception:  # noqa: BLE001  (a shape the compiler does not expect: there is nothing to salvage)
            return None
    return None
