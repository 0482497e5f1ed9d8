"""Compiling procedure steps: one small function per step key, each checking names and references."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from interpreter.errors import SchemaViolation, UnknownName, UnknownStepKind
from interpreter.hints import suggest
from interpreter.ruleset.model import Step

P = tuple[Any, ...]


def compile_step(c: Any, spec: dict[str, Any], path: P, scope: Any, ctx: Any) -> Step:
    """Compile one step; ``scope`` is updated with the names it defines."""
    for kind, fn in STEP_COMPILERS.items():
        if kind in spec:
            parts = fn(c, spec, path, scope, ctx)
            return Step(kind, parts, c.where(path))
    raise UnknownStepKind(f"unknown step kind in {list(spec)}", c.where(path))


def _outcome(c: Any, name: str | None, path: P, ctx: Any) -> None:
    if name is not None and name not in ctx.outcomes:
        c.problem(UnknownName(f"procedure '{ctx.name}' has no outcome '{name}'", c.where(path),
                              suggest(name, list(ctx.outcomes)) or "declare it under outcomes"))


def _f(c: Any, value: Any, path: P, scope: Any) -> Any:
    return c.formula(value, path, scope.formulas)


def _not_sheet(c: Any, name: str, path: P, ctx: Any) -> None:
    """Sheet values change only through `update` (and the other sheet steps), never by rebinding."""
    if name in ctx.sheet_writable:
        c.problem(SchemaViolation(f"'{name}' is a sheet value; change it with an update step",
                                  c.where(path, key=True)))


def _let(c: Any, spec: dict[str, Any], path: P, scope: Any, ctx: Any) -> dict[str, Any]:
    assign = []
    for name, value in spec["let"].items():
        _not_sheet(c, name, path + ("let", name), ctx)
        assign.append((name, _f(c, value, path + ("let", name), scope), c.where(path + ("let", name))))
        scope.define(name)
        ctx.bound.add(name)
    return {"assign": tuple(assign)}


def _roll(c: Any, spec: dict[str, Any], path: P, scope: Any, ctx: Any) -> dict[str, Any]:
    rolls = []
    for name, value in spec["roll"].items():
        _not_sheet(c, name, path + ("roll", name), ctx)
        expr = c.dice_expr(value, path + ("roll", name), scope)
        rolls.append((name, expr, c.where(path + ("roll", name))))
        scope.define(name)
        ctx.bound.add(name)
    return {"rolls": tuple(rolls)}


def _decide(c: Any, spec: dict[str, Any], path: P, scope: Any, ctx: Any) -> dict[str, Any]:
    branches = []
    for i, branch in enumerate(spec["decide"]):
        bpath = path + ("decide", i)
        cond = _f(c, branch["when"], bpath + ("when",), scope) if "when" in branch else None
        _outcome(c, branch["outcome"], bpath + ("outcome",), ctx)
        branches.append((cond, branch["outcome"], c.where(bpath)))
    return {"branches": tuple(branches)}


def _stop(c: Any, spec: dict[str, Any], path: P, scope: Any, ctx: Any) -> dict[str, Any]:
    _outcome(c, spec.get("outcome"), path + ("outcome",), ctx)
    return {"when": _f(c, spec["stop"], path + ("stop",), scope), "outcome": spec.get("outcome")}


def _if(c: Any, spec: dict[str, Any], path: P, scope: Any, ctx: Any) -> dict[str, Any]:
    cond = _f(c, spec["if"], path + ("if",), scope)
    then_scope, else_scope = scope.copy(), scope.copy()
    then = c.steps(spec["then"], path + ("then",), then_scope, ctx)
    other = c.steps(spec.get("else") or [], path + ("else",), else_scope, ctx)
    scope.define(*(then_scope.formulas & else_scope.formulas))
    return {"cond": cond, "then": then, "else": other}


def _loop(c: Any, spec: dict[str, Any], path: P, scope: Any, ctx: Any) -> dict[str, Any]:
    inner = scope.copy()
    counter = spec.get("counter")
    inner.define(counter)
    parts = {
        "times": _f(c, spec["repeat"], path + ("repeat",), scope) if "repeat" in spec else None,
        "while": _f(c, spec["while"], path + ("while",), inner) if "while" in spec else None,
        "max": _f(c, spec["max"], path + ("max",), scope) if "max" in spec else None,
        "counter": counter,
    }
    parts["steps"] = c.steps(spec["steps"], path + ("steps",), inner, ctx)
    if counter:
        ctx.bound.add(counter)
    return parts


def _best_of(c: Any, spec: dict[str, Any], path: P, scope: Any, ctx: Any) -> dict[str, Any]:
    count = _f(c, spec["best_of"], path + ("best_of",), scope)
    worst = _f(c, spec["worst_when"], path + ("worst_when",), scope) if "worst_when" in spec else None
    steps = c.steps(spec["steps"], path + ("steps",), scope, ctx)
    tiebreak = _f(c, spec["tiebreak"], path + ("tiebreak",), scope) if "tiebreak" in spec else None
    return {"count": count, "worst_when": worst, "tiebreak": tiebreak, "steps": steps, "procedure": ctx.name}


def _contest(c: Any, spec: dict[str, Any], path: P, scope: Any, ctx: Any) -> dict[str, Any]:
    body = spec["contest"]
    cpath = path + ("contest",)
    _outcome(c, body["win"], cpath + ("win",), ctx)
    _outcome(c, body["lose"], cpath + ("lose",), ctx)
    parts = {
        "actor": _f(c, body["actor"], cpath + ("actor",), scope),
        "defender": _f(c, body["defender"], cpath + ("defender",), scope),
        "ties": body["ties"], "win": body["win"], "lose": body["lose"],
        "margin": body.get("margin"), "tied": body.get("tied"),
    }
    for name in (parts["margin"], parts["tied"]):
        if name:
            scope.define(name)
            ctx.bound.add(name)
    return parts


def _table(c: Any, spec: dict[str, Any], path: P, scope: Any, ctx: Any) -> dict[str, Any]:
    name = spec["table"]
    tables = c.data.get("tables") or {}
    table = tables.get(name)
    if table is None:
        c.problem(UnknownName(f"unknown table '{name}'", c.where(path + ("table",)), suggest(name, list(tables))))
    key = _f(c, spec["key"], path + ("key",), scope) if "key" in spec else None
    if table is not None and key is None and "die" not in table:
        c.problem(SchemaViolation(f"table '{name}' has no die, so this step needs a key",
                                  c.where(path, key=False)))
    defined = [spec.get("roll_as"), spec.get("value_as")]
    if table is not None:
        rows = list(table.get("rows") or []) + ([table["default"]] if "default" in table else [])
        for i, row in enumerate(table.get("rows") or []):
            _outcome(c, row.get("outcome"), ("tables", name, "rows", i, "outcome"), ctx)
        shared = None
        for row in rows:
            names = set(row.get("values") or {})
            shared = names if shared is None else shared & names
            ctx.bound.update(names)
        defined += sorted(shared or ())
    for n in defined:
        if n:
            scope.define(n)
            ctx.bound.add(n)
    return {"table": name, "key": key, "roll_as": spec.get("roll_as"), "value_as": spec.get("value_as")}


def _call(c: Any, spec: dict[str, Any], path: P, scope: Any, ctx: Any) -> dict[str, Any]:
    callee = spec["call"]
    args = []
    for pname, value in (spec.get("with") or {}).items():
        f = c.formula(value, path + ("with", pname), scope.formulas | scope.dice_only)
        args.append((pname, f, c.where(path + ("with", pname), key=True)))
    prefix = spec.get("as")
    target = (c.data.get("procedures") or {}).get(callee)
    if prefix and target is not None:
        for name in list(target.get("values") or {}) + list(target.get("outcomes") or {}):
            scope.define(f"{prefix}_{name}")
            ctx.bound.add(f"{prefix}_{name}")
    if spec.get("inherit_outcome") and target is not None:
        for o in target.get("outcomes") or {}:
            _outcome(c, o, path + ("call",), ctx)
    return {"procedure": callee, "with": tuple(args), "as": prefix, "inherit": bool(spec.get("inherit_outcome")),
            "call_where": c.where(path + ("call",))}


STEP_COMPILERS: dict[str, Callable[..., dict[str, Any]]] = {
    "let": _let,
    "roll": _roll,
    "decide": _decide,
    "stop": _stop,
    "if": _if,
    "repeat": _loop,
    "while": _loop,
    "best_of": _best_of,
    "contest": _contest,
    "table": _table,
    "call": _call,
}
