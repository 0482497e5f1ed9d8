"""Writing the code of procedure steps: the one interface every step kind writes its meaning through.

A step kind (procedure.kinds) says what its step does as Python code over the names of one run:
formula values, names bound, an outcome set, a roll asked for, a jump to another point of the
procedure. It writes that code through a `Writer`, which decides how a name is held and how a
jump or a roll is written. Two writers assemble the same steps:

- procedure.program writes blocks that run over one world's names (a dict) for exact odds,
  where every roll is asked of the context and the worlds are merged between blocks;
- procedure.function writes a whole procedure as one function over local variables, for a run
  with dice from a source (traced, or sampled many times).

Both write each step from the same kind function, so a step has one meaning however it runs.

The source holds only identifiers made here, `repr` of names, outcomes, whole numbers and flags;
every other object is kept in the module's globals under a made-up identifier (`Code.keep`).
"""

from __future__ import annotations

from ast import literal_eval
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from interpreter import limits
from interpreter.errors import LimitExceeded, Location, RulesError
from interpreter.formula.code import HELPERS, FormulaWriter
from interpreter.procedure.state import END

if TYPE_CHECKING:
    from interpreter.formula.compile import Formula
    from interpreter.ruleset.kind import Kinds
    from interpreter.ruleset.model import Procedure, Ruleset
    from interpreter.ruleset.specs import Step, Steps

StepWriter = Callable[["Writer", Any], None]


def branches(steps: Steps, kinds: Kinds) -> bool:
    """Whether any of these steps (nested ones too) branches over dice or calls, or loops (its kind `draws`):
    exact odds merge worlds before such a step."""
    return any(kinds[step.kind].draws or any(branches(s, kinds) for s in step.spec.nested()) for step in steps)


class Code:
    """The source of one module being written and the objects its source names."""

    def __init__(self, helpers: Mapping[str, Any]) -> None:
        self.helpers = helpers  # what the code of the steps calls, by the names it uses
        self.globals: dict[str, Any] = {**HELPERS, **helpers, "RulesError": RulesError, "END": END}
        self._kept: dict[int, str] = {}
        self._temps = 0
        self.lines = 0  # lines written so far (limits.MAX_WRITTEN_LINES)

    def keep(self, obj: object) -> str:
        """An identifier for an object, stored in the module's globals."""
        name = self._kept.get(id(obj))
        if name is None:
            name = self._kept[id(obj)] = f"_g{len(self._kept)}"
            self.globals[name] = obj
        return name

    def temp(self) -> str:
        """A new local variable."""
        self._temps += 1
        return f"t{self._temps}"

    def run(self, source: str, label: str) -> dict[str, Any]:
        """Compile and run the module's source; its globals, with what it defined."""
        exec(compile(source, label, "exec"), self.globals)  # noqa: S102  # only what a writer made
        return self.globals


class Part:
    """A part of the code being written (a block, or a segment of a function): its lines and what is known of it."""

    def __init__(self, key: tuple[str, ...] | None, where: Location | None) -> None:
        self.lines: list[str] = []
        self.key = key  # exact odds: the names that tell worlds apart where it starts
        self.where = where  # where its first step is written
        self.cost = 0  # the steps it takes
        self.loop_body: int | None = None  # for a loop's head: the part its body starts at
        self.retire: tuple[str, ...] = ()  # top level: reported values final before it starts
        self.closed = False  # it ends by jumping elsewhere (nothing falls through)
        self.draws = 0  # the draws (rolls, calls, best_of runs) its code makes


def fixed_names(ruleset: Ruleset, proc: Procedure) -> Mapping[str, Any]:
    """The names whose value is the same in every run of a procedure, from its start to its end: constants,
    named dice and the ranks of its outcomes that no parameter and no step of it binds. Their values are
    written into its code (a ruleset's constants are fixed once it is loaded; an overlay is another one)."""
    found = proc.memo.fixed
    if found is not None and found[0] is proc.steps:
        fixed: Mapping[str, Any] = found[1][0]
        return fixed
    changed = _changed(ruleset, proc)
    taken = changed | {p.name for p in proc.params}
    out: dict[str, Any] = {n: v for n, v in ruleset.constants.items() if type(v) in (int, bool) and n not in taken}
    out.update((n, v) for n, v in ruleset.dice.items() if n not in taken)
    out.update((name, rank) for rank, name in enumerate(proc.outcomes, start=1) if name not in taken)
    proc.memo.fixed = (proc.steps, (out, changed))
    return out


