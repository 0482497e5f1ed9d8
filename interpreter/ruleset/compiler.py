"""Turning a validated document into an immutable Ruleset, with the checks a schema cannot make."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from types import MappingProxyType
from typing import Any, cast

from interpreter.dice import expr as dice
from interpreter.errors import Invalid, Location, RulesError, SchemaViolation, UnknownName
from interpreter.formula.compile import compile_formula
from interpreter.hints import suggest
from interpreter.load.yaml_loader import Document
from interpreter.ruleset.model import (
    Derived,
    Example,
    Note,
    Param,
    Procedure,
    Row,
    Ruleset,
    SheetSpec,
    Step,
    Table,
    Trait,
)
from interpreter.sheet import steps as sheet_steps  # noqa: F401  (importing it registers the sheet step kinds)

P = tuple[Any, ...]
RESERVED = {"outcome", "has_sheet", "true", "false", "True", "False"}


class Scope:
    """The names visible at one point of a procedure, split by what they may be used for."""

    def __init__(self, formulas: set[str], dice_only: set[str]):
        self.formulas = set(formulas)
        self.dice_only = set(dice_only)

    def copy(self) -> Scope:
        return Scope(self.formulas, self.dice_only)

    def define(self, *names: str) -> None:
        for name in names:
            if name:
                self.formulas.add(name)
                self.dice_only.discard(name)


class Compiler:
    """Compiles one document, collecting every problem instead of stopping at the first."""

    def __init__(self, doc: Document):
        self.doc = doc
        self.data: dict[str, Any] = doc.data
        self.problems: list[RulesError] = []
        self.named_dice: dict[str, dice.DiceExpr] = {}
        self.assigned: set[str] = set()  # every name some step binds, in any procedure
        self.table_functions: set[str] = {n for n, t in (self.data.get("tables") or {}).items() if "die" not in t}

    # -- helpers -------------------------------------------------------------------------
    def where(self, path: P, key: bool = False) -> Location:
        return self.doc.where(path, key=key)

    def problem(self, error: RulesError) -> None:
        self.problems.append(error)

    def formula(self, value: Any, path: P, names: Iterable[str], functions: Collection[str] | None = None) -> Any:
        """A compiled formula, or None after recording the problem."""
        text = str(value).lower() if isinstance(value, bool) else str(value)
        if isinstance(value, bool):
            text = "True" if value else "False"
        where = self.where(path)
        try:
            return compile_formula(text, names=set(names),
                                   functions=self.table_functions if functions is None else functions, where=where)
        except RulesError as err:
            self.problem(err.located(where))
            return None

    def dice_expr(self, value: Any, path: P, scope: Scope | None) -> Any:
        """A parsed dice expression with its names checked, or None after recording the problem."""
        where = self.where(path)
        try:
            expr = dice.parse(str(value))
        except RulesError as err:
            inner: int | dice.DiceExpr | None  # a column here, a named dice expression below
            inner = err.where.col if err.where and err.where.line else 1
            err.where = where.shifted(inner - 1)
            self.problem(err)
            return None
        if scope is not None:
            known = scope.formulas | scope.dice_only
            used, todo = set(), list(expr.names)
            while todo:
                name = todo.pop()
                if name not in used:
                    used.add(name)
                    inner = self.named_dice.get(name)
                    if inner is not None and name not in scope.formulas:
                        todo.extend(inner.names)
            for name in sorted(used - known):
                self.problem(UnknownName(f"unknown name '{name}' in dice expression '{value}'", where,
                                         suggest(name, sorted(known))))
        return expr

    # -- sections ------------------------------------------------------------------------
    def compile(self) -> Ruleset:
        data = self.data
        constants: dict[str, Any] = {}
        for name, value in (data.get("constants") or {}).items():
            f = self.formula(value, ("constants", name), constants.keys(), functions=())
            if f is not None:
                try:
                    constants[name] = f.evaluate(constants, {})
                except RulesError as err:
                    self.problem(err.located(self.where(("constants", name))))
        base = set(constants)
        self.constants = constants
        named_dice = self.named_dice
        for name, value in (data.get("dice") or {}).items():
            expr = self.dice_expr(value, ("dice", name), None)
            if expr is not None:
                named_dice[name] = expr
        tables = {name: self.table(name, spec, base) for name, spec in (data.get("tables") or {}).items()}
        traits = {name: Trait(name, spec.get("label", name), spec.get("group", ""), spec.get("min"), spec.get("max"),
                              spec.get("default")) for name, spec in (data.get("traits") or {}).items()}
        derived = self.derived(base | set(traits))
        self.sheet: SheetSpec | None = None
        if "sheet" in data:
            from interpreter.sheet.compile import compile_sheet
            self.sheet = compile_sheet(self, data["sheet"], base, traits, derived)
        self.traits, self.derived_values = traits, derived
        procedures = {}
        for name, spec in (data.get("procedures") or {}).items():
            procedures[name] = self.procedure(name, spec, base, named_dice)
        self.check_calls(procedures)
        static = (set(constants) | set(named_dice) | {o for p in procedures.values() for o in p.outcomes}) - (
            self.assigned | {prm.name for p in procedures.values() for prm in p.params} | RESERVED)
        notes = {name: Note(name, spec.get("title", name), spec.get("text", ""), spec.get("data") or {},
                            tuple(spec.get("refs") or ())) for name, spec in (data.get("notes") or {}).items()}
        examples = tuple(self.example(i, spec, procedures) for i, spec in enumerate(data.get("examples") or []))
        if self.problems:
            raise Invalid(self.problems)
        return Ruleset(
            id=data["ruleset"], title=data.get("title", ""), description=data.get("description", ""),
            file=self.doc.file, constants=MappingProxyType(constants), dice=MappingProxyType(named_dice),
            traits=MappingProxyType(traits), derived=MappingProxyType(derived), tables=MappingProxyType(tables),
            procedures=MappingProxyType(procedures), notes=MappingProxyType(notes), examples=examples,
            extra=MappingProxyType({k: v for k, v in data.items() if k not in _KNOWN}), sheet=self.sheet,
            static=frozenset(static))

    def table(self, name: str, spec: dict[str, Any], base: set[str]) -> Table:
        path: P = ("tables", name)
        die = self.dice_expr(spec["die"], path + ("die",), Scope(base, set(self.named_dice))) if "die" in spec else None
        rows = tuple(self.row(r, path + ("rows", i), base) for i, r in enumerate(spec.get("rows") or []))
        default = self.row(spec["default"], path + ("default",), base) if "default" in spec else None
        table = Table(name, die, rows, default, spec.get("summary", ""), tuple(spec.get("refs") or ()),
                      self.where(path, key=True))
        self.check_rows(table, path)
        return table

    def row(self, spec: dict[str, Any], path: P, base: set[str]) -> Row:
        on = spec.get("on", 0)
        low, high = (on, on) if isinstance(on, int) else (on[0], on[1])
        if low > high:
            self.problem(SchemaViolation(f"row range [{low}, {high}] is empty: the low end is above the high end",
                                         self.where(path + ("on",))))
        value = self.formula(spec["value"], path + ("value",), base, functions=()) if "value" in spec else None
        values = []
        for vname, vexpr in (spec.get("values") or {}).items():
            expr = self.dice_expr(vexpr, path + ("values", vname), None)
            if expr is not None:
                values.append((vname, expr))
        label = spec.get("text") or spec.get("outcome") or (str(spec["value"]) if "value" in spec else "")
        return Row(low, high, value, spec.get("outcome"), tuple(values), label, self.where(path))

    def check_rows(self, table: Table, path: P) -> None:
        """Rows may not overlap; a die table must cover every face exactly once."""
        covered: dict[int, int] = {}
        for i, row in enumerate(table.rows):
            if row.high - row.low > 100_000:
                self.problem(SchemaViolation("row range is wider than 100000 keys", row.where))
                return
            for key in range(row.low, row.high + 1):
                if key in covered:
                    self.problem(SchemaViolation(
                        f"table '{table.name}': row {i + 1} overlaps row {covered[key] + 1}",
                        self.where(path + ("rows", i, "on")), "each result may be covered by one row only"))
                else:
                    covered[key] = i
        if table.die is None:
            return
        try:
            faces = {v for v, _ in table.die.distribution({**self.constants, **self.named_dice}).probs}
        except RulesError as err:
            self.problem(err.located(self.where(path + ("die",))))
            return
        missing = sorted(faces - set(covered))
        extra = sorted(set(covered) - faces)
        if missing:
            self.problem(SchemaViolation(
                f"table '{table.name}' has no row for {_listing(missing)}, which {table.die.text} can roll",
                self.where(path + ("rows",), key=True), "add a row for each result"))
        if extra:
            self.problem(SchemaViolation(
                f"table '{table.name}' has rows for {_listing(extra)}, which {table.die.text} cannot roll",
                self.where(path + ("rows", covered[extra[0]], "on"))))

    def derived(self, base: set[str]) -> dict[str, Derived]:
        specs = self.data.get("derived") or {}
        names = base | set(specs)
        out = {}
        for name, spec in specs.items():
            raw = spec["formula"] if isinstance(spec, dict) else spec
            label = spec.get("label", name) if isinstance(spec, dict) else name
            refs = tuple(spec.get("refs") or ()) if isinstance(spec, dict) else ()
            path: P = ("derived", name, "formula") if isinstance(spec, dict) else ("derived", name)
            f = self.formula(raw, path, names)
            out[name] = Derived(name, label, f, refs)
        self.check_cycles(out)
        return out

    def check_cycles(self, derived: dict[str, Derived]) -> None:
        """Derived values may not depend on themselves; name the whole cycle when they do."""
        state: dict[str, int] = {}

        def visit(name: str, trail: list[str]) -> None:
            state[name] = 1
            formula = derived[name].formula
            for dep in sorted(formula.names if formula is not None else ()):
                if dep not in derived:
                    continue
                if state.get(dep) == 1:
                    cycle = trail[trail.index(dep):] + [dep] if dep in trail else [name, dep]
                    spec = self.data["derived"][cycle[0]]
                    path: P = ("derived", cycle[0]) + (("formula",) if isinstance(spec, dict) else ())
                    self.problem(SchemaViolation(
                        f"derived value '{dep}' uses itself" if len(cycle) == 2
                        else "derived values form a cycle: " + " -> ".join(cycle), self.where(path)))
                elif state.get(dep) is None:
                    visit(dep, trail + [dep])
            state[name] = 2

        for name in derived:
            if name not in state:
                visit(name, [name])

    def procedure(self, name: str, spec: dict[str, Any], base: set[str], named_dice: dict[str, Any]) -> Procedure:
        path: P = ("procedures", name)
        outcomes = tuple(spec.get("outcomes") or {})
        values = tuple(spec.get("values") or {})
        params = tuple(self.param(pname, pspec, path + ("params", pname))
                       for pname, pspec in (spec.get("params") or {}).items())
        for p in params:
            if p.name in outcomes or p.name in RESERVED:
                self.problem(SchemaViolation(
                    f"parameter '{p.name}' has the name of " + (f"an outcome of '{name}'" if p.name in outcomes
                                                               else "a reserved word"), p.where, "rename it"))
        for o in outcomes:
            if o in RESERVED or o in base:
                self.problem(SchemaViolation(
                    f"outcome '{o}' has the name of " + ("a constant" if o in base else "a reserved word"),
                    self.where(path + ("outcomes", o), key=True), "rename one of them" if o in base else "rename it"))
        formulas = base | set(outcomes) | {"outcome"} | {p.name for p in params if p.type != "dice"}
        groups = sorted({t.group for t in self.traits.values() if t.group})
        for p in params:
            if p.type == "trait":
                formulas |= {f"{p.name}_in_{g}" for g in groups}
        uses_sheet = spec.get("sheet", "none") in ("required", "optional")
        formulas.add("has_sheet")
        writable: set[str] = set()
        if uses_sheet:
            if self.sheet is None:
                self.problem(SchemaViolation("this ruleset has no 'sheet' section for the procedure to use",
                                             self.where(path + ("sheet",))))
            else:
                formulas |= self.sheet.names(self.traits, self.derived_values)
                writable = _writable(self.sheet, self.traits)
        sheet_writable = set(writable)
        writable |= {p.name for p in params if p.type == "trait"}
        if uses_sheet and self.sheet is not None:
            sheet_names = _writable(self.sheet, self.traits)  # reading a derived name's shadow is harmless
            for o in outcomes:
                if o in sheet_names:
                    self.problem(SchemaViolation(f"outcome '{o}' has the name of a sheet value",
                                                 self.where(path + ("outcomes", o), key=True), "rename one of them"))
            for p in params:
                if p.name in sheet_names:
                    self.problem(SchemaViolation(f"parameter '{p.name}' has the name of a sheet value",
                                                 p.where, "rename one of them"))
        scope = Scope(formulas, set(named_dice) | {p.name for p in params if p.type == "dice"})
        ctx = _ProcContext(name, outcomes)
        ctx.writable = writable
        ctx.sheet_writable = sheet_writable
        ctx.sheet = self.sheet if uses_sheet else None
        steps = self.steps(spec.get("steps") or [], path + ("steps",), scope, ctx)
        self.assigned |= ctx.bound | ctx.writable
        for v in values:
            # ctx.sheet is self.sheet here, so it is not None either.
            readable = (cast(SheetSpec, self.sheet).names(self.traits, self.derived_values)
                        if ctx.sheet is not None else set())
            if v not in ctx.bound and v not in {p.name for p in params} and v not in writable | readable:
                self.problem(SchemaViolation(f"value '{v}' is never set by the steps of '{name}'",
                                             self.where(path + ("values", v), key=True)))
        return Procedure(name, spec.get("summary", ""), params, outcomes, dict(spec.get("outcomes") or {}), values,
                         dict(spec.get("values") or {}), steps, tuple(spec.get("refs") or ()),
                         self.where(path, key=True), spec.get("sheet", "none"))

    def param(self, name: str, spec: dict[str, Any], path: P) -> Param:
        kind = spec["type"]
        options = dict(spec.get("options") or {})
        if kind == "choice" and not options:
            self.problem(SchemaViolation(f"parameter '{name}' is a choice but has no options",
                                         self.where(path, key=True), "list its words under options"))
        has_default = "default" in spec or kind == "flag"
        default = spec.get("default", False if kind == "flag" else None)
        if isinstance(default, str):
            if default in options:
                default = options[default]
            elif kind == "dice":
                default = self.dice_expr(default, path + ("default",), None)
            elif kind == "int" and not options:
                default = self._constant(default, path + ("default",))
            else:
                self.problem(SchemaViolation(
                    f"default '{default}' is not one of the options of '{name}'" if options or kind == "choice"
                    else f"default '{default}' is not " + {"flag": "true or false", "int": "a whole number"}.get(
                        kind, f"allowed for a {kind} parameter"),
                    self.where(path + ("default",)), suggest(default, list(options)) if options else None))
        bounds = [self._constant(spec[k], path + (k,)) if isinstance(spec.get(k), str) else spec.get(k)
                  for k in ("min", "max")]
        return Param(name, kind, default, not has_default, bounds[0], bounds[1], options,
                     spec.get("help", ""), self.where(path, key=True))

    def _constant(self, text: str, path: P) -> Any:
        """A formula of constants, evaluated once at load (parameter defaults and bounds)."""
        f = self.formula(text, path, self.constants.keys(), functions=())
        if f is None:
            return None
        try:
            return f.evaluate(self.constants, {})
        except RulesError as err:
            self.problem(err.located(self.where(path)))
            return None

    def steps(self, specs: list[Any], path: P, scope: Scope, ctx: _ProcContext) -> tuple[Step, ...]:
        from interpreter.ruleset.steps import compile_step
        return tuple(compile_step(self, spec, path + (i,), scope, ctx) for i, spec in enumerate(specs))

    def check_calls(self, procedures: dict[str, Procedure]) -> None:
        """Calls must name existing procedures and parameters and must not recurse."""
        graph: dict[str, set[str]] = {}
        for proc in procedures.values():
            graph[proc.name] = set()
            for step, _ in _walk(proc.steps):
                if step.kind == "call":
                    callee = step.spec["procedure"]
                    target = procedures.get(callee)
                    if target is None:
                        self.problem(UnknownName(f"unknown procedure '{callee}'",
                                                 step.spec.get("call_where", step.where),
                                                 suggest(callee, list(procedures))))
                        continue
                    graph[proc.name].add(callee)
                    given = {n for n, _, _ in step.spec["with"]}
                    known = {p.name for p in target.params}
                    for n, _, where in step.spec["with"]:
                        if n in given - known:
                            self.problem(UnknownName(f"procedure '{callee}' has no parameter '{n}'", where,
                                                     suggest(n, sorted(known))))
                    for p in target.params:
                        if p.required and p.name not in given:
                            self.problem(SchemaViolation(
                                f"the call of '{callee}' does not give parameter '{p.name}', which has no default",
                                step.spec.get("call_where", step.where), "add it under with"))
        for start in graph:
            if _reaches(graph, start, start, set()):
                self.problem(SchemaViolation(
                    f"procedure '{start}' calls itself"
                    + ("" if start in graph[start] else " through other procedures"),
                    procedures[start].where, "a procedure may not call itself"))

    def example(self, index: int, spec: dict[str, Any], procedures: dict[str, Procedure]) -> Example:
        path: P = ("examples", index)
        proc = procedures.get(spec["procedure"])
        if proc is None:
            self.problem(UnknownName(f"unknown procedure '{spec['procedure']}'", self.where(path + ("procedure",)),
                                     suggest(spec["procedure"], list(procedures))))
        expect = spec.get("expect") or {}
        if proc is not None and expect.get("outcome") is not None and expect["outcome"] not in proc.outcomes:
            self.problem(UnknownName(f"procedure '{proc.name}' has no outcome '{expect['outcome']}'",
                                     self.where(path + ("expect", "outcome")), suggest(expect["outcome"], list(proc.outcomes))))
        return Example(spec["name"], spec["procedure"], dict(spec.get("params") or {}), tuple(spec["dice"]),
                       expect.get("outcome"), dict(expect.get("values") or {}), tuple(spec.get("refs") or ()),
                       self.where(path))


class _ProcContext:
    """What the step compiler needs to know about the procedure it is in."""

    def __init__(self, name: str, outcomes: tuple[str, ...]):
        self.name = name
        self.outcomes = outcomes
        self.bound: set[str] = set()
        self.writable: set[str] = set()
        self.sheet_writable: set[str] = set()
        self.sheet: Any = None


def _writable(sheet: Any, traits: dict[str, Any]) -> set[str]:
    names = set(traits) | set(sheet.state) | set(sheet.resources)
    for track in sheet.tracks.values():
        if track.kind == "current_max":
            names |= {f"{track.name}_current", f"{track.name}_max"}
    return names


_KNOWN = {"ruleset", "title", "description", "source", "constants", "dice", "traits", "derived", "tables",
          "procedures", "notes", "examples", "sheet"}


def _walk(steps: tuple[Step, ...]) -> Iterable[tuple[Step, int]]:
    for step in steps:
        yield step, 0
        for key in ("then", "else", "steps"):
            inner = step.spec.get(key)
            if inner:
                yield from _walk(inner)


def _reaches(graph: dict[str, set[str]], node: str, goal: str, seen: set[str]) -> bool:
    for nxt in graph.get(node, ()):
        if nxt == goal:
            return True
        if nxt not in seen:
            seen.add(nxt)
            if _reaches(graph, nxt, goal, seen):
                return True
    return False


def _listing(numbers: list[int]) -> str:
    text = ", ".join(str(n) for n in numbers[:8])
    if len(numbers) > 8:
        text += f" and {len(numbers) - 8} more"
    return text
