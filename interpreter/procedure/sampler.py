"""Sampling a procedure many times: the outcome and the values of each run, without a trace.

`sampler(ruleset, name, args)` binds the parameters once and returns a function that takes
a `random.Random` and gives one run's `(outcome, value, ...)`, the values in the order the
procedure declares them. It runs the procedure as one Python function written from the
compiled steps (procedure.writer), with the generator's numbers drawn in the same order as
`runner.run` with a `RandomSource` of the same generator, so both give the same outcome
and values. A procedure the writer cannot write (see writer's docstring) is sampled by
`runner.run` itself, with the same results only slower.

`sample(ruleset, name, args, times, seed)` counts the outcomes and values of many runs. When
a run stops with an error, that run is done again by `runner.run` with the same numbers
(the generator is started again from the seed and the earlier runs are repeated), so the
error is the traced runner's, with its place in the ruleset.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from interpreter import limits
from interpreter.absent import Absent
from interpreter.dice import lean
from interpreter.dice.expr import DiceExpr, RandomSource
from interpreter.errors import LimitExceeded, RulesError
from interpreter.formula.emit import Unsupported
from interpreter.procedure import loops
from interpreter.procedure.run import run as run_once
from interpreter.procedure.start import start_env
from interpreter.procedure.writer import Function, Module
from interpreter.record import record
from interpreter.ruleset.model import Procedure, Ruleset
from interpreter.ruleset.params import find_procedure

Sample = tuple[Any, ...]  # (outcome, value, ...): the values in the procedure's order
Sampler = Callable[[random.Random], Sample]
Maker = Callable[[Mapping[str, Any]], Sampler | None]

_MAKERS: dict[tuple[int, str, tuple[str, ...]], tuple[Ruleset, Maker | None]] = {}
_ROLLERS: dict[str, Callable[..., int]] = {}


def sampler(ruleset: Ruleset, name: str, args: Mapping[str, Any]) -> Sampler:
    """A function giving one sampled run of the procedure with these parameters for a generator."""
    proc = find_procedure(ruleset, name)
    env = start_env(ruleset, proc, args)
    make = _maker(ruleset, proc, tuple(env))
    fast = make(env) if make is not None else None
    return fast if fast is not None else _traced(ruleset, name, args)


def written(ruleset: Ruleset, name: str, args: Mapping[str, Any] | None = None) -> bool:
    """Whether a procedure is sampled by a written function (False: by the traced runner).

    Without `args`, the procedure's first sample parameters are bound (the answer can differ only for
    a dice parameter given as dice that name other values).
    """
    proc = find_procedure(ruleset, name)
    if args is None:
        args = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in (proc.samples or [{}])[0].items()}
    env = start_env(ruleset, proc, args)
    make = _maker(ruleset, proc, tuple(env))
    return make is not None and make(env) is not None


def _traced(ruleset: Ruleset, name: str, args: Mapping[str, Any]) -> Sampler:
    def run(rng: random.Random) -> Sample:
        result = run_once(ruleset, name, args, RandomSource(rng))
        return (result.outcome, *result.values.values())
    return run


def _maker(ruleset: Ruleset, proc: Procedure, names: tuple[str, ...]) -> Maker | None:
    """The function that binds a starting env into a sampler, written once per procedure and env shape."""
    key = (id(ruleset), proc.name, names)
    known = _MAKERS.get(key)
    if known is None or known[0] is not ruleset:
        try:
            make: Maker | None = _write(ruleset, proc, names)
        except Unsupported:
            make = None
        if len(_MAKERS) > 256:
            _MAKERS.clear()
        known = _MAKERS[key] = (ruleset, make)
    return known[1]


def _write(ruleset: Ruleset, proc: Procedure, names: tuple[str, ...]) -> Maker:
    module = Module(ruleset)
    most_steps, most_dice = loops.bound(ruleset, proc.steps)
    module.counting = most_steps > limits.MAX_STEPS or most_dice > limits.MAX_RUN_DICE
    cells = {n: f"c{i}" for i, n in enumerate(names)}
    dice_params = frozenset(p.name for p in proc.params if p.type == "dice")
    function = Function(module, proc, cells, dice_params, top=True)
    body = function.write()
    head = ["def make(E):"]
    head += [f"    {cell} = E[{n!r}]" for n, cell in cells.items()]
    # a name read without a value (a derived value of sheet state, no sheet given): the traced runner says so
    head += [f"    if type({cells[n]}) is _Absent: return None" for n in sorted(function.initial_reads & set(cells))]
    for n in sorted(dice_params):
        head.append(f"    {cells[n]}_roll = _roller({cells[n]})")
        head.append(f"    if {cells[n]}_roll is None: return None")
    head.append("    def run(rng):")
    head.append("        r = rng.random")
    if module.counting:
        head.append("        _work = [0, 0]")
    source = "\n".join(module.chunks + head) + "\n" + "".join("    " + line + "\n" for line in body.splitlines())
    source += "    return run\n"
    module.globals["_roller"] = roller
    module.globals["_Absent"] = Absent
    code = compile(source, f"<sampler {ruleset.id}.{proc.name}>", "exec")
    exec(code, module.globals)  # noqa: S102  # the source holds only what the writer made (see procedure.writer)
    make: Maker = module.globals["make"]
    return make


def roller(value: Any) -> Callable[..., int] | None:
    """How a dice parameter's value rolls in a written run: a number is itself, dice without names are written."""
    if isinstance(value, int):
        number = int(value)
        return lambda r, c: number
    if not isinstance(value, DiceExpr) or value.names:
        return None
    found = _ROLLERS.get(value.text)
    if found is None:
        globals_: dict[str, Any] = dict(lean.HELPERS)

        def keep(obj: object) -> str:
            globals_[f"g{len(globals_)}"] = obj
            return f"g{len(globals_) - 1}"
        writer = lean.DiceWriter(keep, _no_names)
        try:
            code = writer.write(value)
        except Unsupported:
            return None
        source = (f"def roll(r, _c):\n    _c[0] += {writer.static}\n"
                  f"    if _c[0] > {limits.MAX_DICE_ROLLED}: _too_many()\n"
                  f"    return {code}\n")
        exec(compile(source, f"<dice {value.text}>", "exec"), globals_)  # noqa: S102  # written by lean.DiceWriter
        found = _ROLLERS[value.text] = globals_["roll"]
    return found


