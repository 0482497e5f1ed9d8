"""What completion offers: the keys allowed where the cursor is (from the schema), the names a formula
may use, procedures and their parameters in `call:` and `with:`, ruleset ids in `extends:`."""

from __future__ import annotations

import re
from typing import Any

from interpreter.lsp.context import PROSE, Place
from interpreter.lsp.hover import person_text
from interpreter.ruleset.kind import naming
from interpreter.ruleset.model import CompiledRuleset

__all__ = ["base_constants", "keys_at", "names_at", "ruleset_ids"]


def _resolve(schema: dict[str, Any], node: Any) -> list[dict[str, Any]]:
    """A schema node and the branches it is made of ($ref followed, oneOf/anyOf/allOf opened)."""
    if not isinstance(node, dict):
        return []
    if "$ref" in node:
        target: Any = schema
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        return _resolve(schema, target)
    out = [node]
    for word in ("oneOf", "anyOf", "allOf"):
        for branch in node.get(word, []):
            out += _resolve(schema, branch)
    return out


def _child(schema: dict[str, Any], nodes: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for node in nodes:
        if key == "-":
            out += _resolve(schema, node.get("items"))
        elif key in node.get("properties", {}):
            out += _resolve(schema, node["properties"][key])
        elif isinstance(node.get("additionalProperties"), dict):
            out += _resolve(schema, node["additionalProperties"])
    return out


def keys_at(schema: dict[str, Any], place: Place) -> list[tuple[str, str]]:
    """(key, description) for the keys the schema allows in the mapping being typed, minus those written.

    Where several forms are allowed (the kinds of a step), only their distinguishing keys are offered
    until one is written; then the keys of that form.
    """
    nodes = _resolve(schema, schema)
    for key in place.keys:
        nodes = _child(schema, nodes, key)
    forms = [n for n in nodes if n.get("properties")]
    kinds = [n for n in forms if n.get("required")]
    if len(kinds) > 1:
        chosen = [n for n in kinds if n["required"][0] in place.siblings]
        if not chosen:
            return [(n["required"][0], str(n.get("description", ""))) for n in kinds]
        forms = chosen
    out: dict[str, str] = {}
    for node in forms:
        for key, sub in node["properties"].items():
            if key not in place.siblings and key not in out:
                out[key] = str(sub.get("description", "")) if isinstance(sub, dict) else ""
    return list(out.items())


def _bound_before(lines: list[str], row: int, ruleset: CompiledRuleset) -> list[str]:
    """Names bound by the steps above a line in its procedure: `let` and `roll` keys, a call's `as` values."""
    start = row
    while start > 0 and not re.match(r"  [A-Za-z_]", lines[start]):
        start -= 1
    names: list[str] = []
    text = "\n".join(lines[start:row + 1])
    for found in re.finditer(r"(?:let|roll):\s*\{([^}]*)\}", text):
        names += re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*:", found.group(1))
    for found in re.finditer(r"^\s*(?:-\s+)?(?:let|roll):\s*\n((?:\s+[A-Za-z_][A-Za-z0-9_]*\s*:.*\n?)+)", text, re.MULTILINE):
        names += re.findall(r"^\s+([A-Za-z_][A-Za-z0-9_]*)\s*:", found.group(1), re.MULTILINE)
    for found in re.finditer(r"call:\s*([A-Za-z_][A-Za-z0-9_]*)(?:[^-]|-(?!\s))*?as:\s*([A-Za-z_][A-Za-z0-9_]*)", text):
        callee = ruleset.procedures.get(found.group(1))
        if callee is not None:
            names += [f"{found.group(2)}_{v}" for v in callee.values]
    return names


def names_at(ruleset: CompiledRuleset, place: Place, lines: list[str], row: int,
             written: dict[str, dict[str, object]] | None = None) -> list[tuple[str, str]]:
    """(name, what it is) for the names usable where the cursor is: in a formula, a `call:` or a `with:`.

    ``written`` holds the parameters of procedures as written, by procedure: those of a procedure that does
    not compile yet (and so is not in the ruleset) are offered from there.
    """
    if place.key in PROSE:
        return []
    if place.key in naming(ruleset.kinds, "procedure"):  # a call's procedure
        return [(name, "procedure") for name in ruleset.procedures]
    procedure = place.keys[1] if place.keys[:1] == ("procedures",) and len(place.keys) > 1 else None
    if place.keys[-1:] == ("with",) and place.at_key or place.key == "with":
        called = _called(lines, row)
        proc = ruleset.procedures.get(called or "")
        if proc is not None:
            return [(p.name, f"parameter of {proc.name}") for p in proc.params]
    out: list[tuple[str, str]] = []
    out += [(name, f"trait: {person_text(t.label, ruleset)}") for name, t in ruleset.traits.items()]
    out += [(name, f"constant = {value}") for name, value in ruleset.constants.items()]
    out += [(name, f"derived: {person_text(d.label, ruleset)}") for name, d in ruleset.derived.items()]
    out += [(name, "dice") for name in ruleset.dice]
    out += [(name, "table") for name in ruleset.tables]
    if procedure is not None and procedure in ruleset.procedures:
        proc = ruleset.procedures[procedure]
        out += [(p.name, f"parameter ({p.type})") for p in proc.params]
        out += [(name, "bound above") for name in _bound_before(lines, row, ruleset)]
    elif procedure is not None and written and isinstance(written.get(procedure), dict):
        for name, spec in written[procedure].items():
            kind = spec.get("type") if isinstance(spec, dict) else None
            out.append((str(name), f"parameter ({kind})" if isinstance(kind, str) else "parameter"))
        out += [(name, "bound above") for name in _bound_before(lines, row, ruleset)]
    return list({n: (n, w) for n, w in reversed(out)}.values())[::-1]


def _called(lines: list[str], row: int) -> str | None:
    """The procedure the step around a line calls."""
    for i in range(row, max(row - 12, -1), -1):
        found = re.search(r"call:\s*([A-Za-z_][A-Za-z0-9_]*)", lines[i])
        if found:
            return found.group(1)
        if i != row and re.match(r"\s*-\s", lines[i]):
            break
    return None


def ruleset_ids() -> list[tuple[str, str]]:
    """The ids `extends:` and a sheet's `ruleset:` can name: the bundled ones and those in the user's folders."""
    from interpreter.load.bundled import bundled_ids
    from interpreter.load.find import user_rulesets

    return [(i, "bundled") for i in bundled_ids()] + [(i, paths[0]) for i, paths in sorted(user_rulesets().items())]


def base_constants(base: CompiledRuleset) -> list[tuple[str, str]]:
    """(name, value) of the constants of an overlay's base: what its `constants:` may change."""
    return [(name, f"= {value} in {base.id}") for name, value in base.constants.items()]
