"""The step kinds of the procedure language and how each compiles: the one list of YAML step keys.

Compiling tries the keys in this order; the first key a step has names its kind. What each kind
does when it runs is in procedure.kinds, under the same keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from interpreter.ruleset import sheet_step_compilers as sheet
from interpreter.ruleset import step_compilers as flow
from interpreter.ruleset.context import StepCompiler

_COMPILERS: dict[str, Any] = {  # each compiler returns its own kind's spec
    "let": flow.compile_let,
    "roll": flow.compile_roll,
    "decide": flow.compile_decide,
    "stop": flow.compile_stop,
    "if": flow.compile_if,
    "repeat": flow.compile_loop,
    "while": flow.compile_loop,
    "best_of": flow.compile_best_of,
    "contest": flow.compile_contest,
    "table": flow.compile_table_step,
    "call": flow.compile_call,
    "update": sheet.compile_update,
    "damage": sheet.compile_damage,
    "heal": sheet.compile_heal,
    "require": sheet.compile_require,
    "for_each": sheet.compile_for_each,
}
COMPILERS: Mapping[str, StepCompiler] = _COMPILERS
KINDS: tuple[str, ...] = tuple(_COMPILERS)
