"""The library's public face: load a ruleset, validate it, run a procedure, get exact odds, roll dice,
read a character sheet.  Everything here is re-exported by ``interpreter``; see docs/api.md.

Each function imports what it needs when called, so importing the package stays cheap.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from interpreter.dice.sources import DiceSource
    from interpreter.dice.trace import Roll
    from interpreter.errors import RulesError
    from interpreter.procedure.odds import Odds
    from interpreter.procedure.run import Result
    from interpreter.procedure.sampler import Samples
    from interpreter.ruleset.model import Ruleset


def load_ruleset(ref: str) -> Ruleset:
    """Load, validate and compile a ruleset by bundled id or file path.

    Raises ``interpreter.errors.Invalid`` listing every problem when the ruleset is not valid, and
    another ``RulesError`` (one located line) when it cannot be read at all.
    """
    from interpreter.pipeline import compile_ref

    return compile_ref(ref)


def validate(ref: str) -> list[RulesError]:
    """Every problem of a ruleset (bundled id or path), in file order; an empty list when it is valid."""
    from interpreter.pipeline import problems

    return problems(ref)


def _source(seed: int | None, dice: Sequence[int] | None) -> DiceSource:
    from interpreter.dice.sources import GivenSource, RandomSource
    from interpreter.errors import BadParameter

    if seed is not None and dice is not None:
        raise BadParameter("give either seed or dice, not both")
    if dice is not None:
        return GivenSource(list(dice))
    return RandomSource.seeded(seed)


def _exhausted(source: DiceSource) -> None:
    from interpreter.dice.sources import GivenSource

    if isinstance(source, GivenSource):
        source.check_exhausted()


def _ruleset(ruleset: Ruleset | str) -> Ruleset:
    return load_ruleset(ruleset) if isinstance(ruleset, str) else ruleset


def _args(params: Mapping[str, object] | None) -> dict[str, str]:
    """Parameters as the command line would give them: flags as true/false, everything else as text."""
    out = {}
    for name, value in (params or {}).items():
        out[name] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return out


def run(ruleset: Ruleset | str, procedure: str, params: Mapping[str, object] | None = None, *,
        seed: int | None = None, dice: Sequence[int] | None = None, sheet: str | None = None,
        write: bool = True) -> Result:
    """Run one procedure and return its outcome, values and the trace of every die.

    ``seed`` makes the dice repeatable; ``dice`` gives them exactly, in roll order (too few or too many is
    an error).  With ``sheet`` (a sheet file's path) the procedure reads the sheet's traits and, unless
    ``write`` is false, writes what it changed back to the file atomically; ``Result.changes`` lists them.
    """
    rs = _ruleset(ruleset)
    source = _source(seed, dice)
    if sheet is None:
        from interpreter.procedure import run as running

        result = running.run(rs, procedure, _args(params), source)
        _exhausted(source)
        return result
    from interpreter.sheet import session

    return session.run_on_file(rs, procedure, _args(params), source, sheet, write=write,
                               after=lambda: _exhausted(source))[0]


def odds(ruleset: Ruleset | str, procedure: str, params: Mapping[str, object] | None = None, *,
         sheet: str | None = None) -> Odds:
    """The exact probability of every outcome of a procedure and the distribution of every value.

    Probabilities are ``fractions.Fraction`` where exact (``Odds.exact``), floats where explosions were cut
    off (``Odds.truncated`` is the mass cut off).  A sheet is read, never written.
    """
    rs = _ruleset(ruleset)
    if sheet is None:
        from interpreter.procedure.odds import odds as procedure_odds

        return procedure_odds(rs, procedure, _args(params))
    from interpreter.sheet import session
    from interpreter.sheet.file import SheetFile

    handle = SheetFile.read(sheet)
    return session.odds(rs, procedure, _args(params), handle.data, handle.doc)


def sample(ruleset: Ruleset | str, procedure: str, params: Mapping[str, object] | None = None, *,
           times: int = 1000, seed: int | None = None) -> Samples:
    """Run a procedure many times and count its outcomes and values (``Samples.outcomes``, ``Samples.values``).

    No trace is kept, and the procedure runs as one function written from its compiled steps, hundreds of
    times faster than ``run`` (docs/api.md says which steps are written). With the same ``seed`` the counts
    are the same; ``run(..., seed=s)`` gives what one run of ``random.Random(s)`` gives here.
    """
    from interpreter.errors import BadParameter
    from interpreter.procedure import sampler

    if isinstance(times, bool) or not isinstance(times, int) or times < 1:
        raise BadParameter(f"times must be a whole number of at least 1, not {times!r}")
    return sampler.sample(_ruleset(ruleset), procedure, _args(params), times, seed)


def roll(expr: str, *, seed: int | None = None, dice: Sequence[int] | None = None) -> Roll:
    """Roll a dice expression (docs/dice.md); ``Roll.value`` is the result and ``Roll.dice`` every die.

    Without ``seed`` or ``dice`` the dice come from one generator the process seeds once (seeding a new
    one for every roll costs more than the roll); ``interpreter.dice(expr)`` keeps the parsed expression.
    """
    from interpreter.dice.expr import parse

    if seed is None and dice is None:
        from interpreter.dice.parsed import shared_source

        return parse(expr).roll({}, shared_source())
    source = _source(seed, dice)
    result = parse(expr).roll({}, source)
    _exhausted(source)
    return result


def read_sheet(path: str) -> dict[str, Any]:
    """A character sheet as `rules sheet show --json` prints it: traits, derived values, tracks, resources."""
    from interpreter.sheet.open import open_sheet
    from interpreter.sheet.view import view

    handle, rs = open_sheet(path)
    return view(rs, handle.data, handle.doc)
