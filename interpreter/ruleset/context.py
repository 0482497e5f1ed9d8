"""What compiling a ruleset knows at each point: problems found, names in scope, the procedure being compiled.

`CompileContext` records problems and compiles formulas and dice expressions at file positions.
`Sections` is what the sections before procedures produced (constants, named dice, traits,
derived values, the sheet); `ProcContext` is the procedure a step belongs to. Step
compilers get all three, so none reads an attribute that exists only after some point.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, TypeAlias

from interpreter.absent import HINT as ABSENT_HINT
from interpreter.dice import expr as dice
from interpreter.dice.counted import expand_counts, sides_of_named
from interpreter.errors import Location, RulesError, SchemaViolation, UnknownName, UnknownStepKind
from interpreter.formula.compile import Either, Formula, compile_formula
from interpreter.hints import new_check, suggest
from interpreter.load.document import Document, Path
from interpreter.record import record
from interpreter.ruleset.kind import Kinds
from interpreter.ruleset.model import Derived, SheetSpec, Trait
from interpreter.ruleset.specs import Step, Steps, StepSpec

P: TypeAlias = Path
Spec = Mapping[str, Any]  # a step as written (its shape checked by the schema)


class Scope:
    """The names visible at one point of a procedure, split by what they may be used for.

    ``absent`` holds the names a table step binds in some rows only (and nothing bound
    before): each with why it may be absent, and whether every run that reaches this point
    went through that row's world unchanged (``sure``), so that a formula reading it here
    always fails. Steps that may end or divert a run (stop, require, if, loops, ...) make
    every such name no longer sure; it is then checked when it is read at run time.
    """

    def __init__(self, formulas: set[str], dice_only: set[str], absent: dict[str, tuple[str, bool]] | None = None):
        self.formulas = set(formulas)
        self.dice_only = set(dice_only)
        self.absent: dict[str, tuple[str, bool]] = dict(absent or {})

    def copy(self, weak: bool = False) -> Scope:
        scope = Scope(self.formulas, self.dice_only, self.absent)
        if weak:
            scope.weaken()
        return scope

    def define(self, *names: str | None) -> None:
        for name in names:
            if name:
                self.formulas.add(name)
                self.dice_only.discard(name)
                self.absent.pop(name, None)

    def maybe(self, name: str, why: str, rebound: bool = False) -> None:
        """A name that is bound on some paths and absent on others (``rebound``: whatever it held before)."""
        if rebound:
            self.absent.pop(name, None)
        if rebound or name not in self.formulas or name in self.absent:
            self.formulas.add(name)
            self.dice_only.discard(name)
            self.absent.setdefault(name, (why, True))

    def weaken(self) -> None:
        """No absent name is sure any more (a step may have ended or diverted the runs)."""
        self.absent = {name: (why, False) for name, (why, _) in self.absent.items()}

    def join(self, *branches: Scope) -> None:
        """After steps that take one of these branches: names every branch defines, absent when one may lack it."""
        common = set.intersection(*(b.formulas for b in branches))
        for name in sorted(common - self.formulas | {n for n in common if n in self.absent}):
            whys = [b.absent[name][0] for b in branches if name in b.absent]
            if whys:
                self.formulas.add(name)
                self.absent[name] = (whys[0], False)
            else:
                self.define(name)

    def refuse_absent(self, c: CompileContext, f: Formula | None, names: Iterable[str] | None = None,
                      where: Location | None = None) -> None:
        """A load error for each name read here that is surely absent on some path (see `absent`)."""
        reads = f.strict if f is not None and names is None else [(n, where) for n in sorted(names or ())]
        for name, at in reads:
            entry = self.absent.get(name)
            if entry is not None and entry[1]:
                c.problem(UnknownName(f"'{name}' may be absent here: {entry[0]}", at, ABSENT_HINT, name=name))


class CompileContext:
    """Compiles the parts of one document, collecting every problem instead of stopping at the first."""

    def __init__(self, doc: Document):
        self.doc = doc
        self.data: dict[str, Any] = doc.data
        self.problems: list[RulesError] = []
        self.broken: set[str] = set()  # names whose own definition failed: their uses are not reported again
        self.broken_prefixes: set[str] = set()  # likewise for the names a call to an unknown procedure binds
        self.named_dice: dict[str, dice.DiceExpr] = {}
        self.constants: dict[str, object] = {}  # the values of the constants compiled so far
        self.table_functions: set[str] = {n for n, t in (self.data.get("tables") or {}).items() if "die" not in t}
        new_check()  # (the did-you-mean hints of this document's problems share one budget)
        self.memo: dict[tuple[str, str], object] = {}  # what a check works out once for the document, by kind and name

    def where(self, path: P, key: bool = False) -> Location:
        return self.doc.where(path, key=key)

    def problem(self, error: RulesError) -> None:
        self.problems.append(error)

    def formula(self, value: Any, path: P, names: Collection[str], functions: Collection[str] | None = None) -> Any:
        """A compiled formula, or None after recording the problem (the compile then fails)."""
        text = ("True" if value else "False") if isinstance(value, bool) else str(value)
        where = self.where(path)
        try:  # a name whose definition failed counts as known here, so only other mistakes are reported
            return compile_formula(text, names=Either(names, self.broken),
                                   functions=self.table_functions if functions is None else functions, where=where)
        except RulesError as err:
            self.problem(err.located(where))
            return None

    def constant(self, text: str, path: P) -> object:
        """A whole number written as a formula of constants, evaluated once at load (defaults and bounds)."""
        named = self.constants.get(text)  # one constant's name, the most common bound: no formula needed
        if type(named) is int and text.isidentifier() and text.lower() not in ("true", "false"):
            return named
        f = self.formula(text, path, self.constants.keys(), functions=())
        if f is None or f.names & self.broken:
            return None
        try:
            value = f.evaluate(self.constants, {})
        except RulesError as err:
            self.problem(err.located(self.where(path)))
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self.problem(SchemaViolation(f"'{text}' gives {value!r}, not a whole number", self.where(path)))
            return None
        return value

    def number(self, spec: Spec, key: str, path: P) -> Any:
        """spec[key]: a number as written, or a formula of constants evaluated (None when absent)."""
        value = spec.get(key)
        return self.constant(value, path + (key,)) if isinstance(value, str) else value

    def dice_expr(self, value: Any, path: P, scope: Scope | None) -> Any:
        """A parsed dice expression with its names checked, or None after recording the problem."""
        where = self.where(path)
        try:
            expr = dice.parse(expand_counts(str(value), self.named_dice))
        except RulesError as err:
            col = err.where.col if err.where and err.where.line else 1
            err.where = where.shifted(col - 1)
            self.problem(err)
            return None
        if scope is not None:
            known = scope.formulas | scope.dice_only
            used: set[str] = set()
            todo = list(expr.names)
            while todo:
                name = todo.pop()
                if name not in used:
                    used.add(name)
                    inner = self.named_dice.get(name)
                    if inner is not None and name not in scope.formulas:
                        todo.extend(inner.names)
            for name in sorted(used - known):
                self.problem(UnknownName(f"unknown name '{name}' in dice expression '{value}'", where,
                                         suggest(name, sorted(known)), name=name))
            for problem, hint in sides_of_named(expr.tree, self.named_dice, scope.formulas):
                self.problem(SchemaViolation(problem, where, hint))
        return expr


_NONE: Mapping[str, Any] = MappingProxyType({})


@record
class Sections:
    """What the sections compiled before the procedures give them."""

    constants: Mapping[str, object]
    dice: Mapping[str, dice.DiceExpr]
    traits: Mapping[str, Trait]
    derived: Mapping[str, Derived]
    sheet: SheetSpec | None
    tables: Mapping[str, Any]  # as written: a step checks the rows it may match
    procedures: Mapping[str, Any]  # as written: a call checks what its callee gives
    effects: Mapping[str, Any] = _NONE  # name -> ruleset.effects.Effect
    takes: Mapping[str, tuple[Any, ...]] = _NONE  # procedure -> the effects whose flag it takes (effects.takers)


StepCompiler = Callable[[CompileContext, Spec, P, Scope, "ProcContext"], StepSpec]


class ProcContext:
    """The procedure a step is compiled in, and the names its steps bind."""

    __slots__ = ("after_step", "bound", "declared", "fresh", "kinds", "name", "named", "outcomes", "sections", "sheet",
                 "sheet_writable", "writable")

    def __init__(self, name: str, outcomes: tuple[str, ...], sections: Sections,
                 kinds: Kinds, sheet: SheetSpec | None, writable: set[str],
                 sheet_writable: frozenset[str]) -> None:
        self.name = name
        self.outcomes = outcomes
        self.declared = frozenset(outcomes)  # (a set: a table's rows look their outcomes up in it)
        self.sections = sections
        self.kinds = kinds  # step key -> its kind, in the order keys are tried
        self.sheet = sheet  # the ruleset's sheet when the procedure works on one
        self.writable = writable  # names `update` may change
        self.sheet_writable = sheet_writable  # sheet names, which only sheet steps change
        self.bound: set[str] = set()  # every name some step binds
        self.fresh: list[str] = []  # the names the step being compiled binds
        # the steps that follow a step with no steps of its own, given it as written and the names it binds
        # (an effect adding to a value it sets): (compiler, step as written, path, scope, names) -> steps
        self.after_step: Callable[[CompileContext, Spec, P, Scope, tuple[str, ...]], Steps] | None = None
        self.named: dict[str, P] = {}  # step name -> where the step that has it is


def outcome_declared(c: CompileContext, name: str | None, path: P, ctx: ProcContext) -> None:
    """A problem unless the outcome a step sets (when it sets one) is declared by its procedure."""
    if name is not None and name not in ctx.declared:
        c.problem(UnknownName(f"procedure '{ctx.name}' has no outcome '{name}'", c.where(path),
                              suggest(name, list(ctx.outcomes)) or "declare it under outcomes"))


def formula_at(c: CompileContext, value: object, path: P, scope: Scope) -> Any:
    """A step's formula compiled in the scope (None after a problem), reading no surely absent name."""
    f = c.formula(value, path, scope.formulas)
    scope.refuse_absent(c, f)
    return f


