"""A run with dice from a source: the context a procedure's function (procedure.function) runs with.

The dice come from a seeded generator or from given dice (in the order the contract fixes).
With a trace, every roll is recorded with the names it read, and every remark a step makes (a
table row, a best-of choice); without one nothing is recorded, and nothing else differs: the
same function runs, so a traced run and an untraced one with the same dice give the same
outcome, values and errors.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from interpreter import limits
from interpreter.dice.statistic import RESULT
from interpreter.dice.trace import RawTuple
from interpreter.errors import LimitExceeded, Location
from interpreter.procedure.context import Function, Ran
from interpreter.procedure.kinds import function_of
from interpreter.procedure.records import NoteRecord, Record, RollRecord
from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset
from interpreter.ruleset.specs import RollInto
from interpreter.words import value_text

if TYPE_CHECKING:
    from interpreter.dice.expr import DiceExpr
    from interpreter.procedure.kinds.call import End, Site

_NO_SHEET: dict[str, object] = {}
ADVICE = "a loop or repeat runs too long, or rolls too many dice"


class LiveRun:
    """The context of one run: where its dice come from, its trace, and how much work it has done."""

    __slots__ = ("dice", "functions", "ruleset", "sheet_names", "source", "steps", "trace")

    def __init__(self, ruleset: CompiledRuleset, source: Any, functions: Mapping[str, Callable[..., Any]],
                 sheet_names: tuple[str, ...] = (), traced: bool = False) -> None:
        self.ruleset = ruleset
        self.source = source
        self.functions = functions
        self.sheet_names = sheet_names  # the names a bound sheet gives, passed on to called procedures
        self.trace: list[Record] | None = [] if traced else None
        self.steps = 0  # steps taken, against limits.MAX_STEPS (counted by the function)
        self.dice = 0  # dice thrown, against limits.MAX_RUN_DICE

    def thrown(self, count: int, where: Location) -> None:
        self.dice += count
        if self.dice > limits.MAX_RUN_DICE:
            raise LimitExceeded(f"the procedure rolls more than {limits.MAX_RUN_DICE} dice; {ADVICE}", where)

    # -- what steps ask of their context ------------------------------------------------------------
    def roll(self, name: str, expr: DiceExpr, where: Location, env: Mapping[str, object]) -> object:
        """One roll of a dice expression, reading the names in `env`."""
        if self.trace is None:
            value, count = expr.rolled(env, self.source)
            self.dice += count
            if self.dice > limits.MAX_RUN_DICE:
                self.thrown(0, where)
            return value
        from interpreter.dice.trace import RollTrace

        traces: list[RawTuple] = []
        value, count = expr.rolled(env, self.source, traces)
        self.trace.append(RollRecord(name, expr, env, RollTrace(value, traces, env)))
        self.thrown(count, where)
        return value

    def pool(self, r: RollInto, env: Mapping[str, object], thresholds: Sequence[Sequence[int]],
             value_read: bool = True) -> tuple[object, ...]:
        """One roll of a pool, and the statistics of it that the step reads (their thresholds given); a run
        always has the pool's value, whatever `value_read` (which lets exact odds leave it out)."""
        from interpreter.dice.pool import bind  # (the reading of pools: loaded by a run that reads one)
        from interpreter.dice.reading import read_rolled

        stats = [RESULT, *bind([stat for _, stat in r.reads], thresholds)]
        roll = r.expr.roll(env, self.source)
        self.thrown(sum(len(t.dice) for t in roll.terms), r.where)
        got = read_rolled(r.expr, env, roll, stats)
        if self.trace is not None:
            self.trace.append(RollRecord(r.name, r.expr, env, roll))
            self.trace.append(NoteRecord(f"{r.name}: " + ", ".join(
                f"{name} = {value_text(v)} ({stat.text})"
                for (name, stat), v in zip(r.reads, got[1:], strict=True))))
        return got

    def call(self, site: Site, args: dict[str, object], env: Mapping[str, object]) -> End:
        """Run a called procedure once: its end."""
        function = site.function
        if function is None:
            function = site.function = function_of(self.ruleset, site.callee, site.bound)
        run: Function = function
        if function.uses_env:
            sheet = site.sheet(env, self.sheet_names)
            start = site.start(self.ruleset, args, sheet)
        else:
            sheet = _NO_SHEET
            start = site.light_start(self.ruleset, function, args)
        self.steps += 1  # the callee's end joins the run
        trace = self.trace
        if trace is None:
            outcome, _, values = run(self, start)
        else:
            self.trace = []
            try:
                outcome, _, values = run(self, start)
                trace.extend(site.traced(self.trace))
            finally:
                self.trace = trace
        return outcome, values, {k: start[k] for k in sheet} if sheet else _NO_SHEET

    def run(self, proc: CompiledProcedure, env: dict[str, object]) -> Ran:
        """Run a procedure's function over these starting names (changed in place: the sheet's as left)."""
        function: Function = function_of(self.ruleset, proc)
        return function(self, env)


__all__ = ["ADVICE", "LiveRun", "Ran"]
