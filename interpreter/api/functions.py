"""The library's functions: load a ruleset, validate it, run a procedure, get exact odds, roll dice, read a sheet.

Each imports what it needs when called, so importing the package stays cheap. A ruleset is a
bundled id, a path, or a ruleset loaded before; parameters are a mapping of names to values
(interpreter.ruleset.param_values says what each type takes; None is a parameter not given).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from interpreter.api import calls
from interpreter.api.arguments import (
    arguments,
    asked_ruleset,
    exhausted,
    flag,
    not_quoted,
    ruleset_ref,
    seeded,
    sheet_path,
    source,
)
from interpreter.api.arguments import times as times_option
from interpreter.api.words import library_words

if TYPE_CHECKING:
    from interpreter.api.results import Odds, Result, Samples
    from interpreter.api.rolls import Roll
    from interpreter.api.ruleset import Ruleset
    from interpreter.errors import RulesError
    from interpreter.ruleset.model import CompiledRuleset as Compiled
    from interpreter.sheet.character import Sheet

@library_words
def load_ruleset(ref: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None) -> Ruleset:
    """Load, validate and compile a ruleset by id, or from a file.

    Text is an id (bundled or in the user's ruleset folders); a path given as text is opened only when
    it lies inside ``root`` (``load_ruleset("house.yaml", root=".")``), and is refused, unopened,
    otherwise; a ``pathlib.Path`` is opened as it is. Raises ``interpreter.Invalid`` (a ``RulesError``)
    listing every problem when the ruleset is not valid, and another ``RulesError`` (one located line)
    when it cannot be read at all.
    """
    from interpreter.api.ruleset import Ruleset
    from interpreter.errors import RulesError
    from interpreter.pipeline import compile_ref

    asked = asked_ruleset(ref, root)
    try:
        return Ruleset(compile_ref(asked))
    except RulesError as err:
        raise not_quoted(asked, err) from None


@library_words
def validate(ref: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None) -> list[RulesError]:
    """Every problem of a ruleset (an id, a path inside ``root``, or a ``pathlib.Path``), in file order; an
    empty list when it is valid."""
    from interpreter.errors import in_library_words
    from interpreter.pipeline import problems

    asked = asked_ruleset(ref, root)
    found = problems(asked)
    alone = not_quoted(asked, found[0]) if found else None
    found = [alone] if alone is not None and found and alone is not found[0] else found
    return [in_library_words(problem) for problem in found]


def compiled(ruleset: object) -> Compiled:
    """The engine's form of a ruleset given as an id, a path, a loaded ruleset or the engine's form itself."""
    from interpreter.api.ruleset import Ruleset
    from interpreter.ruleset.model import CompiledRuleset as Engine

    if isinstance(ruleset, Ruleset):
        return ruleset.compiled
    if isinstance(ruleset, Engine):
        return ruleset
    if isinstance(ruleset, (str, os.PathLike)):
        return load_ruleset(ruleset).compiled
    return load_ruleset(ruleset_ref(ruleset)).compiled  # (refused there: not an id, a path or a ruleset)


@library_words
def run(ruleset: Ruleset | Compiled | str | os.PathLike[str], procedure: str,
        params: Mapping[str, object] | None = None, *, seed: int | None = None, dice: Sequence[int] | None = None,
        sheet: str | os.PathLike[str] | Sheet | None = None, write: bool = False) -> Result:
    """Run one procedure and return its outcome, values and the trace of every die.

    ``seed`` makes the dice repeatable (without one, a seed is drawn, and ``Result.seed`` tells it: give it
    back as ``seed`` to run the same again); ``dice`` gives them exactly, in roll order (too few or too many
    is an error). With ``sheet`` (a sheet file's path, or a sheet from ``read_sheet``) the procedure reads the
    sheet's traits, and ``Result.changes`` lists what it changed; the file is written back, atomically,
    only with ``write=True``.
    """
    rs = compiled(ruleset)
    args, path, (given, used) = arguments(params, {}), sheet_path(sheet), seeded(seed, dice)
    return calls.run(rs, procedure, args, given, path, flag("write", write), used)


@library_words
def odds(ruleset: Ruleset | Compiled | str | os.PathLike[str], procedure: str,
         params: Mapping[str, object] | None = None, *, sheet: str | os.PathLike[str] | Sheet | None = None) -> Odds:
    """The exact probability of every outcome of a procedure and the distribution of every value.

    Probabilities are ``fractions.Fraction`` where exact (``Odds.exact``), floats where explosions were cut
    off (``Odds.truncated`` is the mass cut off).  A sheet is read, never written.
    """
    return calls.odds(compiled(ruleset), procedure, arguments(params, {}), sheet_path(sheet))


@library_words
def sample(ruleset: Ruleset | Compiled | str | os.PathLike[str], procedure: str,
           params: Mapping[str, object] | None = None, *, times: int = 1000, seed: int | None = None) -> Samples:
    """Run a procedure many times and count its outcomes and values (``Samples.outcomes``, ``Samples.values``).

    No trace is kept, and the procedure runs as one function written from its compiled steps, hundreds of
    times faster than ``run``. With the same ``seed`` the counts are the same; ``run(..., seed=s)`` gives
    what one run of ``random.Random(s)`` gives here.
    """
    count = times_option(times)
    source(seed, None)  # (a seed that is not a whole number is refused here)
    return calls.sample(compiled(ruleset), procedure, arguments(params, {}), count, seed)


@library_words
def roll(expr: str, *, seed: int | None = None, dice: Sequence[int] | None = None) -> Roll:
    """Roll a dice expression (docs/dice.md); ``Roll.value`` is the result, ``Roll.dice`` every die, and
    ``str()`` the line `rules roll` prints (`4d6kh3: [~~1~~, 6, 5, 2] = 13`).

    Without ``seed`` or ``dice`` a seed is drawn, and ``Roll.seed`` tells it (``seed=`` of it rolls the same
    again); ``interpreter.dice(expr)`` keeps the parsed expression, to roll it again and again at less cost.
    """
    from interpreter.api.rolls import Roll
    from interpreter.dice.expr import parse
    from interpreter.errors import BadParameter

    if not isinstance(expr, str):
        raise BadParameter(f"a dice expression is text, not {type(expr).__name__}")
    parsed = parse(expr)
    given, used = seeded(seed, dice)
    try:
        result = parsed.roll({}, given)
    except BadParameter as err:
        from interpreter.api.given import shortfall

        raise shortfall(err, given, "dice", expr) from None
    exhausted(given)
    return Roll(parsed, result, used)


@library_words
def read_sheet(path: str | os.PathLike[str]) -> Sheet:
    """A character sheet with typed fields: traits, derived values, tracks, resources, state and status."""
    from interpreter.errors import BadParameter
    from interpreter.sheet.character import character
    from interpreter.sheet.open import open_sheet

    where = sheet_path(path)
    if where is None:
        raise BadParameter("read_sheet takes a sheet file's path")
    handle, rs = open_sheet(where)
    return character(rs, handle.data, handle.doc, where)


@library_words
def new_sheet(ruleset: str | os.PathLike[str], path: str | os.PathLike[str], name: str = "New character") -> Sheet:
    """Write a commented starting sheet that passes the creation rules, as `rules sheet new` does, and read it.

    The file must not exist yet: a sheet is never overwritten.
    """
    from interpreter.errors import BadParameter
    from interpreter.sheet.open import create_sheet

    ref, out = asked_ruleset(ruleset), sheet_path(path)
    if out is None or not isinstance(name, str):
        raise BadParameter("new_sheet takes a ruleset, the new sheet's path and a name")
    create_sheet(ref, out, name)
    return read_sheet(out)
