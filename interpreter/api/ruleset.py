"""A loaded ruleset, and each of its procedures as a Python callable: typed parameters, `run`, `sample`, `odds`.

    check = interpreter.load_ruleset("my-system.yaml", root=".").procedure("check")
    result = check(stat=12, dc=15, advantage=True)          # the same as check.run(...)
    chance = check.odds(stat=12, dc=15).at_least("success")

Parameters are keyword arguments or one mapping (both may be given); the options (`seed`, `dice`,
`sheet`, `write`, `times`) are keyword arguments, so a parameter named like one of them is given
in the mapping (`pool.run({"dice": 5, "target": 8}, seed=1)`).
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from interpreter.api import calls
from interpreter.api.arguments import arguments, flag, seeded, sheet_path, source
from interpreter.api.arguments import times as times_option
from interpreter.api.words import library_words
from interpreter.errors import BadParameter
from interpreter.hints import suggest
from interpreter.record import record
from interpreter.ruleset.texts import prose

if TYPE_CHECKING:
    import random

    from interpreter.api.results import Odds, Result, Samples
    from interpreter.dice.sources import DiceSource
    from interpreter.ruleset.model import CompiledProcedure as Compiled
    from interpreter.ruleset.model import CompiledRuleset, Param
    from interpreter.sheet.character import Sheet

__all__ = ["Parameter", "Procedure", "Ruleset"]

@record
class Parameter:
    """One parameter of a procedure: its name, what it takes, and its default."""

    name: str
    kind: str  # int (a whole number), flag (True/False), dice (text or a parsed expression), choice (a word), trait
    required: bool
    default: object  # None when required
    help: str
    choices: tuple[str, ...] = ()  # the words it takes (a choice; some numbers have words too)
    minimum: int | None = None
    maximum: int | None = None

    def __str__(self) -> str:
        shown = f"{self.name}: {self.kind}"
        return shown if self.required else f"{shown} = {self.default!r}"


def _parameter(param: Param, constants: Mapping[str, object]) -> Parameter:
    return Parameter(param.name, param.type, param.required, None if param.required else param.default,
                     prose(param.help, constants), tuple(param.options), param.minimum, param.maximum)


class Procedure:
    """A procedure of a loaded ruleset; calling it runs it once (as ``run`` does)."""

    __slots__ = ("__signature__", "compiled", "params", "ruleset")

    def __init__(self, ruleset: Ruleset, compiled: Compiled) -> None:
        self.ruleset = ruleset
        self.compiled = compiled
        self.params: tuple[Parameter, ...] = tuple(_parameter(p, ruleset.compiled.constants) for p in compiled.params)
        options = [inspect.Parameter("params", inspect.Parameter.POSITIONAL_ONLY, default=None)]
        taken = {"params", "seed", "dice", "sheet", "write"}
        options += [inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY,
                                      default=inspect.Parameter.empty if p.required else p.default)
                    for p in self.params if p.name not in taken]
        options += [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=d)
                    for n, d in (("seed", None), ("dice", None), ("sheet", None), ("write", False))]
        self.__signature__ = inspect.Signature(options)

    @property
    def name(self) -> str:
        """The procedure's name in its ruleset."""
        return self.compiled.name

    @property
    def summary(self) -> str:
        """What the procedure does, in a sentence or two, each ``{constant}`` it names filled in."""
        return prose(self.compiled.summary, self.ruleset.compiled.constants)

    @property
    def outcomes(self) -> tuple[str, ...]:
        """Its outcomes, best first."""
        return self.compiled.outcomes

    @property
    def values(self) -> tuple[str, ...]:
        """The names of the values it reports."""
        return self.compiled.values

    def _source(self, seed: object, dice: object) -> tuple[DiceSource, int | None]:
        hint = None
        if "dice" in {p.name for p in self.params}:
            hint = f"'dice' is also a parameter of '{self.name}': give it in the mapping, {{'dice': ...}}"
        return seeded(seed, dice, hint)

    @library_words
    def run(self, params: Mapping[str, object] | None = None, /, *, seed: int | None = None,
            dice: Sequence[int] | None = None, sheet: str | os.PathLike[str] | Sheet | None = None,
            write: bool = False, **named: object) -> Result:
        """Run the procedure once: its outcome, values and the trace of every die.

        ``seed`` makes the dice repeatable (``Result.seed`` is the seed used, drawn when none is given);
        ``dice`` gives them exactly, in roll order. With ``sheet`` the
        procedure reads the sheet's traits; what it would change is in ``Result.changes``, and the file
        is written (atomically, under a lock) only with ``write=True``.
        """
        given, used = self._source(seed, dice)
        return calls.run(self.ruleset.compiled, self.name, arguments(params, named), given, sheet_path(sheet),
                         flag("write", write), used)

    __call__ = run

    @library_words
    def odds(self, params: Mapping[str, object] | None = None, /, *,
             sheet: str | os.PathLike[str] | Sheet | None = None, **named: object) -> Odds:
        """The exact chance of every outcome and the distribution of every value (a sheet is only read)."""
        return calls.odds(self.ruleset.compiled, self.name, arguments(params, named), sheet_path(sheet))

    @library_words
    def sample(self, params: Mapping[str, object] | None = None, /, *, times: int = 1000, seed: int | None = None,
               **named: object) -> Samples:
        """Run the procedure ``times`` times without a trace and count its outcomes and values."""
        count = times_option(times)
        source(seed, None)  # (a seed that is not a whole number is refused here)
        return calls.sample(self.ruleset.compiled, self.name, arguments(params, named), count, seed)

    @library_words
    def sampler(self, params: Mapping[str, object] | None = None, /,
                **named: object) -> Callable[[random.Random], tuple[object, ...]]:
        """A function of a ``random.Random`` giving one run's ``(outcome, value, ...)``, parameters bound once.

        The fastest way to run a procedure many times: no trace, no counting (values in ``values`` order).
        """
        from interpreter.procedure import sampler

        function: Callable[[random.Random], tuple[object, ...]] = sampler.sampler(
            self.ruleset.compiled, self.name, arguments(params, named))
        return function

    def __repr__(self) -> str:
        return f"<procedure {self.ruleset.id}.{self.name}{self.__signature__}>"

    def __str__(self) -> str:
        return f"{self.name}({', '.join(map(str, self.params))}): {', '.join(self.outcomes)}"


