"""Compiling a ruleset's `sheet:` section: fields, state values, tracks, resources, creation rules."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from interpreter.errors import SchemaViolation, UnknownName
from interpreter.hints import suggest
from interpreter.load.document import Path
from interpreter.ruleset.context import CompileContext
from interpreter.ruleset.model import (
    CreationRule,
    Derived,
    FinalState,
    Resource,
    SheetField,
    SheetSpec,
    StateValue,
    Track,
    Trait,
    track_names,
)

P = Path


def compile_sheet(c: CompileContext, spec: dict[str, Any], base: set[str], traits: dict[str, Trait],
                  derived: dict[str, Derived]) -> SheetSpec:
    """The compiled sheet section; problems are recorded on the compiler."""
    root: P = ("sheet",)
    stats = base | set(traits) | set(derived)
    fields = {name: _field(c, name, f, root + ("fields", name), base, traits)
              for name, f in (spec.get("fields") or {}).items()}
    state = {name: _state(c, name, s, root + ("state", name), stats, derived)
             for name, s in (spec.get("state") or {}).items()}
    sized = stats | set(state) | {flag for f in fields.values() for flag in f.flags}  # what sizes and maxima read
    tracks = {name: _track(c, name, t, root + ("tracks", name), sized, state)
              for name, t in (spec.get("tracks") or {}).items()}
    resources = {}
    for name, r in (spec.get("resources") or {}).items():
        rpath = root + ("resources", name)
        maximum = c.formula(r["max"], rpath + ("max",), sized)
        start = c.formula(r["start"], rpath + ("start",), sized) if "start" in r else None
        resources[name] = Resource(name, maximum, start, r.get("help", ""))
    sheet_spec = SheetSpec(MappingProxyType(fields), MappingProxyType(state), MappingProxyType(tracks),
                           MappingProxyType(resources), (), MappingProxyType({}))
    everything = stats | sheet_spec.names(traits, derived)
    _check_clashes(c, sheet_spec, traits, derived, base)
    status = {}
    for name, f in (spec.get("status") or {}).items():
        status[name] = c.formula(f, root + ("status", name), everything)
    final = _final(c, spec.get("final") or {}, everything, status)
    creation = tuple(_creation(c, rule, root + ("creation", i), everything, traits, fields)
                     for i, rule in enumerate(spec.get("creation") or []))
    standing = tuple(_creation(c, rule, root + ("standing", i), everything, traits, fields)
                     for i, rule in enumerate(spec.get("standing") or []))
    return SheetSpec(sheet_spec.fields, sheet_spec.state, sheet_spec.tracks, sheet_spec.resources, creation,
                     MappingProxyType(status), standing, MappingProxyType(final))


def _field(c: CompileContext, name: str, f: dict[str, Any], fpath: P, base: set[str],
           traits: dict[str, Trait]) -> SheetField:
    total = c.formula(f["total"], fpath + ("total",), base) if "total" in f else None
    groups = tuple(f.get("trait_groups") or ())
    known = {t.group for t in traits.values()}
    for i, group in enumerate(groups):
        if group not in known:
            c.problem(UnknownName(f"unknown trait group '{group}'", c.where(fpath + ("trait_groups", i)),
                                  suggest(group, sorted(g for g in known if g))))
    if "per_trait" in f and not groups:
        c.problem(SchemaViolation(f"field '{name}' counts entries per trait, but its entries name no trait",
                                  c.where(fpath + ("per_trait",), key=True),
                                  "give it trait_groups, so that each entry reads 'TRAIT: detail'"))
    return SheetField(name, f["kind"], f.get("count"), bool(f.get("unique")), total,
                      tuple(f.get("options") or ()), f.get("default"), f.get("help", ""), groups,
                      f.get("per_trait"), MappingProxyType(dict(f.get("flags") or {})))


def _state(c: CompileContext, name: str, s: dict[str, Any], spath: P, stats: set[str],
           derived: dict[str, Derived]) -> StateValue:
    default = c.formula(s.get("default", 0), spath + ("default",), stats)
    for used in sorted(default.names if default is not None else ()):
        if used in derived and derived[used].state:
            c.problem(SchemaViolation(
                f"the default of state value '{name}' uses derived value '{used}', which reads sheet state "
                f"({', '.join(sorted(derived[used].state))})", c.where(spath + ("default",)),
                "a default may use traits and the derived values of traits only"))
    bounds = [c.number(s, key, spath) for key in ("min", "max")]
    return StateValue(name, s["type"], default, bounds[0], bounds[1], s.get("help", ""))


def _track(c: CompileContext, name: str, t: dict[str, Any], tpath: P, names: set[str],
           state: dict[str, StateValue]) -> Track:
    kind = t["kind"]
    need = "max" if kind == "current_max" else "size"
    if need not in t:
        c.problem(SchemaViolation(f"a {kind} track needs '{need}'", c.where(tpath, key=True)))
    maximum = c.formula(t["max"], tpath + ("max",), names) if "max" in t else None
    size = c.formula(t["size"], tpath + ("size",), names) if "size" in t else None
    types = tuple(t.get("types") or ())
    if kind == "boxes" and not types:
        c.problem(SchemaViolation("a boxes track needs 'types', worst first", c.where(tpath, key=True)))
    marks = tuple(t.get("marks") or ())
    if marks and len(marks) != len(types):
        c.problem(SchemaViolation(f"'marks' has {len(marks)} entries for {len(types)} types",
                                  c.where(tpath + ("marks",))))
    temporary = t.get("temporary")
    if temporary and temporary not in state:
        c.problem(UnknownName(f"unknown state value '{temporary}'", c.where(tpath + ("temporary",)),
                              suggest(temporary, list(state)) or "declare it under sheet.state"))
    ignored = tuple(t.get("temporary_ignored_by") or ())
    for i, kind_name in enumerate(ignored):
        if kind_name not in types:
            c.problem(UnknownName(f"unknown damage type '{kind_name}'",
                                  c.where(tpath + ("temporary_ignored_by", i)), suggest(kind_name, list(types))))
    return Track(name, kind, maximum, size, types, marks or tuple(types), tuple(t.get("penalties") or ()),
                 temporary, ignored, t.get("help", ""))


def _final(c: CompileContext, specs: dict[str, Any], names: set[str], status: dict[str, Any]) -> dict[str, FinalState]:
    """The final states: each a condition over sheet names, shown among the statuses as well."""
    out = {}
    for name, f in specs.items():
        path: P = ("sheet", "final", name)
        if name in status:
            c.problem(SchemaViolation(f"final state '{name}' has the name of a status", c.where(path, key=True),
                                      "a final state is shown among the statuses already: remove the status"))
        when = c.formula(f["when"], path + ("when",), names)
        out[name] = FinalState(name, when, f.get("message", ""), f.get("at"), c.where(path, key=True))
        status[name] = when
    return out


def _check_clashes(c: CompileContext, sheet: SheetSpec, traits: Mapping[str, object], derived: Mapping[str, object], base: set[str]) -> None:
    seen: dict[str, str] = {n: "trait" for n in traits}
    seen.update({n: "derived value" for n in derived})
    seen.update({n: "constant" for n in base})
    def claim(name: str, what: str, path: P) -> None:
        if name in seen:
            c.problem(SchemaViolation(f"{what} '{name}' has the name of a {seen[name]}", c.where(path, key=True)))
        seen[name] = what
    for name in sheet.state:
        claim(name, "state value", ("sheet", "state", name))
    for f in sheet.fields.values():
        for name in f.flags:
            claim(name, "field flag", ("sheet", "fields", f.name, "flags", name))
    for track in sheet.tracks.values():
        for name in track_names(track):
            claim(name, "track name", ("sheet", "tracks", track.name))
    for name in sheet.resources:
        claim(name, "resource", ("sheet", "resources", name))
        claim(f"{name}_max", "resource", ("sheet", "resources", name))


def _creation(c: CompileContext, rule: dict[str, Any], path: P, names: set[str], traits: dict[str, Trait],
              fields: dict[str, SheetField]) -> CreationRule:
    def trait_list(items: list[str], at: P) -> tuple[str, ...]:
        for i, t in enumerate(items):
            if t not in traits:
                c.problem(UnknownName(f"unknown trait '{t}'", c.where(at + (i,)), suggest(t, list(traits))))
        return tuple(items)
    common = {
        "base": c.formula(rule.get("base", 0), path + ("base",), names),
        "dot_cost": c.formula(rule.get("dot_cost", 1), path + ("dot_cost",), names | {"dot"}),
    }
    if "budget" in rule:
        spec = dict(common, traits=trait_list(rule["traits"], path + ("traits",)),
                    total=c.formula(rule["total"], path + ("total",), names), compare=rule.get("compare", "equal"))
        return CreationRule("budget", rule["budget"], MappingProxyType(spec), c.where(path))
    if "priorities" in rule:
        groups = {g: trait_list(ts, path + ("groups", g)) for g, ts in rule["groups"].items()}
        budgets = tuple(c.formula(b, path + ("budgets", i), names) for i, b in enumerate(rule["budgets"]))
        if len(budgets) != len(groups):
            c.problem(SchemaViolation(f"{len(budgets)} budgets for {len(groups)} groups", c.where(path + ("budgets",))))
        spec = dict(common, groups=MappingProxyType(groups), budgets=budgets, order=rule["order"])
        return CreationRule("priorities", rule["priorities"], MappingProxyType(spec), c.where(path))
    spec = {"check": c.formula(rule["check"], path + ("check",), names), "message": rule["message"],
            "at": rule.get("at")}
    return CreationRule("rule", rule["rule"], MappingProxyType(spec), c.where(path))
def writable_names(sheet: SheetSpec, traits: Mapping[str, Trait]) -> set[str]:
    """The names a procedure may write on a sheet: its traits, states and resources, and both halves of a
    current-and-maximum track."""
    names = set(traits) | set(sheet.state) | set(sheet.resources)
    for track in sheet.tracks.values():
        if track.kind == "current_max":
            names |= {f"{track.name}_current", f"{track.name}_max"}
    return names


