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
The abstract methods of `Writer` are what an assembly must say; what the written code asks of
its context `c` is typed by procedure.context. A kind writes a compound statement through
`under` (or `indented`), never by moving the indentation itself.

The source holds only identifiers made here, `repr` of names, outcomes, whole numbers and flags;
every other object is kept in the module's globals under a made-up identifier (`Code.keep`).
With a listing (`Code(..., listing=[])`, what `rules describe --code` prints) each step's code
starts with a comment naming its place in the YAML, and the source of every module is kept.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from ast import literal_eval
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from interpreter import limits
from interpreter.errors import LimitExceeded, Location
from interpreter.formula.code import FormulaWriter
from interpreter.procedure.code import Code, Part
from interpreter.procedure.fixed import fixed_names, unchanged
from interpreter.procedure.state import END

if TYPE_CHECKING:
    from interpreter.dice.expr import DiceExpr
    from interpreter.formula.compile import Formula
    from interpreter.ruleset.kind import Kinds
    from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset
    from interpreter.ruleset.specs import RollInto, Step, Steps

StepWriter = Callable[["Writer", Any], None]


def branches(steps: Steps, kinds: Kinds) -> bool:
    """Whether any of these steps (nested ones too) branches over dice or calls, or loops (its kind `draws`):
    exact odds merge worlds before such a step."""
    return any(kinds[step.kind].draws or any(branches(s, kinds) for s in step.spec.nested()) for step in steps)


