"""A new character that meets its ruleset's creation rules whatever the constants are.

The spreading rule (docs/format.md, "A new sheet"): every trait starts at its default, kept within
its range. Then each `budget` rule, and each group of a `priorities` rule (with the budget the
default order gives it), is met by moving its traits one dot at a time, in the order the rule lists
them and round and round: up while points are left, down while too many are spent. A trait does not
move past its range, nor by a dot that costs more than is left to spend (or refunds more than is
over). A `points` field is met the same way, a point at a time over its entries (worked out in
closed form). When nothing can move any more and the rule is still unmet, or a budget would take
more than ``limits.MAX_CREATION_MOVES`` moves, the new sheet is refused with the rule's name.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from interpreter import limits
from interpreter.errors import BadParameter, RulesError
from interpreter.ruleset.model import CompiledRuleset, CreationRule, SheetField
from interpreter.ruleset.tables import table_functions
from interpreter.ruleset.texts import prose
from interpreter.sheet.bind import bind
from interpreter.sheet.creation import check, spent
from interpreter.words import value_text


class Unmet(Exception):
    """A creation rule the spreading rule cannot meet: its name and why."""

    def __init__(self, rule: str, reason: str):
        super().__init__(f"{rule}: {reason}")
        self.rule = rule
        self.reason = reason


def default_traits(ruleset: CompiledRuleset) -> dict[str, int]:
    """Every trait at its default, kept within its range."""
    out = {}
    for trait in ruleset.traits.values():
        value = trait.default if trait.default is not None else 0
        if trait.maximum is not None:
            value = min(value, trait.maximum)
        if trait.minimum is not None:
            value = max(value, trait.minimum)
        out[trait.name] = value
    return out


def default_choices(ruleset: CompiledRuleset) -> dict[str, object]:
    """Every field's default, as a new sheet writes it."""
    spec = ruleset.sheet
    fields = spec.fields.values() if spec is not None else ()
    return {f.name: f.default if f.default is not None else ([] if f.kind == "list" else "") for f in fields}


def _meet(ruleset: CompiledRuleset, rule: CreationRule, traits: dict[str, int], names: tuple[str, ...], target: int,
          env: Mapping[str, object], functions: Mapping[str, object], what: str) -> None:
    """Move the named traits a dot at a time until `rule` counts `target` points on them.

    At most ``limits.MAX_CREATION_MOVES`` moves are tried: a budget that needs more is refused (Unmet),
    not spread for hours.
    """
    at_most = rule.spec.get("compare") == "at_most"
    scope = {**env, **traits}
    dot_cost = rule.spec["dot_cost"]

    def cost(dot: int) -> int:
        scope["dot"] = dot
        return int(dot_cost.evaluate(scope, functions))

    base = rule.spec["base"].evaluate(scope, functions)
    used = spent(rule, scope, functions, names)
    moves = 0
    while used != target and not (at_most and used < target):
        if moves >= limits.MAX_CREATION_MOVES:
            raise Unmet(rule.name, f"spending {target} points on {what} would take more than "
                                   f"{limits.MAX_CREATION_MOVES} moves of one dot (they reach {used})")
        moved = False
        for name in names:
            trait = ruleset.traits[name]
            value = traits[name]
            if used < target:
                step = cost(value + 1) if value >= base else 0
                if step and (trait.maximum is None or value < trait.maximum) and used + step <= target:
                    traits[name], used, moved = value + 1, used + step, True
            elif used > target:
                step = cost(value) if value > base else 0
                floor = max(base, trait.minimum) if trait.minimum is not None else base
                if step and value > floor and (used - step >= target or at_most):
                    traits[name], used, moved = value - 1, used - step, True
            scope[name] = traits[name]
            moves += 1
            if used == target or (at_most and used < target):
                break
        if not moved:
            break
    if used != target and not (at_most and used <= target):
        raise Unmet(rule.name, f"{len(names)} traits within their ranges cannot spend {target} points on {what} "
                               f"(they reach {used})")


def _meet_points(field: SheetField, value: Any, total: int) -> dict[str, int]:
    """A points field's entries raised or lowered a point at a time, in turn, until they sum to `total`.

    Worked out in closed form, with the result of going round the entries one point at a time: each
    round starts at the first entry; raising, every entry gains a point a round; lowering, every
    entry above 1 loses one, and an entry at 1 or below stays.
    """
    entries = {str(k): int(v) for k, v in (value or {}).items()}
    if not entries:
        raise Unmet(field.name, f"no entries to spend {total} points on")
    names = list(entries)
    points = sum(entries.values())
    if points < total:
        rounds, first = divmod(total - points, len(names))
        for i, name in enumerate(names):
            entries[name] += rounds + (1 if i < first else 0)
        return entries
    excess = points - total
    room = {name: max(0, entries[name] - 1) for name in names}  # the points each entry can give up
    if sum(room.values()) < excess:
        raise Unmet(field.name, f"its entries cannot sum to {total} points")
    low, high = 0, max(room.values())  # the most full rounds whose points given up stay within the excess
    while low < high:
        middle = (low + high + 1) // 2
        if sum(min(r, middle) for r in room.values()) <= excess:
            low = middle
        else:
            high = middle - 1
    left = excess - sum(min(r, low) for r in room.values())
    for name in names:
        given = min(room[name], low)
        if left and room[name] > low:
            given, left = given + 1, left - 1
        entries[name] -= given
    return entries


