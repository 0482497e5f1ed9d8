"""What each step kind of the procedure language does when it runs, under its YAML key (see ruleset.kinds)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from interpreter.procedure import call
from interpreter.procedure import sheet_steps as sheet
from interpreter.procedure import steps as flow
from interpreter.procedure.worlds import Handler

_RUNNERS: dict[str, Any] = {  # each runner takes its own kind's Step[Spec]
    "let": flow.run_let,
    "roll": flow.run_roll,
    "decide": flow.run_decide,
    "stop": flow.run_stop,
    "if": flow.run_if,
    "repeat": flow.run_repeat,
    "while": flow.run_repeat,
    "best_of": flow.run_best_of,
    "contest": flow.run_contest,
    "table": flow.run_table,
    "call": call.run_call,
    "update": sheet.run_update,
    "damage": sheet.run_damage,
    "heal": sheet.run_heal,
    "require": sheet.run_require,
    "for_each": sheet.run_for_each,
}
RUNNERS: Mapping[str, Handler] = _RUNNERS
