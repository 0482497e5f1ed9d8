"""The library's public face, re-exported by ``interpreter`` (docs/api.md).

- functions: load_ruleset, validate, run, odds, sample, roll, read_sheet, new_sheet
- ruleset: the loaded ``Ruleset``; its ``procedure(name)``, a ``Procedure`` to call (run, odds, sample,
  sampler) with typed ``Parameter``s
- arguments: what a caller gives (parameters, dice, a seed, a sheet), checked
- calls: the calls into the engine
- results: ``Result``, ``Odds``, ``Samples``, each with a one-line ``str()`` for a chat
- rolls: the ``Roll`` of ``roll(expr)``, whose ``str()`` is the line `rules roll` prints
- chat: the one-line texts those ``str()``s are made of

The types are imported when first asked for, so that importing the package stays cheap.

How this package fits with the others, and the files a new step kind, dice modifier or pool statistic
touches: docs/internals.md.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from interpreter.api.functions import load_ruleset, new_sheet, odds, read_sheet, roll, run, sample, validate
    from interpreter.api.results import Odds, Result, Samples
    from interpreter.api.rolls import Roll
    from interpreter.api.ruleset import Parameter, Procedure, Ruleset
    from interpreter.sheet.character import BoxTrack, MeterTrack, Resource, Sheet

# name -> the module it is defined in
TYPES = {
    "Ruleset": "interpreter.api.ruleset", "Procedure": "interpreter.api.ruleset",
    "Parameter": "interpreter.api.ruleset", "Result": "interpreter.api.results", "Odds": "interpreter.api.results",
    "Samples": "interpreter.api.results", "Roll": "interpreter.api.rolls", "Sheet": "interpreter.sheet.character",
    "BoxTrack": "interpreter.sheet.character", "MeterTrack": "interpreter.sheet.character",
    "Resource": "interpreter.sheet.character",
}
FUNCTIONS = ("load_ruleset", "new_sheet", "odds", "read_sheet", "roll", "run", "sample", "validate")  # (api.functions)


def __getattr__(name: str) -> object:
    if name in TYPES:
        return getattr(import_module(TYPES[name]), name)
    if name in FUNCTIONS:
        return getattr(import_module("interpreter.api.functions"), name)
    raise AttributeError(f"module 'interpreter.api' has no attribute '{name}'")


__all__ = ["BoxTrack", "MeterTrack", "Odds", "Parameter", "Procedure", "Resource", "Result", "Roll", "Ruleset",
           "Samples", "Sheet", "load_ruleset", "new_sheet", "odds", "read_sheet", "roll", "run", "sample", "validate"]