class Ruleset:
    """A ruleset loaded, validated and compiled: ``procedure(name)`` gives one of its procedures to call."""

    __slots__ = ("_procedures", "compiled")

    def __init__(self, compiled: CompiledRuleset) -> None:
        self.compiled = compiled  # the engine's form, for the functions that take a ruleset
        self._procedures: dict[str, Procedure] = {}

    @property
    def id(self) -> str:
        """The ruleset's id (its `ruleset:` key; an overlay's own)."""
        return self.compiled.id

    @property
    def title(self) -> str:
        """The system's name."""
        return self.compiled.title

    @property
    def description(self) -> str:
        """One line about the system, each ``{constant}`` it names filled in."""
        return prose(self.compiled.description, self.compiled.constants)

    @property
    def extends(self) -> str | None:
        """For an overlay, the id of the ruleset it changes."""
        return self.compiled.extends

    @property
    def procedures(self) -> tuple[str, ...]:
        """The names of its procedures, in the order the file gives them."""
        return tuple(self.compiled.procedures)

    @property
    def traits(self) -> tuple[str, ...]:
        """The names of the traits a character sheet of this system holds."""
        return tuple(self.compiled.traits)

    def procedure(self, name: str) -> Procedure:
        """One procedure, ready to call; an unknown name is an error suggesting the closest."""
        found = self._procedures.get(name)
        if found is None:
            if not isinstance(name, str) or name not in self.compiled.procedures:
                names = list(self.compiled.procedures)
                hint = suggest(str(name), names) or "procedures: " + ", ".join(names)
                raise BadParameter(f"ruleset '{self.id}' has no procedure '{name}'", hint=hint)
            found = self._procedures[name] = Procedure(self, self.compiled.procedures[name])
        return found

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ruleset) and other.compiled is self.compiled

    def __hash__(self) -> int:
        return id(self.compiled)

    def __repr__(self) -> str:
        return f"<ruleset {self.id}: {self.title}>"

    def __str__(self) -> str:
        return f"{self.title} ({self.id})"
