"""Checking a character sheet against its ruleset's rules, and writing a new sheet.

Standing rules hold for the whole life of a character: the sheet's shape, trait ranges, field
entries (options, no repeats, entries naming traits), tracks, resources, state values and the
`standing` rules. Creation rules hold only for a new character: field counts, points totals and
the `creation` rules (budgets, priorities and the like); experience spent in play breaks them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from interpreter import limits
from interpreter.errors import LimitExceeded, Location, RulesError, SchemaViolation
from interpreter.hints import sorted_unique, suggest
from interpreter.ruleset.entries import entry_trait
from interpreter.ruleset.model import CompiledRuleset, CreationRule, SheetField
from interpreter.ruleset.tables import table_functions
from interpreter.ruleset.texts import fill
from interpreter.ruleset.tracks import boxes_written
from interpreter.sheet.bind import bind, names_ruleset
from interpreter.words import value_text

if TYPE_CHECKING:
    from interpreter.load.document import Document, Path

SHEET_KEYS = ("ruleset", "name", "traits", "choices", "state")


class SheetProblem(SchemaViolation):
    """A sheet breaks a creation rule or has the wrong shape."""


def _where(doc: Document | None, path: Path, key: bool = False) -> Location:
    return doc.where(path, key=key) if doc is not None else Location()


def spent(rule: CreationRule, env: Mapping[str, Any], functions: Mapping[str, Any], traits: tuple[str, ...]) -> int:
    """Points spent on some traits: each dot above the base costs `dot_cost` evaluated at that dot.

    A cost that does not read `dot` is the same for every dot, so a trait's dots are counted in one
    multiplication however far it lies from the base.  A cost that reads `dot` is evaluated dot by
    dot, for at most ``limits.MAX_CREATION_DOTS`` dots in all: past that the sheet is refused
    (LimitExceeded, placed at the trait) rather than counted for hours.
    """
    base = rule.spec["base"].evaluate(env, functions)
    cost = rule.spec["dot_cost"]
    total = 0
    if "dot" not in cost.names:
        each = None
        for trait in traits:
            value = int(env[trait])
            if value > base:
                each = cost.evaluate(env, functions) if each is None else each
                total += (value - base) * each
        return total
    scope = dict(env)
    counted = 0
    for trait in traits:
        value = int(env[trait])
        counted += max(0, value - base)
        if counted > limits.MAX_CREATION_DOTS:
            raise LimitExceeded(f"{rule.name}: counting the cost of {trait} dot by dot would take more than "
                                f"{limits.MAX_CREATION_DOTS} dots ({trait} is {value}, the base {base})",
                                hint="give the trait a maximum, or a dot_cost that does not read dot")
        for dot in range(base + 1, value + 1):
            scope["dot"] = dot
            total += cost.evaluate(scope, functions)
    return total


def check(ruleset: CompiledRuleset, data: object, doc: Document | None, creation: bool = False) -> list[RulesError]:
    """Every problem of a sheet under the standing rules, and with `creation` the creation rules too."""
    problems: list[RulesError] = []
    if not isinstance(data, dict):
        return [SheetProblem("a sheet must be a mapping", _where(doc, ()))]
    for key in data:
        if key not in SHEET_KEYS:
            problems.append(SheetProblem(f"unknown key '{key}'", _where(doc, (key,), True),
                                         suggest(str(key), list(SHEET_KEYS))))
    if not names_ruleset(data.get("ruleset"), ruleset, doc.file if doc is not None else None):
        problems.append(SheetProblem(f"the sheet names ruleset '{data.get('ruleset')}', not '{ruleset.id}'",
                                     _where(doc, ("ruleset",))))
        return problems
    problems.extend(_shapes(ruleset, data, doc))
    if problems:
        return problems
    problems = _trait_ranges(ruleset, data.get("traits") or {}, doc)
    if problems:
        return problems
    try:
        env = bind(ruleset, data, doc)
    except RulesError as err:
        return [err]
    spec = ruleset.sheet
    if spec is None:
        return problems
    functions = table_functions(ruleset)
    choices = data.get("choices") or {}
    for name in choices:
        if name not in spec.fields:
            problems.append(SheetProblem(f"choices: unknown choice '{name}'", _where(doc, ("choices", name), True),
                                         suggest(str(name), list(spec.fields))))
    problems.extend(_state(ruleset, data.get("state") or {}, doc, env))
    for field in spec.fields.values():
        problems.extend(_field(ruleset, field, choices.get(field.name), doc, env, functions, creation))
    for rule in spec.standing + (spec.creation if creation else ()):
        problems.extend(_rule(rule, data, doc, env, functions))
    return sorted_unique(problems)


def _trait_ranges(ruleset: CompiledRuleset, traits: Mapping[str, object], doc: Document | None) -> list[RulesError]:
    """Every trait of the ruleset given, as a whole number within its range."""
    problems: list[RulesError] = []
    for name, trait in ruleset.traits.items():
        if name not in traits:
            problems.append(SheetProblem(f"traits: missing '{name}'", _where(doc, ("traits",), True)))
            continue
        value = traits[name]
        at = _where(doc, ("traits", name))
        if isinstance(value, bool) or not isinstance(value, int):
            problems.append(SheetProblem(f"trait '{name}' must be a whole number, not {value!r}", at))
        elif trait.maximum is not None and value > trait.maximum:
            problems.append(SheetProblem(f"traits.{name}: {value} is above the most, {trait.maximum}", at))
        elif trait.minimum is not None and value < trait.minimum:
            problems.append(SheetProblem(f"traits.{name}: {value} is below the least, {trait.minimum}", at))
    return problems


def refuse_broken(ruleset: CompiledRuleset, data: object, doc: Document | None) -> None:
    """Refuse a sheet that breaks a standing rule, before any procedure reads or changes it.

    The refusal is the first line `rules sheet check` prints for the sheet.
    """
    found = check(ruleset, data, doc)
    if found:
        raise found[0]


def _kind(value: object) -> str:
    if value is None or isinstance(value, bool):
        return value_text(value)
    return {int: "a number", float: "a number", str: "text", list: "a list", dict: "a mapping"}.get(type(value), "?")


def _shapes(ruleset: CompiledRuleset, data: Mapping[str, object], doc: Document | None) -> list[RulesError]:
    """The parts of a sheet that have the wrong kind of value for binding to read them."""
    out: list[RulesError] = []
    for key in ("traits", "choices", "state"):
        value = data.get(key)
        if value is not None and not isinstance(value, dict):
            out.append(SheetProblem(f"{key} must be a mapping of names to values, not {_kind(value)}",
                                    _where(doc, (key,))))
    state = data.get("state")
    if out or ruleset.sheet is None or not isinstance(state, dict):
        return out
    for track in ruleset.sheet.tracks.values():
        raw = state.get(track.name)
        if raw is None:
            continue
        if track.kind == "boxes" and not isinstance(raw, (list, str)):
            out.append(SheetProblem(f"state.{track.name} must be a list of boxes (a damage type or null each), "
                                    f"not {_kind(raw)}", _where(doc, ("state", track.name))))
        elif track.kind == "current_max" and not isinstance(raw, dict):
            out.append(SheetProblem(f"state.{track.name} must be a mapping with current and max, not {_kind(raw)}",
                                    _where(doc, ("state", track.name))))
    return out


def _state(ruleset: CompiledRuleset, state: Mapping[str, Any], doc: Document | None, env: Mapping[str, Any]) -> list[RulesError]:
    """State values the sheet holds that binding would have to cut: too many boxes, values over a maximum."""
    out: list[RulesError] = []
    spec = ruleset.sheet
    assert spec is not None, "only a ruleset with a sheet section has sheet state"
    for track in spec.tracks.values():
        raw = state.get(track.name)
        if track.kind == "boxes" and isinstance(raw, (list, str)):
            raw = boxes_written(raw)
            marked, size = sum(1 for m in raw if m is not None), env[f"{track.name}_size"]
            if len(raw) > size:
                what = f"{marked} boxes marked" if marked > size else f"{len(raw)} boxes"
                out.append(SheetProblem(f"state.{track.name}: {what}; the track has {size}",
                                        _where(doc, ("state", track.name))))
        elif track.kind == "current_max" and isinstance(raw, dict):
            current, top = raw.get("current"), raw.get("max")
            if isinstance(current, int) and isinstance(top, int) and current > top:
                out.append(SheetProblem(f"state.{track.name}.current: {current} is above the maximum, {top}",
                                        _where(doc, ("state", track.name, "current"))))
    for name in spec.resources:
        raw = state.get(name)
        top = env[f"{name}_max"]
        if isinstance(raw, int) and not isinstance(raw, bool) and not 0 <= raw <= top:
            out.append(SheetProblem(f"state.{name}: {raw} is outside 0 to its maximum, {top}",
                                    _where(doc, ("state", name))))
    for field in spec.fields.values():  # a field flag follows the field: the state may not say it again
        for flag, entry in field.flags.items():
            if flag in state and flag not in spec.state:
                out.append(SheetProblem(f"state.{flag}: {flag} is not kept in state; it is true when "
                                        f"choices.{field.name} holds '{entry}'", _where(doc, ("state", flag), True),
                                        f"remove state.{flag}, and list '{entry}' under choices.{field.name} instead"))
    for name, value in spec.state.items():
        raw = state.get(name)
        if isinstance(raw, int) and not isinstance(raw, bool):
            if value.minimum is not None and raw < value.minimum:
                out.append(SheetProblem(f"state.{name}: {raw} is below the least, {value.minimum}",
                                        _where(doc, ("state", name))))
            if value.maximum is not None and raw > value.maximum:
                out.append(SheetProblem(f"state.{name}: {raw} is above the most, {value.maximum}",
                                        _where(doc, ("state", name))))
    return out


def _field(ruleset: CompiledRuleset, field: SheetField, value: Any, doc: Document | None, env: Mapping[str, Any], functions: Mapping[str, Any],
           creation: bool) -> list[RulesError]:
    at = _where(doc, ("choices", field.name))
    name = field.name
    if value is None:
        return [SheetProblem(f"{name}: nothing chosen", _where(doc, ("choices",), True))]
    if field.kind == "text":
        if not isinstance(value, str) or not value.strip():
            return [SheetProblem(f"{name}: expected one entry as text", at)]
        entries = [value]
    elif field.kind == "list":
        if not isinstance(value, list):
            return [SheetProblem(f"{name}: expected a list", at)]
        entries = [str(v) for v in value]
        found = _list_problems(ruleset, field, entries, doc, at, creation)
        if found is not None:
            return found
    else:
        if not isinstance(value, dict) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value.values()):
            return [SheetProblem(f"{name}: expected names with whole numbers of points", at)]
        entries = list(value)
        total = field.total.evaluate(env, functions) if field.total is not None else None
        points = sum(value.values())
        if creation and total is not None and points != total:
            return [SheetProblem(f"{name}: {points} points spent; the budget is {total}", at)]
    return _not_options(field, entries, doc)


def _list_problems(ruleset: CompiledRuleset, field: SheetField, entries: list[str], doc: Document | None, at: Location | None,
                   creation: bool) -> list[RulesError] | None:
    """The problems of a list field's entries (count, repeats, traits named, entries per trait), or None to go on."""
    name = field.name
    if creation and field.count is not None and len(entries) != field.count:
        return [SheetProblem(f"{name}: {len(entries)} chosen; {field.count} are needed", at)]
    if field.unique:
        seen: set[str] = set()
        for i, entry in enumerate(entries):
            key = _entry_key(ruleset, field, entry)
            if key in seen:
                return [SheetProblem(f"{name}: '{entry}' is chosen twice", _where(doc, ("choices", name, i)))]
            seen.add(key)
    for i, entry in enumerate(entries if field.trait_groups else ()):
        problem = _names_trait(ruleset, field, entry)
        if problem:
            return [SheetProblem(f"{name}: '{entry}' {problem}", _where(doc, ("choices", name, i)),
                                 suggest(entry.partition(":")[0].strip(), _trait_words(ruleset, field)))]
    if creation and field.per_trait is not None:
        return _per_trait(ruleset, field, entries, doc)
    return None


