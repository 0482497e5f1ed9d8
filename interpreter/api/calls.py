"""The library's calls into the engine, on a compiled ruleset: one run, exact odds, many runs.

These are the only places the library meets the engine (interpreter.procedure.run, .odds,
.sampler, and interpreter.sheet.session where a sheet is given); each returns the library's
form of the result (interpreter.api.results).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from interpreter.api.results import Odds, Result, Samples
    from interpreter.dice.sources import DiceSource
    from interpreter.ruleset.model import CompiledRuleset

__all__ = ["odds", "run", "sample"]


def run(ruleset: CompiledRuleset, name: str, args: Mapping[str, object], dice: DiceSource, sheet: str | None,
        write: bool, seed: int | None) -> Result:
    """One run with its trace; with a sheet, its changes listed and written only when `write`; `seed` is
    the seed the dice came from (None for given dice), kept on the result."""
    from interpreter.api.arguments import exhausted
    from interpreter.api.given import shortfall
    from interpreter.api.results import public
    from interpreter.errors import BadParameter
    from interpreter.record import replace

    try:
        if sheet is None:
            from interpreter.procedure import run as running

            result = running.run(ruleset, name, args, dice)
            exhausted(dice)
        else:
            from interpreter.sheet import session

            result = session.run_on_file(ruleset, name, args, dice, sheet, write=write,
                                         after=lambda: exhausted(dice))[0]
    except BadParameter as err:
        raise shortfall(err, dice, "dice") from None
    out: Result = replace(public(result), seed=seed)
    return out


def odds(ruleset: CompiledRuleset, name: str, args: Mapping[str, object], sheet: str | None) -> Odds:
    """The exact odds; a sheet is read, never written."""
    from interpreter.api.results import public

    if sheet is None:
        from interpreter.procedure.odds import odds as procedure_odds

        found = procedure_odds(ruleset, name, args)
    else:
        from interpreter.sheet import session
        from interpreter.sheet.file import SheetFile

        handle = SheetFile.read(sheet)
        found = session.odds(ruleset, name, args, handle.data, handle.doc)
    out: Odds = public(found)
    return out


def sample(ruleset: CompiledRuleset, name: str, args: Mapping[str, object], times: int, seed: int | None) -> Samples:
    """The counts of many runs without a trace."""
    from interpreter.api.results import public
    from interpreter.procedure import sampler

    out: Samples = public(sampler.sample(ruleset, name, args, times, seed))
    return out
