"""Sampling a procedure many times: the outcome and the values of each run, without a trace.

`sampler(ruleset, name, args)` binds the parameters once and returns a function that takes a
`random.Random` and gives one run's `(outcome, value, ...)`, the values in the order the
procedure declares them. It runs the same program as `run.run` (procedure.program), over the
same draws of the generator, only without recording a trace: with a `RandomSource` of the same
generator, both give the same outcome, values and errors.

`sample(ruleset, name, args, times, seed)` counts the outcomes and values of many runs.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from interpreter import budget, limits
from interpreter.absent import Absent, reported
from interpreter.dice.sources import RandomSource
from interpreter.errors import LimitExceeded
from interpreter.procedure.events import fixed, holds
from interpreter.procedure.kinds import function_of
from interpreter.procedure.run_context import LiveRun
from interpreter.procedure.start import finished, sheet_names, start_env, worded_value
from interpreter.procedure.writing import unchanged
from interpreter.record import field, record
from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset
from interpreter.ruleset.params import find_procedure
from interpreter.ruleset.tables import may_be_absent, table_functions

Sample = tuple[Any, ...]  # (outcome, value, ...): the values in the procedure's order
Sampler = Callable[[random.Random], Sample]


def sampler(ruleset: CompiledRuleset, name: str, args: Mapping[str, object]) -> Sampler:
    """A function giving one sampled run of the procedure with these parameters for a generator."""
    return _sampler(ruleset, name, args)[0]


def _sampler(ruleset: CompiledRuleset, name: str, args: Mapping[str, object]) -> tuple[Sampler, Callable[[], int]]:
    """The sampler, and a function giving the work (steps and dice) of the last run it made."""
    proc = find_procedure(ruleset, name)
    start = start_env(ruleset, proc, args)
    function = function_of(ruleset, proc, unchanged(ruleset, proc, start))  # written for these parameters
    if not function.uses_env:  # it reads only what it loads at its start: those names, the same every run
        start = {n: start[n] for n in function.loads if n in start}
    functions = table_functions(ruleset)
    names = sheet_names(ruleset, None)
    words = [proc.value_words.get(v) for v in proc.values]
    plain = not any(words)
    absent = bool(may_be_absent(ruleset, proc))  # a table row may leave a value without one
    last: list[Any] = [None, None]  # the last generator, and its context (reused)

    def run(rng: random.Random) -> Sample:
        if last[0] is not rng:
            last[0], last[1] = rng, LiveRun(ruleset, RandomSource(rng), functions, names)
        ctx = last[1]
        ctx.steps = ctx.dice = 0
        outcome, _, values = function(ctx, dict(start) if function.uses_env else start)
        if outcome is None:
            finished(proc, outcome)
        if plain and not absent:
            return (outcome, *values)
        if plain:
            return (outcome, *[None if type(v) is Absent else v for v in values])
        return (outcome, *[worded_value(w, reported(v)) for w, v in zip(words, values, strict=True)])

    def work() -> int:
        ctx = last[1]
        return int(ctx.steps + ctx.dice) if ctx is not None else 0

    return run, work


@record
class SampleCounts:
    """How often each outcome and each value came up in a number of sampled runs."""

    ruleset: str
    procedure: str
    times: int
    seed: int  # the generator's seed: the same seed counts the same runs
    outcomes: Mapping[str, int]
    values: Mapping[str, Mapping[object, int]]
    events: Mapping[str, int] = field(default_factory=dict)  # each declared event: the runs where it held


def sample(ruleset: CompiledRuleset, name: str, args: Mapping[str, object], times: int, seed: int | None = None) -> SampleCounts:
    """Run a procedure `times` times with dice from `random.Random(seed)` and count what came up."""
    if not 1 <= times <= limits.MAX_SAMPLES:
        raise LimitExceeded(f"{times} runs asked for; a sample is 1 to {limits.MAX_SAMPLES} runs")
    proc = find_procedure(ruleset, name)
    run, work = _sampler(ruleset, name, args)
    if seed is None:  # a seed all the same, so that the counts can be made again
        seed = random.SystemRandom().randrange(2**63)
    rng = random.Random(seed)
    outcomes: dict[str, int] = dict.fromkeys(proc.outcomes, 0)
    values: list[dict[object, int]] = [{} for _ in proc.values]
    count = _events(ruleset, proc, args)
    events = dict.fromkeys((name for name, _ in proc.events), 0)
    done = 0  # the work of the runs so far: steps taken and dice rolled (limits.MAX_SAMPLE_WORK)
    due = 1  # the count of runs at which the sample's time is next foreseen (budget.foresee_due)
    # (the sampler is written before the budget starts: the first runs cost what the others do)
    with budget.command_budget(f"a sample of {times} runs", _fewer, first_pays=False):
        for i in range(times):
            got = run(rng)
            done += work()
            if i + 1 == _FORESEEN or done > limits.MAX_SAMPLE_WORK:
                _refuse_beyond(done, i + 1, times, proc.where)
            if i + 1 == due:  # (twice as many runs at first, then every hundredth: limits.MAX_COMMAND_SECONDS)
                due = budget.foresee_due(due, times)
            _count(got, outcomes, values, count, events)
    return SampleCounts(ruleset.id, proc.name, times, seed, outcomes,
                   {v: dict(sorted(c.items(), key=_order)) for v, c in zip(proc.values, values, strict=True)}, events)


def _count(got: Sample, outcomes: dict[str, int], values: list[dict[object, int]],
           count: Callable[[Sample, dict[str, int]], None] | None, events: dict[str, int]) -> None:
    """Count one sampled run."""
    outcomes[got[0]] = outcomes.get(got[0], 0) + 1
    for counts, value in zip(values, got[1:], strict=True):
        counts[value] = counts.get(value, 0) + 1
    if count is not None:
        count(got, events)


def _events(ruleset: CompiledRuleset, proc: CompiledProcedure, args: Mapping[str, object]) -> Callable[[Sample, dict[str, int]], None] | None:
    """A function counting the declared events that hold for one sampled run (None for a procedure without)."""
    if not proc.events:
        return None
    start = fixed(ruleset, proc, start_env(ruleset, proc, args))
    functions = table_functions(ruleset)
    numbers = {v: {w: n for n, w in words.items()} for v, words in proc.value_words.items()}  # words back to numbers

    def count(got: Sample, events: dict[str, int]) -> None:
        values = {v: numbers[v].get(x, x) if v in numbers else x
                  for v, x in zip(proc.values, got[1:], strict=True) if x is not None}
        for name, formula in proc.events:
            if holds(formula, proc, values, got[0], start, functions):
                events[name] += 1
    return count


_FORESEEN = 100  # runs after which the work of the whole sample is foreseen from theirs


def _refuse_beyond(done: int, runs: int, times: int, where: Any) -> None:
    """Refuse a sample whose work passes limits.MAX_SAMPLE_WORK, or will at the pace of its first runs."""
    foreseen = done * times // runs
    if foreseen <= limits.MAX_SAMPLE_WORK and done <= limits.MAX_SAMPLE_WORK:
        return
    raise LimitExceeded(f"{times} runs of this procedure would take about {foreseen} steps and dice; a sample "
                        f"takes at most {limits.MAX_SAMPLE_WORK}", where,
                        f"ask for at most {_within(done, runs)} runs (--times {_within(done, runs)})")


def _within(done: int, runs: int) -> int:
    """A number of runs well within the sample's work at the pace of these runs: three quarters of the most
    that would fit (runs that explode more than the first do stay within it), to two significant digits."""
    return _rounded(limits.MAX_SAMPLE_WORK * runs // max(done, 1) * 3 // 4)


def _fewer(fit: int) -> str:
    """The remedy of a sample refused for its time: the runs that fit three quarters of its budget, when known."""
    return f"ask for at most {_rounded(fit)} runs (--times {_rounded(fit)})" if fit > 0 else "ask for fewer runs"


def _rounded(most: int) -> int:
    """A number of runs to two significant digits, rounded down (at least 1)."""
    if most < 100:
        return max(1, most)
    step = int("1" + "0" * (len(str(most)) - 2))
    return most // step * step


def _order(item: tuple[object, int]) -> tuple[int, object, str]:
    """Numbers first, in order, then anything else (flags, words, none) by its text."""
    value = item[0]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, value, "")
    return (1, 0, str(value))


__all__ = ["Sample", "SampleCounts", "Sampler", "sample", "sampler"]