def _not_options(field: SheetField, entries: list[str], doc: Document | None) -> list[RulesError]:
    """The first entry that is not one of the field's options, if it has options."""
    for i, entry in enumerate(entries if field.options else ()):
        if entry not in field.options:
            path = ("choices", field.name) if field.kind == "text" else ("choices", field.name, i)
            return [SheetProblem(f"{field.name}: '{entry}' is not one of the options", _where(doc, path),
                                 suggest(entry, list(field.options)))]
    return []


def _entry_key(ruleset: CompiledRuleset, field: SheetField, entry: str) -> str:
    """An entry as `unique` compares it: in any letter case, spaces run together; an entry that names a
    trait by its name or its label, with any spacing around the colon, is the same entry."""
    key = " ".join(entry.casefold().split())
    trait = entry_trait(ruleset, field, entry) if field.trait_groups else None
    if trait is None:
        return key
    return f"{trait}:" + " ".join(entry.partition(":")[2].casefold().split())


def _per_trait(ruleset: CompiledRuleset, field: SheetField, entries: list[str], doc: Document | None) -> list[RulesError]:
    """At creation, no more than `per_trait` entries of a list name one trait: the first entry past it is reported."""
    most = field.per_trait
    assert most is not None, "only a field with per_trait is counted"
    counted: dict[str, int] = {}
    for i, entry in enumerate(entries):
        trait = entry_trait(ruleset, field, entry)
        if trait is None:
            continue
        counted[trait] = counted.get(trait, 0) + 1
        if counted[trait] > most:
            label = ruleset.traits[trait].label or trait
            return [SheetProblem(f"{field.name}: '{entry}' makes {counted[trait]} entries in {label}; "
                                 f"at most {field.per_trait} may name one trait at creation",
                                 _where(doc, ("choices", field.name, i)))]
    return []


