"""Exact odds: a run of steps that each turn a world into one world, written as one Python function.

Exact odds run every step over thousands of worlds. `let`, `stop`, `decide` and `contest` neither
roll nor branch: each world becomes one world. A run of such steps is written out once per
compiled procedure as a function over a list of worlds (the way procedure.writer writes a whole
procedure for sampling): it copies each world's env once for the run, evaluates the formulas
written out as Python expressions (formula.emit, the closures' semantics and error messages)
and builds one world at the end, where the step runners build one per step and call a closure
per part of every formula. When worlds are merged after the stretch, the function merges them as
it goes (the keys and sums of worlds.merge), building a world only for each new state. Errors
are placed as the runners place them. What the writer does not write (a formula calling a table
function or `clamp`, `floor`, `ceil`, `abs`) is evaluated by its closures inside the same
function; a run it cannot write at all is left to the runners.

Only identifiers made here, int and bool literals and repr of names and outcomes reach the
source; every other object is passed in the function's globals under a made-up name.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from interpreter import limits
from interpreter.absent import Absent
from interpreter.dice.atleast import AtLeast
from interpreter.errors import RulesError, UnknownName
from interpreter.formula import emit
from interpreter.formula.compile import Formula
from interpreter.formula.source import Source
from interpreter.procedure.weights import Ratio
from interpreter.procedure.worlds import FEW, World, Worlds, added, counted, merged_worlds, values_of
from interpreter.ruleset.specs import Contest, Decide, Let, Step, Stop

KINDS = frozenset({"let", "stop", "decide", "contest"})
WRITTEN_CALLS = frozenset({"min", "max"})  # functions whose written call matches its closure exactly
Run = Callable[[Worlds, Any], Worlds]
LO, HI = limits.INT_MIN, limits.INT_MAX
_MISSING = object()
_RUNS: dict[tuple[Any, ...], tuple[tuple[Step[Any], ...], Run | None]] = {}


def read(value: Any, key: str, where: Any) -> Any:
    """A name's value as the closures read it, for what is not a whole number in range."""
    if value is _MISSING:
        raise UnknownName(f"unknown name '{key}'", where)
    kind = type(value)
    if (kind is int or kind is float) and LO <= value <= HI or kind is bool:
        return value
    if kind is Absent:
        raise value.error(key, where)
    if isinstance(value, AtLeast):  # a saturated exploding total: it answers what it can
        return value
    return emit.number(value, f"'{key}'", where)


