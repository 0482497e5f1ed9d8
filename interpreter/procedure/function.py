"""A procedure for a run with dice from a source: the whole procedure written as one Python function.

The steps are written by their kinds (procedure.kinds) through a `LocalWriter`: the names a run
computes are local variables of the function, loaded from the run's starting names `E` once;
the names a character sheet gives (and what sheet changes touch) stay in `E`, since sheet changes
work on them all at once. A roll asks the context `c` for one result (procedure.run_context), which
records it in the trace when the run keeps one. Loops and a best_of's runs jump between segments
of the function (`pc` is the segment to run next); everything else is straight-line code.

The function is `run(c, E) -> (outcome, stopped, values)`, the values in the order the procedure
declares them (None where a value was never bound); `E` ends holding the sheet's names as the run
left them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from interpreter import limits
from interpreter.errors import LimitExceeded, Location
from interpreter.procedure.writing import Code, StepWriter, Writer
from interpreter.ruleset.entries import FIELD
from interpreter.ruleset.liveness import Liveness
from interpreter.ruleset.model import track_names
from interpreter.ruleset.specs import ForEach, walk
from interpreter.ruleset.tracks import MARKS

if TYPE_CHECKING:
    from collections.abc import Mapping

    from interpreter.dice.expr import DiceExpr
    from interpreter.procedure.context import Function
    from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset
    from interpreter.ruleset.specs import Steps



def resident(ruleset: CompiledRuleset, proc: CompiledProcedure) -> frozenset[str]:
    """The names kept in `E` rather than in local variables: the sheet's, and those sheet changes write."""
    names = set(ruleset.traits) | set(ruleset.derived)
    sheet = ruleset.sheet
    if sheet is not None:
        names |= sheet.names(ruleset.traits, ruleset.derived)
        for track in sheet.tracks.values():
            names |= set(track_names(track)) | {MARKS + track.name}
            if track.temporary:
                names.add(track.temporary)
        names |= {FIELD + f for f in sheet.fields}
    names |= {p.name for p in proc.params if p.type == "trait"}  # written back to the trait they name
    names |= {step.spec.alias for step in walk(proc.steps) if isinstance(step.spec, ForEach)}
    return frozenset(names)


def too_long(where: Location) -> None:
    raise LimitExceeded(f"the procedure needs more than {limits.MAX_STEPS} steps; a loop or repeat runs too long, "
                        "or rolls too many dice", where)