def not_sheet(c: CompileContext, name: str, path: P, ctx: ProcContext) -> None:
    """Sheet values change only through `update` (and the other sheet steps), never by rebinding."""
    if name in ctx.sheet_writable:
        c.problem(SchemaViolation(f"'{name}' is a sheet value; change it with an update step",
                                  c.where(path, key=True)))


def bind(scope: Scope, ctx: ProcContext, *names: str | None) -> None:
    """Names a step binds: defined from here on, and known to the procedure as bound."""
    for name in names:
        if name:
            scope.define(name)
            ctx.bound.add(name)
            ctx.fresh.append(name)


def compile_steps(c: CompileContext, specs: Sequence[Spec], path: P, scope: Scope, ctx: ProcContext) -> Steps:
    """Compile a list of steps; ``scope`` is updated with the names they define. A step with no steps of its
    own is followed by the steps `ctx.after_step` gives for it."""
    out: Steps = ()
    for i, spec in enumerate(specs):
        ctx.fresh = []
        out += (compile_step(c, spec, path + (i,), scope, ctx),)
        if ctx.after_step is not None and not any(key in spec for key in ("then", "else", "steps")):
            out += ctx.after_step(c, spec, path + (i,), scope, tuple(ctx.fresh))
    return out


def compile_step(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> Step[Any]:
    name = spec.get("name")  # the one key every kind has: a step's name, for overlays and listings alone
    if name is not None:
        first = ctx.named.setdefault(name, path)
        if first != path:
            at = c.where(first)
            c.problem(SchemaViolation(f"procedure '{ctx.name}' has two steps named '{name}'", c.where(path + ("name",)),
                                      f"the other is at {at}; step names are unique within a procedure"))
    for key, kind in ctx.kinds.items():
        if key in spec:
            where = c.where(path)
            if name is not None:  # a step is placed at its kind's key, which a name may come before
                at = c.where(path + (key,), key=True)
                where = Location(at.file, at.line, at.col, where.path, at.source)
            step = Step(key, kind.compile(c, spec, path, scope, ctx), where, name=name)
            if not kind.goes_on:  # a run may end or be diverted here: what a later step reads is no longer sure
                scope.weaken()
            return step
    raise UnknownStepKind(f"unknown step kind in {list(spec)}", c.where(path))


__all__ = [
    "CompileContext",
    "Formula",
    "P",
    "ProcContext",
    "Scope",
    "Sections",
    "Spec",
    "StepCompiler",
    "bind",
    "compile_steps",
    "formula_at",
    "not_sheet",
    "outcome_declared",
]