class Writer(ABC):
    """What a step kind writes its code through; the two assemblies (program, function) differ in how.

    The abstract methods are what an assembly says: how a part ends (`jump`, `jump_if`) and where
    worlds merge (`merge_point`, `split`), how a name is held (`read_held`, `get`, `set`, `drop`,
    `names`), the outcome (`outcome`, `outcome_of`, `outcome_held`, `put_outcome`), the trace
    (`trace`), the step count (`charge`), the names a roll reads (`seen`) and how a best_of's runs
    are made (`runs`). Everything else is written here from those."""

    env = "E"  # the code of the run's names, as a call hands them to its context
    stopped = "st"  # the code of the flag set when the procedure (or a best_of run) stops

    def __init__(self, ruleset: CompiledRuleset, proc: CompiledProcedure, code: Code, writers: Mapping[str, StepWriter],
                 top: bool = True, bound: Mapping[str, object] | None = None) -> None:
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
        self.run_ends: list[int] = []  # the parts the best_of runs being written end at, innermost last
        self.done: tuple[str, ...] = ()  # top level: reported values final so far
        # names whose value every run of this code starts with and keeps: written into the code
        self.fixed: dict[str, object] = {**fixed_names(ruleset, proc), **(bound or {})}
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

    def mark_loop(self, head: int, body: int, endless: tuple[str, frozenset[str]] | None = None) -> None:
        """`head` tests whether a loop goes on (exact odds cut the worlds that go on once they are too unlikely);
        `endless`, for a loop with no bound: the hidden name counting its passes and the names its body may write
        (exact odds may settle it)."""
        self.parts[head].loop_body = body
        self.parts[head].endless = endless

    def can_inline(self, steps: Steps) -> bool:
        """Whether steps can be written inside an `if` of the current part (no part of theirs is jumped to)."""
        return not branches(steps, self.ruleset.kinds)

    @abstractmethod
    def merge_point(self, key: tuple[str, ...] | None, where: Location) -> None:
        """Where exact odds merge worlds (before a step that branches; `key`: the names live there); nothing
        for a run of one world."""

    @abstractmethod
    def jump(self, target: int) -> None:
        """End the part: run `target` next (`END`: the procedure, or the part run on its own, is over)."""

    @abstractmethod
    def jump_if(self, holds: str, then: int, otherwise: int) -> None:
        """End the part: run `then` next where `holds` is true, `otherwise` where it is not."""

    def stop(self) -> None:
        """End the procedure (or the part of it that runs on its own, such as a best_of run)."""
        self.emit(f"{self.stopped} = True")
        self.jump(self.run_ends[-1] if self.run_ends else END)

    # -- lines ----------------------------------------------------------------------------------------
    def emit(self, line: str) -> None:
        self.parts[self.current].lines.append("    " * self.depth + line)
        self.code.lines += 1
        if self.code.lines > limits.MAX_WRITTEN_LINES:  # (located at the step being written, by steps())
            raise LimitExceeded(
                f"the procedure's steps are written as more than {limits.MAX_WRITTEN_LINES} lines of code; "
                "a procedure this large is refused", hint="split it into procedures that `call` one another")

    def comment(self, text: str) -> None:
        """A comment line, written only into a listing (it counts as no line of code)."""
        if self.code.listing is not None:
            self.parts[self.current].lines.append("    " * self.depth + "# " + " ".join(text.split()))

    @contextmanager
    def indented(self) -> Iterator[None]:
        """The lines written inside it are one level deeper (`pass` when there are none)."""
        self.depth += 1
        lines = self.parts[self.current].lines
        start = len(lines)
        try:
            yield
        finally:
            if all(line.lstrip().startswith("#") for line in lines[start:]):
                self.emit("pass")
            self.depth -= 1

    @contextmanager
    def under(self, header: str) -> Iterator[None]:
        """A compound statement: its header (`if ...:`, `else:`, ...), then the lines written inside it."""
        self.emit(header)
        with self.indented():
            yield

    @contextmanager
    def located(self, where: Location) -> Iterator[None]:
        """Lines whose errors without a place of their own are placed here."""
        with self.under("try:"):
            yield
        with self.under("except RulesError as err:"):
            self.emit(f"raise err.located({self.keep(where)}) from None")

    def keep(self, obj: object) -> str:
        return self.code.keep(obj)

    @staticmethod
    def known(code: str) -> tuple[bool, object]:
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

    @abstractmethod
    def read_held(self, name: str, where: str) -> tuple[list[str], str]:
        """`read`, for a name the code holds (not a fixed one)."""

    @abstractmethod
    def get(self, name: str) -> str:
        """An expression giving a name's value as it is (MISSING, `_M`, when the name has none)."""

    @abstractmethod
    def set(self, name: str, code: str) -> None:
        """Bind a name to the value an expression gives."""

    def has(self, name: str) -> str:
        """An expression: whether the name has a value."""
        return f"{self.get(name)} is not _M"

    @abstractmethod
    def drop(self, name: str) -> None:
        """The name has no value from here on."""

    def put(self, name: str, code: str) -> None:
        """Give a name the value an expression gives as `get` does (`_M`: no value)."""
        with self.under(f"if {code} is _M:"):
            self.drop(name)
        with self.under("else:"):
            self.set(name, code)

    @abstractmethod
    def names(self) -> str:
        """An expression giving the dict of the sheet's names (what sheet changes work on)."""

    def sheet_held(self) -> frozenset[str]:
        """The names the code holds by name for the sheet's (what a best_of saves when its steps change the
        sheet); none where the sheet's names are only known as the run goes."""
        return frozenset()

    def given(self, names: tuple[str, ...]) -> str:
        """An expression giving a dict of these names' values (for a message or a roll to read)."""
        return "{" + ", ".join(f"{n!r}: {self.value_of(n)}" for n in names) + "}"

    def value_of(self, name: str) -> str:
        """An expression giving a name's value as it is, fixed names included."""
        if name not in self.fixed:
            return self.get(name)
        value = self.fixed[name]
        return repr(value) if type(value) in (int, bool) else self.keep(value)

    @abstractmethod
    def outcome(self, name: str) -> None:
        """Set the outcome to a declared one (formulas see its rank as `outcome`)."""

    @abstractmethod
    def outcome_of(self, code: str) -> None:
        """Set the outcome to the one (or None) an expression gives."""

    @abstractmethod
    def outcome_held(self) -> tuple[str, str]:
        """The expressions holding the outcome: its name (or None), and the rank formulas see."""

    @abstractmethod
    def put_outcome(self, name: str, rank: str) -> None:
        """Set the outcome to what `outcome_held` gave (expressions of its name and its rank)."""

    @abstractmethod
    def trace(self, code: str) -> None:
        """Add a record (an expression giving one) to the trace, when the run keeps one."""

    def trace_when(self, holds: str, record: object) -> None:
        """Add a record to the trace where the code `holds` is true (nothing where it never is)."""
        known, value = self.known(holds)
        if known:
            if value:
                self.trace(self.keep(record))
            return
        with self.under(f"if {holds}:"):
            self.trace(self.keep(record))

    @abstractmethod
    def charge(self, steps: int) -> None:
        """Count steps against the step limit as the code runs, where the assembly counts them so (a run's;
        exact odds count the work of each block as they run it)."""

    # -- what the context gives -----------------------------------------------------------------------
    def drawing(self, where: Location) -> None:
        """What follows leads to a draw (a roll, a call, a best_of's runs): said before its arguments are written."""
        part = self.parts[self.current]
        if part.draws and self.depth == 1:
            self.split(where)
        self.parts[self.current].draws += 1

    @abstractmethod
    def split(self, where: Location) -> None:
        """Start a new part here, if the assembly gains by it (exact odds: each result of a draw then runs only
        the code after it, not the draws before it again)."""

    @abstractmethod
    def seen(self, expr: DiceExpr) -> str:
        """The code of the names a dice expression reads, for the context's roll and its trace."""

    def roll(self, name: str, expr: DiceExpr, where: Location) -> str:
        """An expression: the result of rolling a dice expression (one result, or each in turn for odds)."""
        return f"c.roll({name!r}, {self.keep(expr)}, {self.keep(where)}, {self.seen(expr)})"

    def roll_among(self, name: str, exprs: tuple[DiceExpr, ...], pick: str, where: Location) -> str:
        """An expression: the result of rolling the one of these dice expressions that `pick` (code) numbers;
        each reads the names the first does (effects change numbers and keeping, never names)."""
        return f"c.roll({name!r}, {self.keep(exprs)}[{pick}], {self.keep(where)}, {self.seen(exprs[0])})"

    def pool(self, r: RollInto, thresholds: str, value_read: bool) -> str:
        """An expression: a pool's result and the statistics a roll step reads, as a tuple (`thresholds`: the
        code of each statistic's threshold values; without `value_read` exact odds may give None as the result)."""
        return f"c.pool({self.keep(r)}, {self.seen(r.expr)}, {thresholds}, {value_read!r})"

    def call(self, site: Any, args: list[tuple[str, str]]) -> str:
        """An expression: an end of a called procedure, `(outcome, its values in order, its sheet names)`."""
        given = ", ".join(f"{n!r}: {v}" for n, v in args)
        t = self.temp()
        self.emit(f"{t} = c.call({self.keep(site)}, {{{given}}}, {self.env})")
        return t

    @abstractmethod
    def runs(self, runs: Any, count: str, worst: str, steps: Steps) -> bool:
        """A best_of's runs (of `steps`, `count` of them, the worst kept where `worst` holds): True when they are
        written here as one ask of the context; False when the kind is to write them in place, as a loop."""

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
            self.comment(f"{step.where.file}:{step.where.line}: {step.kind} ({step.where.path})")
            try:
                self.writers[step.kind](self, step)
            except LimitExceeded as err:
                raise err.located(step.where) from None
            if self.top and not self.loop_names and step.done:
                self.done = self.done + step.done
            before = step


__all__ = ["Code", "Part", "StepWriter", "Writer", "branches", "fixed_names", "unchanged"]
