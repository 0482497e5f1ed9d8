"""Turning a validated document into an immutable CompiledRuleset, with the checks a schema cannot make."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from types import MappingProxyType
from typing import Any, TypeVar

from interpreter.errors import Invalid, RulesError, SchemaViolation, UnknownName
from interpreter.hints import suggest
from interpreter.load.document import Document
from interpreter.record import replace
from interpreter.ruleset.context import CompileContext, P, ProcContext, Scope, Sections, compile_steps
from interpreter.ruleset.effect_steps import effect_params, switches, value_adds
from interpreter.ruleset.effects import compile_effects, takers
from interpreter.ruleset.entries import selected_traits
from interpreter.ruleset.kind import Kinds
from interpreter.ruleset.lazy import Procedures
from interpreter.ruleset.liveness import with_liveness
from interpreter.ruleset.model import (
    CompiledProcedure,
    CompiledRuleset,
    Derived,
    Example,
    Note,
    Param,
    Table,
    Trait,
)
from interpreter.ruleset.samples import compile_samples
from interpreter.ruleset.sheet_links import acts_on_final, restated
from interpreter.ruleset.sheet_section import compile_sheet, writable_names
from interpreter.ruleset.size import check_size
from interpreter.ruleset.specs import Call, walk
from interpreter.ruleset.tables import compile_table

T = TypeVar("T")
RESERVED = {"outcome", "has_sheet", "true", "false", "True", "False"}


class Compiler(CompileContext):
    """Compiles one document, collecting every problem instead of stopping at the first."""

    def __init__(self, doc: Document, kinds: Kinds):
        super().__init__(doc)
        self.kinds = kinds  # step key -> its kind, in the order keys are tried

    # -- sections ------------------------------------------------------------------------
    def compile(self, fresh: Callable[[], CompiledRuleset] | None = None) -> CompiledRuleset:
        """The compiled ruleset; raise Invalid with every problem found.

        ``fresh`` is given when these exact bytes compiled without a problem before: the
        procedures and tables are then compiled one by one when first asked for (see ``lazy``),
        and one that does not compile after all (a cache record that lied) is taken from
        ``fresh()``, which checks and compiles the ruleset again for real.
        """
        data = self.data
        constants = self.constants
        for name, value in (data.get("constants") or {}).items():
            f = self.formula(value, ("constants", name), constants.keys(), functions=())
            if f is None or f.names & self.broken:
                self.broken.add(name)
            else:
                try:
                    constants[name] = f.evaluate(constants, {})
                except RulesError as err:
                    self.problem(err.located(self.where(("constants", name))))
                    self.broken.add(name)
        base = set(constants)
        named_dice = self.named_dice
        for name, value in (data.get("dice") or {}).items():
            expr = self.dice_expr(value, ("dice", name), None)
            if expr is not None:
                named_dice[name] = expr
            else:
                self.broken.add(name)
        table_specs = data.get("tables") or {}
        tables: Mapping[str, Table]
        if fresh is None:
            tables = MappingProxyType({name: compile_table(self, name, spec, base, constants)
                                       for name, spec in table_specs.items()})
        else:  # (checked when these bytes compiled before)
            tables = Procedures(tuple(table_specs), lambda name: self.trusted(
                lambda: compile_table(self, name, table_specs[name], base, constants, check=False),
                lambda: fresh().tables[name]))
        traits = {name: Trait(name, spec.get("label", name), spec.get("group", ""),
                              *(self.number(spec, key, ("traits", name)) for key in ("min", "max", "default")))
                  for name, spec in (data.get("traits") or {}).items()}
        for name, trait in traits.items():
            self.ordered(trait.minimum, trait.maximum, ("traits", name, "min"))
        derived = self.derived(base | set(traits))
        sheet = compile_sheet(self, data["sheet"], base, traits, derived) if "sheet" in data else None
        raw_procedures = data.get("procedures") or {}
        effects = compile_effects(self, data.get("effects") or {}, raw_procedures, named_dice, traits)
        sections = Sections(MappingProxyType(constants), MappingProxyType(named_dice), MappingProxyType(traits),
                            MappingProxyType(derived), sheet, MappingProxyType(data.get("tables") or {}),
                            MappingProxyType(raw_procedures), MappingProxyType(effects),
                            MappingProxyType(takers(effects, raw_procedures, self.kinds)))
        specs = data.get("procedures") or {}
        procedures: Mapping[str, CompiledProcedure]
        if fresh is not None:
            procedures = self.lazy(specs, base, sections, fresh, tables)
        else:
            compiled = {name: self.procedure(name, spec, base, sections) for name, spec in specs.items()}
            self.check_calls(compiled)
            if not self.problems:
                compiled = {name: with_liveness(proc, named_dice, tables, compiled, self.kinds)
                            for name, proc in compiled.items()}
            procedures = MappingProxyType(compiled)
        notes = {name: Note(name, spec.get("title", name), spec.get("text", ""),
                            MappingProxyType(dict(spec.get("data") or {})),
                            tuple(spec.get("refs") or ())) for name, spec in (data.get("notes") or {}).items()}
        examples = tuple(self.example(i, spec, None if fresh else procedures)
                         for i, spec in enumerate(data.get("examples") or []))
        # a name whose own definition failed was reported there; its uses would only repeat it, wrongly
        self.problems = [p for p in self.problems if not (isinstance(p, UnknownName) and p.name is not None and (
            p.name in self.broken or p.name.startswith(tuple(self.broken_prefixes))))]
        if self.problems:
            raise Invalid(self.problems)
        return CompiledRuleset(
            id=data["ruleset"], title=data.get("title", ""), description=data.get("description", ""),
            file=self.doc.file, constants=MappingProxyType(constants), dice=MappingProxyType(named_dice),
            traits=MappingProxyType(traits), derived=MappingProxyType(derived), tables=tables,
            procedures=procedures, notes=MappingProxyType(notes), examples=examples,
            extra=MappingProxyType({k: v for k, v in data.items() if k not in _KNOWN}), sheet=sheet,
            effects=MappingProxyType(effects), kinds=self.kinds,
        )

    def lazy(self, specs: Mapping[str, Any], base: set[str], sections: Sections,
             fresh: Callable[[], CompiledRuleset], tables: Mapping[str, Any]) -> Procedures[CompiledProcedure]:
        """The procedures, each compiled when first read (the checks across procedures passed before)."""
        bare = Procedures(tuple(specs), lambda name: self.procedure(name, specs[name], base, sections))

        def compiled(name: str) -> CompiledProcedure:
            check_size(name, specs, self.where, self.kinds, sections.takes)  # (refused as it is: compiling it afresh takes longer)
            return self.trusted(lambda: with_liveness(bare[name], sections.dice, tables, bare, self.kinds),
                                lambda: fresh().procedures[name])

        return Procedures(tuple(specs), compiled)

    def trusted(self, make: Callable[[], T], fresh: Callable[[], T]) -> T:
        """What ``make`` compiles from bytes that compiled before, or, should it fail after all, ``fresh``'s."""
        try:
            made: T | None = make()
        except RulesError:
            made = None
        except Exception:  # noqa: BLE001  (a shape the schema check would have refused)
            made = None
        return fresh() if made is None or self.problems else made

    def derived(self, base: set[str]) -> dict[str, Derived]:
        specs = self.data.get("derived") or {}
        sheet = self.data.get("sheet") or {}
        state = set(sheet.get("state") or {}) | {  # field flags are read from a sheet as its state values are
            flag for f in (sheet.get("fields") or {}).values() if isinstance(f, dict) for flag in f.get("flags") or {}}
        names = base | set(specs) | state
        out = {}
        for name, spec in specs.items():
            raw = spec["formula"] if isinstance(spec, dict) else spec
            label = spec.get("label", name) if isinstance(spec, dict) else name
            refs = tuple(spec.get("refs") or ()) if isinstance(spec, dict) else ()
            path: P = ("derived", name, "formula") if isinstance(spec, dict) else ("derived", name)
            f = self.formula(raw, path, names)
            if f is None:
                self.broken.add(name)
            out[name] = Derived(name, label, f, refs)
        self.check_cycles(out)
        return {name: replace(d, state=_state_read(name, out, state, set())) for name, d in out.items()}

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

    def procedure(self, name: str, spec: dict[str, Any], base: set[str], sections: Sections) -> CompiledProcedure:
        path: P = ("procedures", name)
        check_size(name, self.data.get("procedures") or {}, self.where, self.kinds, sections.takes)
        outcomes = tuple(spec.get("outcomes") or {})
        values = tuple(spec.get("values") or {})
        params = tuple(self.param(pname, pspec, path + ("params", pname), sections.constants)
                       for pname, pspec in (spec.get("params") or {}).items())
        params += effect_params(sections.takes.get(name, ()), params)
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
        groups = sorted({t.group for t in sections.traits.values() if t.group})
        groups += [f.name for f in (sections.sheet.fields.values() if sections.sheet else ())
                   if f.kind == "list" and f.trait_groups]
        for p in params:
            if p.type in ("trait", "int"):
                formulas |= {f"{p.name}_in_{g}" for g in groups}
                formulas |= {f"{p.name}_is_{t}" for t in selected_traits(sections.effects)}
        uses_sheet = spec.get("sheet", "none") in ("required", "optional")
        sheet = sections.sheet if uses_sheet else None
        formulas.add("has_sheet")
        sheet_names: set[str] = set()  # the sheet names steps may change
        readable: set[str] = set()
        if uses_sheet and sheet is None:
            self.problem(SchemaViolation("this ruleset has no 'sheet' section for the procedure to use",
                                         self.where(path + ("sheet",))))
        if sheet is not None:
            readable = sheet.names(sections.traits, sections.derived)
            formulas |= readable
            sheet_names = writable_names(sheet, sections.traits)  # reading a derived name's shadow is harmless
            for o in outcomes:
                if o in sheet_names:
                    self.problem(SchemaViolation(f"outcome '{o}' has the name of a sheet value",
                                                 self.where(path + ("outcomes", o), key=True), "rename one of them"))
            for p in params:
                if p.name in sheet_names:
                    self.problem(SchemaViolation(f"parameter '{p.name}' has the name of a sheet value",
                                                 p.where, "rename one of them"))
        params = restated(self, params, spec.get("params") or {}, path, readable)
        writable = sheet_names | {p.name for p in params if p.type == "trait"}
        scope = Scope(formulas, set(sections.dice) | {p.name for p in params if p.type == "dice"})
        ctx = ProcContext(name, outcomes, sections, self.kinds, sheet, writable, frozenset(sheet_names))
        ctx.after_step = partial(value_adds, sections.takes.get(name, ()), spec, self.kinds)  # effects' adds to values
        steps = switches(self, sections.takes.get(name, ()), spec, scope, sheet is not None, self.kinds)
        steps += compile_steps(self, spec.get("steps") or [], path + ("steps",), scope, ctx)
        for v in values:
            if v not in ctx.bound and v not in {p.name for p in params} and v not in ctx.writable | readable:
                self.problem(SchemaViolation(f"value '{v}' is never set by the steps of '{name}'",
                                             self.where(path + ("values", v), key=True)))
        return CompiledProcedure(name, spec.get("summary", ""), params, outcomes,
                         MappingProxyType(dict(spec.get("outcomes") or {})), values,
                         MappingProxyType(_value_help(spec)), steps, tuple(spec.get("refs") or ()),
                         self.where(path, key=True), spec.get("sheet", "none"),
                         compile_samples(self, spec.get("samples") or [], path + ("samples",), params),
                         value_words=self.value_words(spec, path), tags=tuple(spec.get("tags") or ()),
                         effects=tuple(e.name for e in sections.takes.get(name, ())),
                         events=tuple((e, self.formula(f, path + ("events", e), {*values, *base, *outcomes, "outcome",
                                                                                   *(p.name for p in params if p.type != "dice")}))
                                      for e, f in (spec.get("events") or {}).items()),
                         acts_on_final=acts_on_final(self, spec, path, sheet))

    def value_words(self, spec: dict[str, Any], path: P) -> Mapping[str, Mapping[int, str]]:
        """The words declared for values: number -> word, each number named once."""
        out: dict[str, Mapping[int, str]] = {}
        for name, entry in (spec.get("values") or {}).items():
            if isinstance(entry, dict) and entry.get("words"):
                words: dict[int, str] = {}
                for word, number in entry["words"].items():
                    if number in words:
                        self.problem(SchemaViolation(
                            f"'{word}' and '{words[number]}' both stand for {number}",
                            self.where(path + ("values", name, "words", word), key=True), "give each word its own number"))
                    words[number] = word
                out[name] = MappingProxyType(words)
        return MappingProxyType(out)

    def param(self, name: str, spec: dict[str, Any], path: P, constants: Mapping[str, Any]) -> Param:
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
                default = self.constant(default, path + ("default",))
            else:
                self.problem(SchemaViolation(
                    f"default '{default}' is not one of the options of '{name}'" if options or kind == "choice"
                    else f"default '{default}' is not " + {"flag": "true or false", "int": "a whole number"}.get(
                        kind, f"allowed for a {kind} parameter"),
                    self.where(path + ("default",)), suggest(default, list(options)) if options else None))
        bounds = [self.number(spec, k, path) for k in ("min", "max")]
        self.ordered(bounds[0], bounds[1], path + ("min",))
        one_of = tuple(spec["one_of"]) if "one_of" in spec else None
        if one_of is not None and kind != "int":
            self.problem(SchemaViolation(f"parameter '{name}' is a {kind}; only an int parameter takes one_of",
                                         self.where(path + ("one_of",), key=True)))
        elif one_of is not None and isinstance(default, int) and default not in one_of:
            self.problem(SchemaViolation(f"default {default} of '{name}' is not one of {list(one_of)}",
                                         self.where(path + ("default",)), "give a default from one_of"))
        return Param(name, kind, default, not has_default, bounds[0], bounds[1], MappingProxyType(options),
                     spec.get("help", ""), self.where(path, key=True), one_of)

    def ordered(self, least: Any, most: Any, path: tuple[Any, ...]) -> None:
        """A least value above the most one allows nothing: a problem at the least."""
        if isinstance(least, int) and isinstance(most, int) and least > most:
            self.problem(SchemaViolation(f"min {least} is above max {most}: no value would be allowed",
                                         self.where(path)))

    def check_calls(self, procedures: dict[str, CompiledProcedure]) -> None:
        """Calls must name existing procedures and parameters and must not recurse."""
        graph: dict[str, set[str]] = {}
        for proc in procedures.values():
            graph[proc.name] = set()
            for step in walk(proc.steps):
                call = step.spec
                if not isinstance(call, Call):
                    continue
                callee = call.procedure
                target = procedures.get(callee)
                if target is None:
                    self.problem(UnknownName(f"unknown procedure '{callee}'", call.call_where,
                                             suggest(callee, list(procedures))))
                    continue
                graph[proc.name].add(callee)
                given = {a.name for a in call.args}
                known = {p.name for p in target.params}
                for arg in call.args:
                    if arg.name not in known:
                        self.problem(UnknownName(f"procedure '{callee}' has no parameter '{arg.name}'", arg.where,
                                                 suggest(arg.name, sorted(known))))
                for p in target.params:
                    if p.required and p.name not in given:
                        self.problem(SchemaViolation(
                            f"the call of '{callee}' does not give parameter '{p.name}', which has no default",
                            call.call_where, "add it under with"))
        for start, callees in graph.items():
            if _reaches(graph, start, start, set()):
                self.problem(SchemaViolation(
                    f"procedure '{start}' calls itself"
                    + ("" if start in callees else " through other procedures"),
                    procedures[start].where, "a procedure may not call itself"))

    def example(self, index: int, spec: dict[str, Any], procedures: Mapping[str, CompiledProcedure] | None) -> Example:
        """An example; its procedure and outcome are checked unless ``procedures`` is None (checked before)."""
        path: P = ("examples", index)
        proc = procedures.get(spec["procedure"]) if procedures is not None else None
        if proc is None and procedures is not None:
            self.problem(UnknownName(f"unknown procedure '{spec['procedure']}'", self.where(path + ("procedure",)),
                                     suggest(spec["procedure"], list(procedures))))
        expect = spec.get("expect") or {}
        if proc is not None and expect.get("outcome") is not None and expect["outcome"] not in proc.outcomes:
            self.problem(UnknownName(f"procedure '{proc.name}' has no outcome '{expect['outcome']}'",
                                     self.where(path + ("expect", "outcome")), suggest(expect["outcome"], list(proc.outcomes))))
        return Example(spec["name"], spec["procedure"], MappingProxyType(dict(spec.get("params") or {})),
                       tuple(spec["dice"]), expect.get("outcome"), MappingProxyType(dict(expect.get("values") or {})), tuple(spec.get("refs") or ()),
                       self.where(path))


def _state_read(name: str, derived: Mapping[str, Derived], state: set[str], seen: set[str]) -> frozenset[str]:
    """The sheet state values a derived value reads, itself or through the derived values it reads."""
    seen.add(name)
    formula = derived[name].formula
    names = formula.names if formula is not None else frozenset()
    out = set(names & state)
    for dep in names:
        if dep in derived and dep not in seen:
            out |= _state_read(dep, derived, state, seen)
    return frozenset(out)


_KNOWN = {"ruleset", "title", "description", "source", "constants", "dice", "traits", "derived", "tables",
          "procedures", "notes", "examples", "sheet", "effects"}


def _reaches(graph: dict[str, set[str]], node: str, goal: str, seen: set[str]) -> bool:
    for nxt in graph.get(node, ()):
        if nxt == goal:
            return True
        if nxt not in seen:
            seen.add(nxt)
            if _reaches(graph, nxt, goal, seen):
                return True
    return False


def _value_help(spec: dict[str, Any]) -> dict[str, str]:
    """Each value's description (from a plain description or the `help` of an object)."""
    return {name: entry.get("help", "") if isinstance(entry, dict) else entry
            for name, entry in (spec.get("values") or {}).items()}

