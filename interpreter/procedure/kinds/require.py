"""`require`: refuse the whole procedure (so nothing is written) unless a condition holds."""

from __future__ import annotations

import re
from typing import Any

from interpreter.errors import Refused
from interpreter.procedure.writing import Writer
from interpreter.ruleset.context import CompileContext, P, ProcContext, Scope, Spec
from interpreter.ruleset.kind import Instances, RawStep, StepKind
from interpreter.ruleset.liveness import Liveness, Names, names
from interpreter.ruleset.specs import Require, Step

# (patterns kept as text: `re` compiles one when it is first used, not at every start)
_PLACEHOLDER = r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})"
_READ = r"\{([A-Za-z_][A-Za-z0-9_]*)\}"  # every name the message may read (doubled braces too)


def compile_require(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> Require:
    return Require(c.formula(spec["require"], path + ("require",), scope.formulas), spec["message"])


def reads(lv: Liveness, spec: Require, out: Names) -> tuple[Require, set[str]]:
    return spec, set(out) | names(spec.when) | set(re.findall(_READ, spec.message))


def writes(spec: Require, *_: object) -> set[str]:
    return set()


def refuse(message: str, env: dict[str, Any]) -> None:
    from interpreter.ruleset.texts import fill  # (loaded by a run that is refused)

    raise Refused(fill(message, env))


def write_require(w: Writer, step: Step[Require]) -> None:
    with w.located(step.where):
        holds = w.value(step.spec.when)
    known, value = w.known(holds)
    if known and value:
        return
    names = tuple(sorted(set(re.findall(_PLACEHOLDER, step.spec.message))))
    w.emit(f"if not {holds}: _refuse({w.keep(step.spec.message)}, {w.given(names)})")


def describe(step: Step[Require]) -> str:
    return f"Refuse unless `{step.spec.when.text}`: \"{step.spec.message}\"."


def sample(g: Instances, times: float, depth: int) -> list[RawStep]:
    """A condition the procedure is refused without, its message naming a value."""
    return [{"require": g.condition(), "message": f"refused at {{{g.name()}}}"}]


KIND = StepKind(
    keys=("require",), specs=(Require,), compile=compile_require, reads=reads, writes=writes, draws=False,
    jumps=False, goes_on=False, write=write_require, describe=describe, sample=sample,
    helpers={"_refuse": refuse}
)