def _no_names(name: str) -> lean.NameCode:
    raise Unsupported(name)


@record
class Samples:
    """How often each outcome and each value came up in a number of sampled runs."""

    ruleset: str
    procedure: str
    times: int
    seed: int  # the generator's seed: the same seed counts the same runs
    outcomes: Mapping[str, int]
    values: Mapping[str, Mapping[Any, int]]


def sample(ruleset: Ruleset, name: str, args: Mapping[str, Any], times: int, seed: int | None = None) -> Samples:
    """Run a procedure `times` times with dice from `random.Random(seed)` and count what came up."""
    if not 1 <= times <= limits.MAX_SAMPLES:
        raise LimitExceeded(f"{times} runs asked for; a sample is 1 to {limits.MAX_SAMPLES} runs")
    proc = find_procedure(ruleset, name)
    run = sampler(ruleset, name, args)
    if seed is None:  # a seed all the same, so that a run that fails can be done again
        seed = random.SystemRandom().randrange(2**63)
    rng = random.Random(seed)
    outcomes: dict[str, int] = dict.fromkeys(proc.outcomes, 0)
    values: list[dict[Any, int]] = [{} for _ in proc.values]
    for i in range(times):
        try:
            got = run(rng)
        except Exception as err:  # noqa: BLE001  # the traced runner says what went wrong, and where
            got, rng = _again(ruleset, name, args, seed, i, run, err)
        outcomes[got[0]] = outcomes.get(got[0], 0) + 1
        for counts, value in zip(values, got[1:], strict=True):
            counts[value] = counts.get(value, 0) + 1
    return Samples(ruleset.id, proc.name, times, seed, outcomes,
                   {v: dict(sorted(c.items(), key=_order)) for v, c in zip(proc.values, values, strict=True)})


def _again(ruleset: Ruleset, name: str, args: Mapping[str, Any], seed: int, i: int, run: Sampler,
           err: Exception) -> tuple[Sample, random.Random]:
    """Run i again with the traced runner and the same numbers: its error, or its result when it has none."""
    rng = random.Random(seed)
    for _ in range(i):
        run(rng)
    result = run_once(ruleset, name, args, RandomSource(rng))
    if not isinstance(err, RulesError):
        raise err
    return (result.outcome, *result.values.values()), rng


def _order(item: tuple[Any, int]) -> tuple[int, Any, str]:
    """Numbers first, in order, then anything else (flags, words, none) by its text."""
    value = item[0]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, value, "")
    return (1, 0, str(value))