def starting_values(ruleset: CompiledRuleset) -> tuple[dict[str, int], dict[str, object]]:
    """The traits and choices of a new sheet, spread to meet the creation rules; Unmet when they cannot."""
    traits = default_traits(ruleset)
    choices = default_choices(ruleset)
    spec = ruleset.sheet
    if spec is None:
        return traits, choices
    functions = table_functions(ruleset)
    env = bind(ruleset, {"traits": traits})
    for rule in spec.creation:
        if rule.kind == "budget":
            total = int(rule.spec["total"].evaluate(env, functions))
            _meet(ruleset, rule, traits, rule.spec["traits"], total, env, functions, ", ".join(rule.spec["traits"]))
        elif rule.kind == "priorities":
            order = choices.get(rule.spec["order"])
            groups = rule.spec["groups"]
            if not isinstance(order, list) or sorted(map(str, order)) != sorted(groups):
                raise Unmet(rule.name, f"the default of '{rule.spec['order']}' must list {', '.join(groups)}")
            for rank, group in enumerate(order):
                budget = int(rule.spec["budgets"][rank].evaluate(env, functions))
                _meet(ruleset, rule, traits, groups[group], budget, env, functions, f"{group} (priority {rank + 1})")
    env = bind(ruleset, {"traits": traits})
    for field in spec.fields.values():
        if field.kind == "points" and field.total is not None:
            total = int(field.total.evaluate(env, functions))
            value = choices.get(field.name)
            if not isinstance(value, Mapping) or sum(int(v) for v in value.values()) != total:
                choices[field.name] = _meet_points(field, value, total)
    return traits, choices


def new_sheet(ruleset: CompiledRuleset, name: str, ref: str | None, file: str) -> str:
    """The text of a new sheet that passes `rules sheet check --creation`, or BadParameter naming the rule it cannot meet."""
    from interpreter.load.yaml import load_text

    try:
        traits, choices = starting_values(ruleset)
    except Unmet as unmet:
        raise BadParameter(f"a new {ruleset.id} sheet cannot meet creation rule '{unmet.rule}': {unmet.reason}",
                           hint="change the constants it uses") from None
    text = new_sheet_text(ruleset, name, ref, traits, choices)
    doc = load_text(text, file)
    found: list[RulesError] = check(ruleset, doc.data, doc, creation=True)
    if found:
        raise BadParameter(f"a new {ruleset.id} sheet would break its creation rules: {found[0].message}",
                           hint="give the traits and fields defaults that pass them")
    return text


def default_problems(ruleset: CompiledRuleset) -> list[str]:
    """How a sheet of every trait and field at its default breaks the ruleset's own rules (empty when it does not)."""
    from interpreter.load.yaml import load_text

    if ruleset.sheet is None and not ruleset.traits:
        return []
    raw = {t.name: t.default if t.default is not None else 0 for t in ruleset.traits.values()}
    text = new_sheet_text(ruleset, "Default", None, raw, default_choices(ruleset))
    doc = load_text(text, ruleset.file)
    return [error.message for error in check(ruleset, doc.data, doc, creation=True)]


def _yaml_value(value: object) -> str:
    if value is None or isinstance(value, (bool, int, float)):
        return value_text(value)
    if isinstance(value, list):
        return "[" + ", ".join(_yaml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_yaml_value(v)}" for k, v in value.items()) + "}"
    # a JSON string is a YAML double-quoted one; characters a reader may not show as written are escaped too
    quoted = json.dumps(str(value), ensure_ascii=False)
    return "".join(c if c.isprintable() or c in "\\\"" else _escape(c) for c in quoted)


def _escape(c: str) -> str:
    return f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}"


def new_sheet_text(ruleset: CompiledRuleset, name: str, ref: str | None = None, traits: Mapping[str, int] | None = None,
                   choices: Mapping[str, object] | None = None) -> str:
    """A commented starting sheet: every trait and choice as given, or else at its default; `ref` names the ruleset."""
    chosen = {t.name: t.default if t.default is not None else 0 for t in ruleset.traits.values()}
    chosen.update(traits or {})
    if ruleset.sheet is None and not ruleset.traits:
        raise BadParameter(f"ruleset '{ruleset.id}' describes no character sheet")
    lines = [f"# A {ruleset.title} character. Check it with: rules sheet check FILE",
             f"ruleset: {_yaml_value(ref) if ref else ruleset.id}", f"name: {_yaml_value(name)}", "traits:"]
    group = None
    for trait in ruleset.traits.values():
        if trait.group != group:
            group = trait.group
            lines.append(f"  # {group}")
        span = f", {trait.minimum}-{trait.maximum}" if trait.minimum is not None and trait.maximum is not None else ""
        lines.append(f"  {trait.name}: {chosen[trait.name]}  # {trait.label}{span}")
    spec = ruleset.sheet
    data = {"ruleset": ruleset.id, "traits": chosen}
    if spec is not None and spec.fields:
        lines.append("choices:")
        for field in spec.fields.values():
            default = field.default if field.default is not None else ([] if field.kind == "list" else "")
            default = (choices or {}).get(field.name, default)
            note = prose(field.help, ruleset.constants) or field.kind
            if field.count:
                note += f"; {field.count} needed"
            lines.append(f"  {field.name}: {_yaml_value(default)}  # {note}")
    if spec is not None:
        env = bind(ruleset, data)
        lines.append("state:")
        for value in spec.state.values():
            lines.append(f"  {value.name}: {_yaml_value(env[value.name])}" + (f"  # {prose(value.help, ruleset.constants)}" if value.help else ""))
        for track in spec.tracks.values():
            if track.kind == "current_max":
                lines.append(f"  {track.name}: {{current: {env[track.name + '_current']}, max: {env[track.name + '_max']}}}")
            else:
                size = env[f"{track.name}_size"]
                lines.append(f"  {track.name}: {_yaml_value([None] * size)}  # {', '.join(track.types)}, worst first")
        for resource in spec.resources.values():
            lines.append(f"  {resource.name}: {env[resource.name]}  # at most {env[resource.name + '_max']}")
    return "\n".join(lines) + "\n"
