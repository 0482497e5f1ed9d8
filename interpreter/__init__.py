"""rulesmith: rules-as-data for tabletop role-playing games.

The few names a program needs (docs/api.md)::

    import interpreter
    check = interpreter.load_ruleset("my-system.yaml", root=".").procedure("check")   # an id, or a file in root
    result = check(stat=12, dc=15, seed=7)
    print(result)             # one line for a chat: the outcome, the values, every die
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from interpreter import dice as dice  # callable: interpreter.dice("4d6kh3") keeps a parsed expression
from interpreter.errors import BadParameter, Invalid, RulesError

if TYPE_CHECKING:
    from interpreter.api import (
        BoxTrack,
        MeterTrack,
        Odds,
        Parameter,
        Procedure,
        Resource,
        Result,
        Roll,
        Ruleset,
        Samples,
        Sheet,
        load_ruleset,
        new_sheet,
        odds,
        read_sheet,
        roll,
        run,
        sample,
        validate,
    )


def __getattr__(name: str) -> object:
    # the functions and types are imported when first asked for: `import interpreter` stays cheap, and
    # the command line, which imports modules of the package, never loads the library's face
    from importlib import import_module

    api = import_module("interpreter.api")
    if name in api.TYPES or name in api.FUNCTIONS:
        return getattr(api, name)
    raise AttributeError(f"module 'interpreter' has no attribute '{name}'")


__all__ = [
    "BadParameter",
    "BoxTrack",
    "Invalid",
    "MeterTrack",
    "Odds",
    "Parameter",
    "Procedure",
    "Resource",
    "Result",
    "Roll",
    "RulesError",
    "Ruleset",
    "Samples",
    "Sheet",
    "dice",
    "load_ruleset",
    "new_sheet",
    "odds",
    "read_sheet",
    "roll",
    "run",
    "sample",
    "validate",
]