class _Writer(emit.Kept):
    def __init__(self) -> None:
        self.globals: dict[str, Any] = {**emit.HELPERS, "_read": read, "_M": _MISSING, "World": World, "_new": tuple.__new__,
                                        "RulesError": RulesError, "Ratio": Ratio, "_limits": limits, "_counted": counted,
                                        "_added": added, "_merged_worlds": merged_worlds}
        self.kept: dict[int, str] = {}
        self.lines: list[str] = []
        self.names: tuple[str, ...] | None = None
        self.formulas = emit.FormulaWriter(self.name, self.keep, self.function)

    def name(self, key: str, source: Source, node: ast.AST) -> str:
        where = self.keep(source.node_at(node))
        return f"(_v if type(_v := e.get({key!r}, _M)) is int and {LO} <= _v <= {HI} else _read(_v, {key!r}, {where}))"

    def function(self, name: str) -> str:
        raise emit.Unsupported(f"function {name}")

    def f(self, formula: Formula) -> str:
        """A formula as an expression over `e`: written out, or its closures when calls are not all written."""
        if formula.calls - WRITTEN_CALLS:
            return f"{self.keep(formula)}.evaluate(e, F)"
        return self.formulas.write(formula)

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def guarded(self, depth: int, code: list[str], where: Any) -> None:
        """Lines whose errors are placed at `where`, as the step runners place them."""
        self.emit(depth, "try:")
        for line in code:
            self.emit(depth + 1, line)
        self.emit(depth, "except RulesError as err:")
        self.emit(depth + 1, f"raise err.located({self.keep(where)}) from None")

    def outcome(self, depth: int, code: str) -> None:
        self.emit(depth, f"o = {code}")
        self.emit(depth, "e['outcome'] = 0 if o is None else e.get(o, 0)")

    def step(self, step: Step[Any], depth: int) -> None:
        """Write one step."""
        spec = step.spec
        if isinstance(spec, Let):
            for a in spec.assign:
                self.guarded(depth, [f"e[{a.name!r}] = {self.f(a.formula)}"], a.where)
        elif isinstance(spec, Stop):
            self.guarded(depth, [f"c = {self.f(spec.when)}"], step.where)
            self.emit(depth, "if c:")
            if spec.outcome is not None:
                self.outcome(depth + 1, repr(spec.outcome))
            self.put(depth + 1, "_new(World, (e, o, True, world.trace, world.loops))", "True")
            self.emit(depth + 1, "continue")
        elif isinstance(spec, Decide):
            self.emit(depth, "k = False")  # whether a branch held
            for b in spec.branches:
                self.emit(depth, "if not k:")
                if b.cond is None:
                    self.outcome(depth + 1, repr(b.outcome))
                    break
                self.guarded(depth + 1, [f"c = {self.f(b.cond)}"], b.where)
                self.emit(depth + 1, "if c:")
                self.outcome(depth + 2, repr(b.outcome))
                self.emit(depth + 2, "k = True")
        elif isinstance(spec, Contest):
            self.guarded(depth, [f"a = {self.f(spec.actor)}", f"d = {self.f(spec.defender)}"], step.where)
            tie = "True" if spec.ties == "actor" else "False"
            self.outcome(depth, f"{spec.win!r} if a > d or (a == d and {tie}) else {spec.lose!r}")
            if spec.margin:
                self.emit(depth, f"e[{spec.margin!r}] = a - d")
            if spec.tied:
                self.emit(depth, f"e[{spec.tied!r}] = a == d")
        else:
            raise emit.Unsupported(step.kind)

    def put(self, depth: int, world: str, stopped: str) -> None:
        """Give out a world (in `e`, `o`): into the list, or merged by the names as worlds.merge merges."""
        if self.names is None:
            self.emit(depth, f"add(({world}, weight))")
            return
        if len(self.names) > FEW:  # as worlds.merge makes such keys
            fetch, some = (self.keep(f) for f in values_of(self.names))
            self.emit(depth, "try:")
            self.emit(depth + 1, f"k = (({fetch} if whole else {some})(e), o, {stopped}, world.loops)")
            self.emit(depth, "except KeyError:")  # a name is missing: the markers from now on
            self.emit(depth + 1, "whole = False")
            self.emit(depth + 1, f"k = ({some}(e), o, {stopped}, world.loops)")
        else:
            key = "".join(f"e.get({n!r}, _M), " for n in self.names)
            self.emit(depth, f"k = ({key}o, {stopped}, world.loops)")
        self.emit(depth, "s = merged.get(k)")
        self.emit(depth, "if s is None:")
        self.emit(depth + 1, f"merged[k] = [{world}, weight, 0]")
        self.emit(depth + 1, "if len(merged) > _limits.MAX_WORLDS or not len(merged) % 4096:")
        self.emit(depth + 2, "_counted(merged)")
        self.emit(depth, "elif type(weight) is Ratio and type(s[1]) is Ratio and s[1].den == weight.den:")
        self.emit(depth + 1, "s[2] += weight.num")
        self.emit(depth, "else:")
        self.emit(depth + 1, "_added(s, weight)")

    def write(self, steps: tuple[Step[Any], ...], names: tuple[str, ...] | None) -> Run:
        self.names = names
        self.emit(0, "def run(worlds, F):")
        self.emit(1, "out = []" if names is None else "merged = {}")
        self.emit(1, "whole = True")  # every name of the keys bound so far
        if names is None:
            self.emit(1, "add = out.append")
        self.emit(1, "for world, weight in worlds:")
        self.emit(2, "if world.stopped:")
        self.emit(3, "e, o = world.env, world.outcome")
        self.put(3, "world", "True")
        self.emit(3, "continue")
        self.emit(2, "e = dict(world.env)")
        self.emit(2, "o = world.outcome")
        for step in steps:
            self.step(step, 2)
        self.put(2, "_new(World, (e, o, False, world.trace, world.loops))", "False")
        self.emit(1, "return out" if names is None else "return _merged_worlds(merged)")
        namespace = dict(self.globals)
        exec(compile("\n".join(self.lines) + "\n", "<exact odds run>", "exec"), namespace)  # noqa: S102  # only what this writer made
        run: Run = namespace["run"]
        return run


def written(steps: tuple[Step[Any], ...], names: tuple[str, ...] | None = None) -> Run | None:
    """The function that runs these steps over worlds, written once; None when it cannot be written. With
    names, it gives the worlds merged by them (see worlds.merge)."""
    key = (*map(id, steps), names)
    known = _RUNS.get(key)
    if known is not None and all(a is b for a, b in zip(known[0], steps, strict=True)):
        return known[1]
    try:
        run: Run | None = _Writer().write(steps, names)
    except emit.Unsupported:
        run = None
    if len(_RUNS) >= 512:
        _RUNS.clear()
    _RUNS[key] = (steps, run)
    return run


WORTH = 256  # worlds a stretch has run over before it is written out (writing one costs about a millisecond)
_SEEN: dict[tuple[int, int], int] = {}


def worth_writing(steps: tuple[Step[Any], ...], start: int, worlds: int) -> bool:
    """Whether the stretch from `start` has run over enough worlds (counting these) to be worth writing.

    Writing and compiling a stretch costs as much as running a few hundred worlds through the step
    runners: a small question (the odds a start computes) is answered sooner without it, a large one
    or a loop that repeats the stretch is written once it has seen enough worlds.
    """
    key = (id(steps), start)
    seen = _SEEN.get(key, 0) + worlds
    if len(_SEEN) >= 4096:
        _SEEN.clear()
    _SEEN[key] = seen
    return seen >= WORTH


def stretch(steps: tuple[Step[Any], ...], start: int) -> int | None:
    """The index after the steps from `start` on that are of KINDS; None when the step at `start` is of
    another kind or they cannot be written out."""
    end = start
    while end < len(steps) and steps[end].kind in KINDS:
        end += 1
    return end if end > start and written(steps[start:end]) is not None else None
