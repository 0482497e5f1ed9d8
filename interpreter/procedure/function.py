"""A procedure for a run with dice from a source: the whole procedure written as one Python function.

The steps are written by their kinds (procedure.kinds) through a `LocalWriter`: the names a run
computes are local variables of the function, loaded from the run's starting names `E` once;
the names a character sheet gives (and what sheet changes touch) stay in `E`, since sheet changes
work on them all at once. A roll asks the context `c` for one result (procedure.sampling), which
records it in the trace when the run keeps one. Loops and a best_of's runs jump between segments
of the function (`pc` is the segment to run next); everything else is straight-line code.

The function is `run(c, E) -> (outcome, stopped, values)`, the values in the order the procedure
declares them (None where a value was never bound); `E` ends holding the sheet's names as the run
left them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from interpreter import limits
from interpreter.errors import LimitExceeded, Location
from interpreter.procedure.writing import Code, StepWriter, Writer
from interpreter.ruleset.entries import FIELD
from interpreter.ruleset.liveness import SHEET, Liveness, writes
from interpreter.ruleset.model import track_names
from interpreter.ruleset.specs import ForEach, walk
from interpreter.ruleset.tracks import MARKS

if TYPE_CHECKING:
    from collections.abc import Mapping

    from interpreter.ruleset.model import Procedure, Ruleset
    from interpreter.ruleset.specs import Steps

Function = "Callable[[Any, dict[str, Any]], tuple[Any, bool, tuple[Any, ...]]]"
END_PC = -1


def resident(ruleset: Ruleset, proc: Procedure) -> frozenset[str]:
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


def value_of(v: Any, missing: object) -> Any:
    return None if v is missing else v


class LocalWriter(Writer):
    """Writes one procedure as one function over local variables."""

    def __init__(self, ruleset: Ruleset, proc: Procedure, code: Code, writers: Mapping[str, StepWriter],
                 bound: Mapping[str, Any] | None = None) -> None:
        super().__init__(ruleset, proc, code, writers, bound=bound)
        self.resident = resident(ruleset, proc)
        self.locals: dict[str, str] = {}  # name -> its local variable
        self.run_ends: list[int] = []  # the segments the best_of runs being written end at, innermost last
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

    def names(self) -> str:
        self.uses_env = True
        return "E"

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

    def _ranks(self) -> dict[str, int]:
        return {name: rank for rank, name in enumerate(self.proc.outcomes, start=1)}

    def stop(self) -> None:
        self.emit("st = True")
        self.jump(self.run_ends[-1] if self.run_ends else END_PC)

    def trace(self, code: str) -> None:
        self.emit(f"if c.trace is not None: c.trace.append({code})")

    # -- what the context gives ------------------------------------------------------------------------
    def seen(self, expr: Any) -> str:
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

    def best_of(self, runs: Any, count: str, worst: str, steps: Steps) -> None:
        """The body's runs as segments: each run starts from the names saved before the first, and the run
        kept so far is saved after each; `runs.better` says which to keep."""
        written = writes(steps, self.ruleset.procedures, self.ruleset.tables, self.ruleset.kinds)
        if SHEET in written:
            written = written | self.resident
        kept_names = sorted(n for n in written if n != SHEET)
        names = [self.get(n) for n in kept_names] + ["o", self.var("outcome")]
        start, kept, score, done = self.temp(), self.temp(), self.temp(), self.temp()
        self.emit(f"{start} = ({', '.join(names)},) if {count} > 1 else None")
        self.emit(f"{kept} = None")
        self.emit(f"{done} = 0")
        body, end, after = self.block(None, None), self.block(None, None), self.block(None, None)
        self.jump(body)
        self.enter(body)
        self.run_ends.append(end)
        self.steps(steps)
        self.run_ends.pop()
        self.jump(end)
        self.enter(end)
        self.emit(f"if {count} == 1:")  # one run: it is the one kept
        with self.indented():
            self.emit("if st:")
            with self.indented():
                self.jump(self.run_ends[-1] if self.run_ends else END_PC)
            self.jump(after)
        with self.located(runs.where):
            tiebreak = self.value(runs.tiebreak) if runs.tiebreak is not None else "0"
            self.emit(f"{score} = {self.keep(runs)}.score_of(o, {tiebreak})")
        self.emit(f"if {kept} is None or {self.keep(runs)}.better({score}, {kept}[0], {worst}):")
        with self.indented():
            self.emit(f"{kept} = ({score}, st, {', '.join(names)},)")
        self.emit(f"{done} += 1")
        self.emit(f"if {done} < {count}:")
        with self.indented():
            self.emit("c.steps += 1")  # each run after the first is one more comparison
            self._restore(kept_names, start, 0)
            self.emit("st = False")
            self.jump(body)
        self._restore(kept_names, kept, 2)
        self.emit(f"st = {kept}[1]")
        self.emit(f"if {count} > 1 and c.trace is not None: {self.trace_note(runs, count, worst)}")
        self.emit("if st:")
        with self.indented():
            self.jump(self.run_ends[-1] if self.run_ends else END_PC)
        self.jump(after)
        self.enter(after)

    def starts_with(self, name: str) -> bool:
        """Whether a run may start with a value for this name (else it has none until a step binds it)."""
        rs, proc = self.ruleset, self.proc
        if name in rs.constants or name in rs.dice or name in rs.derived or name in proc.outcomes:
            return True
        if name in ("outcome", "has_sheet"):
            return True
        return any(name == p.name or name.startswith((f"{p.name}_in_", f"{p.name}_is_")) for p in proc.params)

    def trace_note(self, runs: Any, count: str, worst: str) -> str:
        return f"c.note({self.keep(runs)}.note({count}, {worst}))"

    def _restore(self, kept_names: list[str], saved: str, at: int) -> None:
        for i, name in enumerate(kept_names):
            value = f"{saved}[{at + i}]"
            if name in self.resident:
                self.emit(f"if {value} is _M: E.pop({name!r}, None)")
                self.emit(f"else: E[{name!r}] = {value}")
            else:
                self.emit(f"{self.var(name)} = {value}")
        n = len(kept_names)
        self.emit(f"o = {saved}[{at + n}]")
        self.emit(f"{self.var('outcome')} = {saved}[{at + n + 1}]")

    # -- the function ----------------------------------------------------------------------------------
    def function(self) -> Any:
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
        run = namespace["run"]
        run.loads = tuple(loads)  # the names it reads from E at its start
        run.uses_env = self.uses_env or self.ruleset.sheet is not None and self.proc.sheet != "none" and \
            "has_sheet" not in self.bound  # else E is only read at its start, and no other name of it matters
        return run


def write_function(ruleset: Ruleset, proc: Procedure, writers: Mapping[str, StepWriter],
                   helpers: Mapping[str, Any], bound: Mapping[str, Any] | None = None) -> Any:
    """The function that runs a procedure once (with `bound`, for runs that start with those values)."""
    writer = LocalWriter(ruleset, proc, Code({**helpers, "_too_long": too_long, "_value": value_of}), writers,
                         bound)
    writer.enter(writer.block(None, None))
    writer.steps(proc.steps)
    return writer.function()


__all__ = ["Function", "LocalWriter", "resident", "write_function"]