def _trait_words(ruleset: CompiledRuleset, field: SheetField) -> list[str]:
    return [t.label or t.name for t in ruleset.traits.values() if t.group in field.trait_groups]


def _names_trait(ruleset: CompiledRuleset, field: SheetField, entry: str) -> str | None:
    _, colon, detail = entry.partition(":")
    if not colon or not detail.strip():
        return "should read 'TRAIT: detail'"
    if entry_trait(ruleset, field, entry) is None:
        return f"names no trait of {', '.join(field.trait_groups)}"
    return None


def _rule(rule: CreationRule, data: object, doc: Document | None, env: Mapping[str, object], functions: Mapping[str, object]) -> list[RulesError]:
    try:
        return _rule_problems(rule, data, doc, env, functions)
    except LimitExceeded as err:  # (a cost counted dot by dot, too far from the base)
        traits = rule.spec.get("traits") or [t for group in (rule.spec.get("groups") or {}).values() for t in group]
        return [err.located(_where(doc, ("traits", traits[0]) if traits else ("traits",), bool(traits)))]


def _rule_problems(rule: CreationRule, data: Any, doc: Document | None, env: Mapping[str, Any],
                   functions: Mapping[str, object]) -> list[RulesError]:
    if rule.kind == "budget":
        traits = rule.spec["traits"]
        total = rule.spec["total"].evaluate(env, functions)
        used = spent(rule, env, functions, traits)
        bad = used > total if rule.spec["compare"] == "at_most" else used != total
        if bad:
            return [SheetProblem(f"{rule.name}: {used} points spent; the budget is {total}",
                                 _where(doc, ("traits", traits[0]), True))]
        return []
    if rule.kind == "priorities":
        groups = rule.spec["groups"]
        order = (data.get("choices") or {}).get(rule.spec["order"])
        at: Location | tuple[object, ...]  # a location here, a path below
        at = _where(doc, ("choices", rule.spec["order"]))
        if not isinstance(order, list) or sorted(map(str, order)) != sorted(groups):
            return [SheetProblem(f"{rule.name}: {rule.spec['order']} must list {', '.join(groups)} once each, "
                                 "highest priority first", at)]
        out: list[RulesError] = []
        for rank, group in enumerate(order):
            budget = rule.spec["budgets"][rank].evaluate(env, functions)
            used = spent(rule, env, functions, groups[group])
            if used != budget:
                out.append(SheetProblem(f"{rule.name}: {used} dots spent on {group}; priority {rank + 1} gives {budget}",
                                        _where(doc, ("traits", groups[group][0]), True)))
        return out
    if not rule.spec["check"].evaluate(env, functions):
        spot: Path = tuple(int(p) if p.isdigit() else p for p in rule.spec["at"].split(".")) if rule.spec.get("at") else ()
        return [SheetProblem(f"{rule.name}: {fill(rule.spec['message'], env)}", _where(doc, spot))]
    return []