class LocalWriter(Writer):
    """Writes one procedure as one function over local variables."""

    def __init__(self, ruleset: CompiledRuleset, proc: CompiledProcedure, code: Code, writers: Mapping[str, StepWriter],
                 bound: Mapping[str, object] | None = None) -> None:
        super().__init__(ruleset, proc, code, writers, bound=bound)
        self.resident = resident(ruleset, proc)
        self.locals: dict[str, str] = {}  # name -> its local variable
        self.uses_env = False  # whether the code reads or changes `E` past its start (a sheet's names)
        self.liveness = Liveness(ruleset.dice, ruleset.tables, (), ruleset.procedures, ruleset.kinds)

    def var(self, name: str) -> str:
        found = self.locals.get(name)
        if found is None:
            found = self.locals[name] = f"v{len(self.locals)}"
        return found

    # -- control: segments of one function -------------------------------------------------------------
    def jump(self, target: int) -> None:
        self.emit(f"pc = {target}")
        self.emit("continue")
        if self.depth == 1:
            self.parts[self.current].closed = True

    def jump_if(self, holds: str, then: int, otherwise: int) -> None:
        self.emit(f"pc = {then} if {holds} else {otherwise}")
        self.emit("continue")
        if self.depth == 1:
            self.parts[self.current].closed = True

    def merge_point(self, key: tuple[str, ...] | None, where: Location) -> None:
        """One run is one world: nothing to merge."""

    def split(self, where: Location) -> None:
        """A run makes each draw once: nothing gained by a new segment."""

    def can_inline(self, steps: Steps) -> bool:
        """Whether steps can be written inside an `if` (none of them jumps between segments)."""
        return not any(self.ruleset.kinds[step.kind].jumps for step in walk(steps))  # (no segments to jump between)

    # -- names -----------------------------------------------------------------------------------------
    def read_held(self, name: str, where: str) -> tuple[list[str], str]:
        if self._kept_in_env(name):
            t = self.temp()
            return [f"{t} = E.get({name!r}, _M)",
                    f"if type({t}) is not int and type({t}) is not bool: {t} = _read({t}, {name!r}, {where})"], t
        v = self.var(name)
        return [f"if type({v}) is not int and type({v}) is not bool: _read({v}, {name!r}, {where})"], v

    def _kept_in_env(self, name: str) -> bool:
        if name in self.resident:
            self.uses_env = True
            return True
        return False

    def get(self, name: str) -> str:
        return f"E.get({name!r}, _M)" if self._kept_in_env(name) else self.var(name)

    def set(self, name: str, code: str) -> None:
        self.emit(f"E[{name!r}] = {code}" if self._kept_in_env(name) else f"{self.var(name)} = {code}")

    def has(self, name: str) -> str:
        return f"{name!r} in E" if self._kept_in_env(name) else f"{self.var(name)} is not _M"

    def drop(self, name: str) -> None:
        self.emit(f"E.pop({name!r}, None)" if self._kept_in_env(name) else f"{self.var(name)} = _M")

    def put(self, name: str, code: str) -> None:
        if name in self.resident:  # (a local variable holds _M as the name's having none)
            self.emit(f"if {code} is _M: E.pop({name!r}, None)")
            self.emit(f"else: E[{name!r}] = {code}")
        else:
            self.emit(f"{self.var(name)} = {code}")

    def names(self) -> str:
        self.uses_env = True
        return "E"

    def sheet_held(self) -> frozenset[str]:
        return self.resident

    def outcome(self, name: str) -> None:
        self.emit(f"o = {name!r}")
        if name in self.fixed:
            self.emit(f"{self.var('outcome')} = {self.fixed[name]!r}")
            return
        rank = self.get(name)
        self.emit(f"{self.var('outcome')} = {rank} if {rank} is not _M else 0")

    def outcome_of(self, code: str) -> None:
        self.emit(f"o = {code}")
        self.emit(f"{self.var('outcome')} = {self.keep(self._ranks())}.get(o, 0)")

    def outcome_held(self) -> tuple[str, str]:
        return "o", self.var("outcome")

    def put_outcome(self, name: str, rank: str) -> None:
        self.emit(f"o = {name}")
        self.emit(f"{self.var('outcome')} = {rank}")

    def _ranks(self) -> dict[str, int]:
        return {name: rank for rank, name in enumerate(self.proc.outcomes, start=1)}

    def trace(self, code: str) -> None:
        self.emit(f"if c.trace is not None: c.trace.append({code})")

    def charge(self, steps: int) -> None:
        self.emit(f"c.steps += {steps}")

    # -- what the context gives ------------------------------------------------------------------------
    def seen(self, expr: DiceExpr) -> str:
        """A dict of the names a dice expression reads (through named dice too), for it and the trace. Dice
        given as a parameter may read any name the run started with."""
        names = tuple(sorted(self.liveness.dice_reads(expr)))
        if not names:
            return self.keep({})
        if any(p.type == "dice" and p.name in names for p in self.proc.params):
            self.uses_env = True
            return "{**E, " + self.given(names)[1:]
        return self.given(names)

    def call(self, site: Any, args: list[tuple[str, str]]) -> str:
        if site.callee.sheet != "none" and self.bound.get("has_sheet") is not False:
            self.uses_env = True  # the callee's sheet comes from E, and its changes go back there
        return super().call(site, args)

    def runs(self, runs: Any, count: str, worst: str, steps: Steps) -> bool:
        """A run makes a best_of's runs one after another, in place (procedure.kinds.best_of)."""
        return False

    def starts_with(self, name: str) -> bool:
        """Whether a run may start with a value for this name (else it has none until a step binds it)."""
        rs, proc = self.ruleset, self.proc
        if name in rs.constants or name in rs.dice or name in rs.derived or name in proc.outcomes:
            return True
        if name in ("outcome", "has_sheet"):
            return True
        return any(name == p.name or name.startswith((f"{p.name}_in_", f"{p.name}_is_")) for p in proc.params)

    # -- the function ----------------------------------------------------------------------------------
    def function(self) -> Function:
        """The steps written, as one compiled function."""
        lines = ["def run(c, E):", "    F = c.functions"]
        loads = []
        for name, var in self.locals.items():
            if self.starts_with(name):
                loads.append(name)
                lines.append(f"    {var} = E.get({name!r}, _M)")
            else:
                lines.append(f"    {var} = _M")
        lines += ["    o = None", "    st = False", "    pc = 0", "    while pc >= 0:"]
        for i, part in enumerate(self.parts):
            lines.append(f"        if pc == {i}:")
            if part.cost:
                lines.append(f"            c.steps += {part.cost}")
                lines.append(f"            if c.steps > {limits.MAX_STEPS}: _too_long({self.keep(part.where or self.proc.where)})")
            lines.extend("        " + line for line in part.lines)
            if not part.closed:
                lines.append("            pc = -1")
                lines.append("            continue")
        values = ", ".join(f"(None if (_v := {self.get(v)}) is _M else _v)" for v in self.proc.values)
        lines.append(f"    return (o, st, ({values}{',' if self.proc.values else ''}))")
        namespace = self.code.run("\n".join(lines) + "\n", f"<run {self.proc.name}>")
        run = cast("Function", namespace["run"])
        run.loads = tuple(loads)  # the names it reads from E at its start
        run.uses_env = self.uses_env or self.ruleset.sheet is not None and self.proc.sheet != "none" and \
            "has_sheet" not in self.bound  # else E is only read at its start, and no other name of it matters
        return run


def write_function(ruleset: CompiledRuleset, proc: CompiledProcedure, writers: Mapping[str, StepWriter],
                   helpers: Mapping[str, object], bound: Mapping[str, object] | None = None,
                   listing: list[str] | None = None) -> Function:
    """The function that runs a procedure once (with `bound`, for runs that start with those values; with a
    `listing`, its source is kept there, each step's code under a comment naming its YAML line)."""
    writer = LocalWriter(ruleset, proc, Code({**helpers, "_too_long": too_long}, listing),
                         writers, bound)
    writer.enter(writer.block(None, None))
    writer.steps(proc.steps)
    return writer.function()


__all__ = ["LocalWriter", "resident", "write_function"]
