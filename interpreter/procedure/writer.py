"""Writing a compiled procedure out as one Python function that samples it: the fast path.

The steps, formulas and dice of the compiled procedure (the same objects the traced runner
and exact odds run) are written as Python source: names become local variables instead of
dict entries of worlds, rolls become draws from the generator (dice.lean), no trace is
kept. Only identifiers made here, int and bool literals, and repr of outcome names appear
in the source; every other object (formulas' error details, table functions, constants)
is stored in the module's globals under a made-up name. A step this writer does not know
raises `Unsupported` and the procedure is sampled by the traced runner (procedure.sampler).

What is written: let, roll (without `read`), decide, stop, if, contest, table, require, repeat,
while, best_of (without a stop in its body) and call (of a procedure that needs no sheet); an
`if has_sheet` branch is left out, since a sample has no sheet.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from interpreter import limits
from interpreter.absent import Absent
from interpreter.dice import lean
from interpreter.dice.expr import DiceExpr
from interpreter.errors import Location
from interpreter.formula import emit
from interpreter.formula.emit import Unsupported
from interpreter.formula.source import Source
from interpreter.procedure import loops
from interpreter.procedure.call import initial_env
from interpreter.procedure.written import HELPERS
from interpreter.ruleset.liveness import SHEET, writes
from interpreter.ruleset.model import Procedure, Ruleset
from interpreter.ruleset.specs import (
    BestOf,
    Call,
    Contest,
    Decide,
    If,
    Let,
    Loop,
    Roll,
    Step,
    Steps,
    Stop,
    TableLookup,
    walk,
)
from interpreter.ruleset.tables import row_name, table_functions

_FILL = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})")


class Module(emit.Kept):
    """The source and globals of one written procedure with the procedures it calls."""

    def __init__(self, ruleset: Ruleset):
        self.ruleset = ruleset
        self.globals: dict[str, Any] = {**emit.HELPERS, **lean.HELPERS, **HELPERS}
        self.kept: dict[int, str] = {}
        self.functions: dict[str, str] = {}  # callee name -> its function's identifier
        self.chunks: list[str] = []
        self.tables = table_functions(ruleset)
        self.counting = False  # whether runs count their steps and dice (loops.bound says they may reach the limits)

    def callee(self, proc: Procedure) -> str:
        """The function of a called procedure, written once."""
        name = self.functions.get(proc.name)
        if name is None:
            name = self.functions[proc.name] = f"p{len(self.functions)}"
            if proc.sheet == "required":
                raise Unsupported("a called procedure needs a sheet")
            base = initial_env(self.ruleset, proc, {p.name: None for p in proc.params})
            params = {p.name: f"a{i}" for i, p in enumerate(proc.params)}
            initial = {k: params.get(k) or self.keep(v) for k, v in base.items()}
            body = Function(self, proc, initial, dice_params=frozenset()).write()
            head = ["r", *(["_work"] if self.counting else []), *params.values()]
            self.chunks.append(f"def {name}({', '.join(head)}):\n" + body)
        return name


class Function:
    """The body of one procedure's function: its steps over local variables."""

    def __init__(self, module: Module, proc: Procedure, initial: dict[str, str], dice_params: frozenset[str],
                 top: bool = False):
        self.m = module
        self.top = top
        self.proc = proc
        self.initial = initial  # name -> the code of its starting value
        self.dice_params = dice_params  # names whose value may be a dice expression: read through a roller
        self.written = set(writes(proc.steps, module.ruleset.procedures, module.ruleset.tables)) | {"outcome"}
        if SHEET in self.written:
            self.written.discard(SHEET)
        self.ids: dict[str, str] = {}
        self.initial_reads: set[str] = set()  # the names read from their starting values
        self.lines: list[str] = []
        self.loop = 0  # depth of best_of loops being written
        self.temps = 0
        self.formulas = emit.FormulaWriter(self._formula_name, module.keep, self._table_function)
        self.absent = absent_names(module.ruleset, proc.steps)  # names a table row may leave absent
        if self.absent and not top and self.absent & set(proc.values):
            raise Unsupported("a called procedure may give an absent value")  # its caller would hold it as is

    # -- names ------------------------------------------------------------------------------------
    def var(self, name: str) -> str:
        if name not in self.ids:
            self.ids[name] = f"v{len(self.ids)}"
        return self.ids[name]

    def read(self, name: str) -> str | None:
        if name == "has_sheet" and name not in self.written:
            return "(False)"
        if name in self.written:
            return self.var(name)
        code = self.initial.get(name)
        if code is not None:
            if isinstance(self.m.globals.get(code), Absent):  # reading it fails, as the traced runner says
                raise Unsupported(f"name {name} has no value")
            self.initial_reads.add(name)
        return code

    def _formula_name(self, name: str, source: Source, node: ast.AST) -> str:
        code = self.read(name)
        if code is None:
            raise Unsupported(f"name {name}")
        if name in self.dice_params or name in self.m.ruleset.dice:
            return f"_number({code}, *{self.m.keep((repr(name), source.node_at(node)))})"
        if name in self.absent:
            return f"_present({code}, {self.m.keep((name, source.node_at(node)))})"
        return code

    def _table_function(self, name: str) -> str:
        function = self.m.tables.get(name)
        if function is None:
            raise Unsupported(f"function {name}")
        return self.m.keep(function)

    def _dice_name(self, name: str) -> lean.NameCode:
        ruleset = self.m.ruleset
        if name in self.dice_params and name not in self.written:
            return "roller", self.initial[name] + "_roll"
        if name in self.dice_params:  # the parameter's dice until a step binds a number to its name
            cell, var = self.initial[name], self.var(name)
            return "code", f"({cell}_roll(r, _c) if {var} is {cell} else _whole({var}, {name!r}, 1))"
        if name in ruleset.dice and name not in self.written and name not in self.dice_params \
                and name not in {p.name for p in self.proc.params} and name in self.initial:
            return "dice", ruleset.dice[name]
        code = self.read(name)
        if code is None or name in ruleset.dice or name in self.dice_params:
            raise Unsupported(f"dice name {name}")
        return "int", code

    # -- writing ----------------------------------------------------------------------------------
    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def f(self, formula: Any) -> str:
        return self.formulas.write(formula)

    def write(self) -> str:
        """The function body: starting values, the steps, the result."""
        steps = self.proc.steps
        self.emit(1, "_o = None")
        for name in sorted(self.written):
            if name in self.initial:
                self.emit(1, f"{self.var(name)} = {self.initial[name]}")
            else:  # a name a row may leave absent is told apart from one bound before the table
                self.emit(1, f"{self.var(name)} = {'_UNSET' if name in self.absent else 'None'}")
        self.steps(steps, 1)
        self.emit(1, self.result())
        return "\n".join(self.lines) + "\n"

    def result(self) -> str:
        values = []
        for name in self.proc.values:
            code = self.read(name) or "None"
            if name in self.absent:
                code = f"_reported({code})"
            words = self.proc.value_words.get(name)
            values.append(f"_worded({code}, {self.m.keep(words)})" if words and self.top else code)
        inner = ", ".join(["_o", *values]) + ","
        if self.top:
            where = self.m.keep((self.proc.name, self.proc.where))
            return f"return ({inner}) if _o is not None else _no_outcome({where})"
        return f"return ({inner})"

    def set_outcome(self, depth: int, outcome: str) -> None:
        self.emit(depth, f"_o = {outcome!r}")
        self.emit(depth, f"{self.var('outcome')} = {self.read(outcome) or '0'}")

    def steps(self, steps: Steps, depth: int) -> None:
        start = len(self.lines)
        for step in steps:
            self.step(step, depth)
        if len(self.lines) == start:
            self.emit(depth, "pass")

    def step(self, step: Step[Any], depth: int) -> None:
        spec = step.spec
        self.tick(depth, step.where)
        if isinstance(spec, Let):
            for a in spec.assign:
                self.emit(depth, f"{self.var(a.name)} = {self.f(a.formula)}")
        elif isinstance(spec, Roll):
            for r in spec.rolls:
                if r.reads:
                    raise Unsupported("pool reads")
                self.roll(r.name, r.expr, depth, where=r.where)
        elif isinstance(spec, Decide):
            word = "if"
            for b in spec.branches:
                if b.cond is None:
                    self.emit(depth, "else:" if word == "elif" else "if True:")
                else:
                    self.emit(depth, f"{word} {self.f(b.cond)}:")
                self.set_outcome(depth + 1, b.outcome)
                if b.cond is None:
                    break
                word = "elif"
        elif isinstance(spec, Stop):
            self.emit(depth, f"if {self.f(spec.when)}:")
            if spec.outcome is not None:
                self.set_outcome(depth + 1, spec.outcome)
            if self.loop:
                raise Unsupported("stop inside best_of")
            self.emit(depth + 1, self.result())
        elif isinstance(spec, If):
            self.if_(spec, depth)
        elif isinstance(spec, Contest):
            self.contest(spec, depth)
        elif isinstance(spec, Call):
            self.call(spec, step.where, depth)
        elif isinstance(spec, BestOf):
            loops.write_best_of(self, spec, step.where, depth)
        elif isinstance(spec, Loop):
            loops.write_loop(self, spec, step.where, depth)
        elif isinstance(spec, TableLookup):
            self.table(spec, step.where, depth)
        elif step.kind == "require":
            self.require(step, depth)
        else:
            raise Unsupported(step.kind)

    def roll(self, name: str, expr: DiceExpr, depth: int, into: str = "", where: Location | None = None) -> None:
        dice = lean.DiceWriter(self.m.keep, self._dice_name)
        code = dice.write(expr)
        counter = "_c" in code
        if counter:
            self.emit(depth, f"_c = [{dice.static}, 0, None]")
        self.emit(depth, f"{into or self.var(name)} = {code}")
        if self.m.counting and where is not None:
            self.work(depth, 1, where, "_c[0]" if counter else str(dice.static))

    def tick(self, depth: int, where: Location) -> None:
        """A step taken (counted only when runs may reach the limits)."""
        self.work(depth, 0, where)

    def work(self, depth: int, kind: int, where: Location, amount: str = "1") -> None:
        """Count steps (kind 0) or dice (kind 1) against the run's limits, as the traced runner counts them."""
        if not self.m.counting:
            return
        limit = limits.MAX_STEPS if kind == 0 else limits.MAX_RUN_DICE
        self.emit(depth, f"_work[{kind}] += {amount}")
        self.emit(depth, f"if _work[{kind}] > {limit}: _over_limit({kind}, {self.m.keep(where)})")

    def table(self, spec: TableLookup, where: Location, depth: int) -> None:
        """A table's row for a key or for its die: each row's outcome, value and rolls written out."""
        table = self.m.ruleset.tables[spec.table]
        rows = [*table.rows, *([table.default] if table.default is not None else [])]
        every = {name for row in rows for name, _ in row.values}
        if spec.key is not None:
            self.emit(depth, f"_key = {self.f(spec.key)}")
        else:
            self.roll("", table.die, depth, into="_key", where=where)
        self.emit(depth, f"_row = {self.m.keep(table)}.row_for(_key)")
        self.emit(depth, f"if _row is None: _table_miss({self.m.keep((table.name, where))}, _key)")
        if spec.roll_as:
            self.emit(depth, f"{self.var(spec.roll_as)} = _key")
        for i, row in enumerate(rows):
            self.emit(depth, f"{'if' if i == 0 else 'elif'} _row is {self.m.keep(row)}:")
            start = len(self.lines)
            if row.outcome is not None:
                self.set_outcome(depth + 1, row.outcome)
            shown = row_name(table.name, table.rows.index(row) if row is not table.default else 0, row.low, row.high,
                             row is table.default)
            if spec.value_as:
                value = (self.m.keep(Absent(f"{shown} has no value")) if row.value is None
                         else self.f(row.value))
                self.emit(depth + 1, f"{self.var(spec.value_as)} = {value}")
            for name in sorted(every - {n for n, _ in row.values}):  # absent, unless bound before the table
                absent = self.m.keep(Absent(f"{shown} binds no '{name}'"))
                self.emit(depth + 1, f"if {self.var(name)} is _UNSET: {self.var(name)} = {absent}")
            for name, expr in row.values:
                self.roll(name, expr, depth + 1, where=row.where)
            if len(self.lines) == start:
                self.emit(depth + 1, "pass")

    def if_(self, spec: If, depth: int) -> None:
        cond = self.f(spec.cond)
        if cond == "(False)":
            self.steps(spec.otherwise, depth) if spec.otherwise else None
            return
        if cond == "(not (False))":
            self.steps(spec.then, depth)
            return
        self.emit(depth, f"if {cond}:")
        self.steps(spec.then, depth + 1)
        if spec.otherwise:
            self.emit(depth, "else:")
            self.steps(spec.otherwise, depth + 1)

    def contest(self, spec: Contest, depth: int) -> None:
        self.emit(depth, f"_a = {self.f(spec.actor)}")
        self.emit(depth, f"_b = {self.f(spec.defender)}")
        tie = "_a >= _b" if spec.ties == "actor" else "_a > _b"
        self.emit(depth, f"if {tie}:")
        self.set_outcome(depth + 1, spec.win)
        self.emit(depth, "else:")
        self.set_outcome(depth + 1, spec.lose)
        if spec.margin:
            self.emit(depth, f"{self.var(spec.margin)} = _a - _b")
        if spec.tied:
            self.emit(depth, f"{self.var(spec.tied)} = _a == _b")

    def require(self, step: Step[Any], depth: int) -> None:
        names = sorted(set(_FILL.findall(step.spec.message)))
        env = ", ".join(f"{n!r}: {self.read(n) or 'None'}" for n in names)
        self.emit(depth, f"if not {self.f(step.spec.when)}:")
        self.emit(depth + 1, f"_refuse({self.m.keep(step.spec.message)}, {{{env}}})")

    def call(self, spec: Call, where: Location, depth: int) -> None:
        callee = self.m.ruleset.procedures[spec.procedure]
        if any(a.passes for a in spec.args):
            raise Unsupported("dice handed on to a call")  # the traced runner rolls them in the callee
        given = {a.name: self.f(a.formula) for a in spec.args}
        missing = [p.name for p in callee.params if p.required and p.name not in given]
        if missing or set(given) - {p.name for p in callee.params}:
            raise Unsupported("call arguments")
        fn = self.m.callee(callee)
        args = [given.get(p.name) or self.m.keep(p.default) for p in callee.params]
        self.emit(depth, f"_r = {fn}({', '.join(['r', *(['_work'] if self.m.counting else []), *args])})")
        self.work(depth, 0, where)  # the callee's end joins the run
        if spec.prefix:
            for i, name in enumerate(callee.values, start=1):
                self.emit(depth, f"{self.var(f'{spec.prefix}_{name}')} = _r[{i}]")
            for name in callee.outcomes:
                self.emit(depth, f"{self.var(f'{spec.prefix}_{name}')} = _r[0] == {name!r}")
        if spec.inherit:
            self.emit(depth, "_o = _r[0]")
            ranks = " else ".join(f"{self.read(o) or '0'} if _o == {o!r}" for o in callee.outcomes)
            self.emit(depth, f"{self.var('outcome')} = {ranks + ' else 0' if ranks else '0'}")


def absent_names(ruleset: Ruleset, steps: Steps) -> frozenset[str]:
    """The names a table step may leave absent: bound by some rows only, or a value some row lacks."""
    out: set[str] = set()
    for step in walk(steps):
        if isinstance(step.spec, TableLookup):
            table = ruleset.tables[step.spec.table]
            rows = [*table.rows, *([table.default] if table.default is not None else [])]
            every = {name for row in rows for name, _ in row.values}
            out |= {name for row in rows for name in every - {n for n, _ in row.values}}
            if step.spec.value_as and any(row.value is None for row in rows):
                out.add(step.spec.value_as)
    return frozenset(out)