def _changed(ruleset: Ruleset, proc: Procedure) -> frozenset[str]:
    """The names a run of the procedure may change: those its steps bind, and a character sheet's."""
    from interpreter.ruleset.liveness import writes

    written = writes(proc.steps, ruleset.procedures, ruleset.tables, ruleset.kinds)
    changed = written | {"outcome"} | set(ruleset.traits) | set(ruleset.derived)
    if ruleset.sheet is not None:
        changed |= ruleset.sheet.names(ruleset.traits, ruleset.derived)
    return frozenset(changed)


def unchanged(ruleset: Ruleset, proc: Procedure, start: Mapping[str, Any]) -> dict[str, Any]:
    """Of the names a run starts with, those no step changes and no sheet gives (its parameters, mostly):
    the code of one set of parameters can be written with their values in it."""
    fixed_names(ruleset, proc)
    assert proc.memo.fixed is not None
    changed: frozenset[str] = proc.memo.fixed[1][1]
    return {n: v for n, v in start.items() if n not in changed and not n.startswith("#")
            and (type(v) in (int, bool) or getattr(v, "tree", None) is not None)}


class Writer:
    """What a step kind writes its code through; the two assemblies (program, function) differ in how."""

    def __init__(self, ruleset: Ruleset, proc: Procedure, code: Code, writers: Mapping[str, StepWriter],
                 top: bool = True, bound: Mapping[str, Any] | None = None) -> None:
        self.ruleset = ruleset
        self.proc = proc  # the procedure whose steps these are (a best_of ranks by its outcomes)
        self.code = code
        self.writers = writers  # step kind -> the function writing its code
        self.top = top  # the procedure's own steps: only there are final values retired
        self.parts: list[Part] = []
        self.current = 0
        self.depth = 1
        self.formulas = FormulaWriter(code.keep, code.temp, self.read)
        self.loop_names: list[tuple[str, ...]] = []  # the hidden names of the loops being written, outermost first
        self.done: tuple[str, ...] = ()  # top level: reported values final so far
        # names whose value every run of this code starts with and keeps: written into the code
        self.fixed: dict[str, Any] = {**fixed_names(ruleset, proc), **(bound or {})}
        self.bound = dict(bound or {})  # the parameters (and start values) this code was written for
        from interpreter.ruleset.tables import table_functions

        self.functions = table_functions(ruleset)

    # -- parts ----------------------------------------------------------------------------------------
    def block(self, key: tuple[str, ...] | None, where: Location | None) -> int:
        """A new part to jump to (not entered yet); its key gains the hidden names of the loops around it."""
        if key is not None:
            hidden = tuple(n for names in self.loop_names for n in names)
            key = key + hidden if hidden else key
        self.parts.append(Part(key, where))
        self.parts[-1].retire = self.done
        return len(self.parts) - 1

    def enter(self, index: int) -> None:
        """Write what follows into this part."""
        self.current = index
        self.depth = 1

    def fresh(self) -> bool:
        """Whether the current part has no code yet."""
        return not self.parts[self.current].lines

    def mark_loop(self, head: int, body: int) -> None:
        """`head` tests whether a loop goes on (exact odds cut the worlds that go on once they are too unlikely)."""
        self.parts[head].loop_body = body

    def can_inline(self, steps: Steps) -> bool:
        """Whether steps can be written inside an `if` of the current part (no part of theirs is jumped to)."""
        return not branches(steps, self.ruleset.kinds)

    def merge_point(self, key: tuple[str, ...] | None, where: Location) -> None:
        """Where exact odds merge worlds (before a step that branches); nothing for a run of one world."""

    def jump(self, target: int) -> None:
        """End the part: run `target` next."""
        raise NotImplementedError

    def jump_if(self, holds: str, then: int, otherwise: int) -> None:
        """End the part: run `then` next where `holds` is true, `otherwise` where it is not."""
        raise NotImplementedError

    # -- lines ----------------------------------------------------------------------------------------
    def emit(self, line: str) -> None:
        self.parts[self.current].lines.append("    " * self.depth + line)
        self.code.lines += 1
        if self.code.lines > limits.MAX_WRITTEN_LINES:  # (located at the step being written, by steps())
            raise LimitExceeded(
                f"the procedure's steps are written as more than {limits.MAX_WRITTEN_LINES} lines of code; "
                "a procedure this large is refused", hint="split it into procedures that `call` one another")

    @contextmanager
    def indented(self) -> Iterator[None]:
        self.depth += 1
        start = len(self.parts[self.current].lines)
        try:
            yield
        finally:
            if len(self.parts[self.current].lines) == start:
                self.emit("pass")
            self.depth -= 1

    @contextmanager
    def located(self, where: Location) -> Iterator[None]:
        """Lines whose errors without a place of their own are placed here."""
        self.emit("try:")
        with self.indented():
            yield
        self.emit("except RulesError as err:")
        with self.indented():
            self.emit(f"raise err.located({self.keep(where)}) from None")

    def keep(self, obj: object) -> str:
        return self.code.keep(obj)

    @staticmethod
    def known(code: str) -> tuple[bool, Any]:
        """Whether the code of a value is its value written out (a fixed formula's), and that value."""
        if not (code.startswith("(") and code.endswith(")")):
            return False, None
        try:
            return True, literal_eval(code)
        except (ValueError, SyntaxError):
            return False, None

    def temp(self) -> str:
        return self.code.temp()

    def value(self, formula: Formula) -> str:
        """The code of a formula's value: its statements are written here, the expression holding it returned.

        A formula that reads only fixed names is worked out here, by the same evaluator, and written as
        its value; one whose evaluation fails is written out, to fail where it runs with its own error."""
        if formula.tree is None:
            return repr(formula.literal)
        if formula.names <= self.fixed.keys():
            try:
                known = formula.evaluate(self.fixed, self.functions)
            except Exception:  # noqa: BLE001  # (Undecided too): the written code gives the error where it runs
                known = None
            if type(known) in (int, bool, float):
                return f"({known!r})"
        lines, expr = self.formulas.write(*formula.tree)
        for line in lines:
            self.emit(line)
        return expr

    # -- names: how the assembly holds them -----------------------------------------------------------
    def read(self, name: str, where: str) -> tuple[list[str], str]:
        """The lines reading a name for a formula (its value checked to be a number), and the expression."""
        if name in self.fixed:
            value = self.fixed[name]
            if type(value) in (int, bool):
                return [], repr(value)
            t = self.temp()  # named dice: reading one as a number is the error every reading of it gives
            return [f"{t} = _read({self.keep(value)}, {name!r}, {where})"], t
        return self.read_held(name, where)

    def read_held(self, name: str, where: str) -> tuple[list[str], str]:
        """`read`, for a name the code holds (not a fixed one)."""
        raise NotImplementedError

    def get(self, name: str) -> str:
        """An expression giving a name's value as it is (MISSING when the name has none)."""
        raise NotImplementedError

    def set(self, name: str, code: str) -> None:
        raise NotImplementedError

    def has(self, name: str) -> str:
        """An expression: whether the name has a value."""
        return f"{self.get(name)} is not _M"

    def drop(self, name: str) -> None:
        """The name has no value from here on."""
        raise NotImplementedError

    def names(self) -> str:
        """An expression giving the dict of the sheet's names (what sheet changes work on)."""
        raise NotImplementedError

    def given(self, names: tuple[str, ...]) -> str:
        """An expression giving a dict of these names' values (for a message or a roll to read)."""
        return "{" + ", ".join(f"{n!r}: {self.value_of(n)}" for n in names) + "}"

    def value_of(self, name: str) -> str:
        """An expression giving a name's value as it is, fixed names included."""
        if name not in self.fixed:
            return self.get(name)
        value = self.fixed[name]
        return repr(value) if type(value) in (int, bool) else self.keep(value)

    def outcome(self, name: str) -> None:
        """Set the outcome to a declared one (formulas see its rank as `outcome`)."""
        raise NotImplementedError

    def outcome_of(self, code: str) -> None:
        """Set the outcome to the one (or None) an expression gives."""
        raise NotImplementedError

    def stop(self) -> None:
        """End the procedure (or the part of it that runs on its own, such as a best_of run)."""
        raise NotImplementedError

    def trace(self, code: str) -> None:
        """Add a record (an expression giving one) to the trace, when the run keeps one."""
        raise NotImplementedError

    def trace_when(self, holds: str, record: object) -> None:
        """Add a record to the trace where the code `holds` is true (nothing where it never is)."""
        known, value = self.known(holds)
        if known:
            if value:
                self.trace(self.keep(record))
            return
        self.emit(f"if {holds}:")
        with self.indented():
            self.trace(self.keep(record))

    # -- what the context gives -----------------------------------------------------------------------
    def drawing(self, where: Location) -> None:
        """What follows leads to a draw (a roll, a call, a best_of's runs): said before its arguments are written."""
        part = self.parts[self.current]
        if part.draws and self.depth == 1:
            self.split(where)
        self.parts[self.current].draws += 1

    def split(self, where: Location) -> None:
        """Start a new part here, if the assembly gains by it (exact odds: each result of a draw then runs only
        the code after it, not the draws before it again)."""
    # What each ask of the context starts with (the world's state, for exact odds), and the code of the
    # names it gives a call (the run's own, for a callee on its sheet).
    first = ""
    env = "E"

    def seen(self, expr: Any) -> str:
        """The code of the names a dice expression reads, for the context's roll and its trace."""
        raise NotImplementedError

    def roll(self, name: str, expr: Any, where: Location) -> str:
        """An expression: the result of rolling a dice expression (one result, or each in turn for odds)."""
        return f"c.roll({self.first}{name!r}, {self.keep(expr)}, {self.keep(where)}, {self.seen(expr)})"

    def roll_among(self, name: str, exprs: tuple[Any, ...], pick: str, where: Location) -> str:
        """An expression: the result of rolling the one of these dice expressions that `pick` (code) numbers;
        each reads the names the first does (effects change numbers and keeping, never names)."""
        return f"c.roll({self.first}{name!r}, {self.keep(exprs)}[{pick}], {self.keep(where)}, {self.seen(exprs[0])})"

    def pool(self, r: Any, thresholds: str, value_read: bool) -> str:
        """An expression: a pool's result and the statistics a roll step reads, as a tuple (`thresholds`: the
        code of each statistic's threshold values; without `value_read` exact odds may give None as the result)."""
        return f"c.pool({self.first}{self.keep(r)}, {self.seen(r.expr)}, {thresholds}, {value_read!r})"

    def call(self, site: Any, args: list[tuple[str, str]]) -> str:
        """An expression: an end of a called procedure, `(outcome, its values in order, its sheet names)`."""
        given = ", ".join(f"{n!r}: {v}" for n, v in args)
        t = self.temp()
        self.emit(f"{t} = c.call({self.first}{self.keep(site)}, {{{given}}}, {self.env})")
        return t

    def best_of(self, runs: Any, count: str, worst: str, steps: Steps) -> None:
        """Keep the best (or worst) of `count` runs of the steps from the state here."""
        raise NotImplementedError

    # -- steps ----------------------------------------------------------------------------------------
    def steps(self, steps: Steps, after: Step[Any] | None = None) -> None:
        """Write a list of steps; `after` is the step before them (its live names key a merge point)."""
        before = after
        for step in steps:
            if branches((step,), self.ruleset.kinds) and not self.fresh():
                self.merge_point(before.live if before is not None else None, step.where)
            part = self.parts[self.current]
            if part.where is None:
                part.where = step.where
            part.cost += 1
            try:
                self.writers[step.kind](self, step)
            except LimitExceeded as err:
                raise err.located(step.where) from None
            if self.top and not self.loop_names and step.done:
                self.done = self.done + step.done
            before = step


__all__ = ["Code", "Part", "StepWriter", "Writer", "branches", "fixed_names", "unchanged"]

