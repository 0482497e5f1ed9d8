"""`require`: refuse the whole procedure (so nothing is written) unless a condition holds."""

from __future__ import annotations

import re
from typing import Any

from interpreter.errors import Refused
from interpreter.procedure.writing import Writer
from interpreter.ruleset.specs import Require, Step
from interpreter.ruleset.texts import fill

_PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})")


def refuse(message: str, env: dict[str, Any]) -> None:
    raise Refused(fill(message, env))


def write_require(w: Writer, step: Step[Require]) -> None:
    with w.located(step.where):
        holds = w.value(step.spec.when)
    known, value = w.known(holds)
    if known and value:
        return
    names = tuple(sorted(set(_PLACEHOLDER.findall(step.spec.message))))
    w.emit(f"if not {holds}: _refuse({w.keep(step.spec.message)}, {w.given(names)})")


def kind() -> dict[str, Any]:
    return {"require": write_require}


HELPERS = {"_refuse": refuse}
