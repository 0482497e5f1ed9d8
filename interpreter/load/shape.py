"""The shape check: the ruleset schema compiled once into a yes-or-no test that takes a few milliseconds.

Every ruleset document is checked with it before use, whether it was parsed just now or read
back from the parse cache, so that nothing the schema refuses ever reaches the compiler (a cache
record is never trusted more than the file).  Only a document that fails it is checked again by
jsonschema (:mod:`interpreter.load.schema`), to say what is wrong and where; a valid document
never imports jsonschema.

It reads the schema itself, keyword by keyword, with jsonschema's meaning of each (draft 2020-12:
``1.0`` is an integer, ``true`` is not 1), two things aside that both checks share: a ``pattern``
ending in ``$`` must match the whole string (``$`` does not match before a final newline), and a
``oneOf`` whose branches are mappings told apart by a required key looks only at the branch whose
key the value holds.  A keyword it does not know makes compiling it fail, so a schema cannot grow
a rule this check would silently skip.  Mappings are checked cheapest first (their keys before
their values), and every check stops at the first thing wrong, so the time is linear in the size
of the document however deeply its steps nest.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

__all__ = ["Check", "compile_schema", "whole_pattern"]

Check = Callable[[object], bool]

_KEYWORDS = frozenset({
    "type", "enum", "minLength", "pattern", "minimum", "maximum", "required", "properties", "additionalProperties",
    "propertyNames", "minProperties", "items", "minItems", "maxItems", "uniqueItems", "oneOf", "$ref",
})
_NOTES = frozenset({"description", "title", "$schema", "$id", "$defs", "$comment", "default", "examples"})


@cache
def whole_pattern(pattern: str) -> re.Pattern[str]:
    """A schema pattern compiled so that a final ``$`` means the end of the string, as in JSON Schema."""
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    if "$" in pattern.replace("\\$", ""):
        raise ValueError(f"the shape check takes '$' only at the end of a pattern: {pattern!r}")
    return re.compile(pattern)


def _is_integer(x: Any) -> bool:
    kind = type(x)
    return kind is int or kind is float and x.is_integer()


_TYPES: dict[str, Check] = {
    "object": lambda x: type(x) is dict,
    "array": lambda x: type(x) is list,
    "string": lambda x: type(x) is str,
    "integer": _is_integer,
    "number": lambda x: type(x) is int or type(x) is float,
    "boolean": lambda x: type(x) is bool,
    "null": lambda x: x is None,
}


def _canonical(x: Any) -> Any:
    """A hashable stand-in for a JSON value, equal where jsonschema calls two values equal (true is not 1)."""
    kind = type(x)
    if kind is bool:
        return ("bool", x)
    if kind is dict:
        return ("object", frozenset((k, _canonical(v)) for k, v in x.items()))
    if kind is list:
        return ("array", tuple(_canonical(v) for v in x))
    return ("value", x)


def _type_check(wanted: Any) -> Check:
    names = wanted if isinstance(wanted, list) else [wanted]
    checks = tuple(_TYPES[name] for name in names)
    if len(checks) == 1:
        return checks[0]
    return lambda x: any(check(x) for check in checks)


class _Compiler:
    """Compiles the nodes of one schema into checks, each node once (a ``$ref`` may point back up)."""

    def __init__(self, root: dict[str, object]):
        self.root = root
        self.made: dict[int, Check] = {}
        self.cells: dict[int, list[Check]] = {}

    def node(self, schema: object) -> Check:
        if schema is True:
            return lambda x: True
        if schema is False:
            return lambda x: False
        if not isinstance(schema, dict):
            raise TypeError(f"not a schema: {schema!r}")
        key = id(schema)
        if key in self.made:
            return self.made[key]
        cell: list[Check] = []
        self.cells[key] = cell
        self.made[key] = lambda x: cell[0](x)  # (for a $ref that reaches this node while it is compiled)
        check = self._build(schema)
        cell.append(check)
        self.made[key] = check
        return check

    def ref(self, pointer: str) -> Check:
        if not pointer.startswith("#/"):
            raise ValueError(f"the shape check follows only local references, not {pointer!r}")
        target: Any = self.root
        for part in pointer[2:].split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        return self.node(target)

    def _build(self, schema: dict[str, Any]) -> Check:
        unknown = set(schema) - _KEYWORDS - _NOTES
        if unknown:
            raise ValueError(f"the shape check does not know the keyword(s) {sorted(unknown)}")
        checks: list[Check] = []  # cheapest first
        if "type" in schema:
            checks.append(_type_check(schema["type"]))
        if "enum" in schema:
            allowed = frozenset(_canonical(v) for v in schema["enum"])
            checks.append(lambda x: _canonical(x) in allowed)
        if "minLength" in schema:
            least = schema["minLength"]
            checks.append(lambda x: type(x) is not str or len(x) >= least)
        if "pattern" in schema:
            search = whole_pattern(schema["pattern"]).search
            checks.append(lambda x: type(x) is not str or search(x) is not None)
        for word, holds in (("minimum", lambda x, b: x >= b), ("maximum", lambda x, b: x <= b)):
            if word in schema:
                checks.append(_bound(schema[word], holds))
        checks.extend(self._object(schema))
        checks.extend(self._array(schema))
        if "oneOf" in schema:
            checks.append(self._one_of(schema["oneOf"]))
        if "$ref" in schema:
            checks.append(self.ref(schema["$ref"]))
        if not checks:
            return lambda x: True
        if len(checks) == 1:
            return checks[0]
        every = tuple(checks)

        def each(x: object) -> bool:
            for check in every:  # noqa: SIM110  (a loop: all() of a generator costs more on this hot path)
                if not check(x):
                    return False
            return True

        return each

    def _object(self, schema: dict[str, Any]) -> list[Check]:
        keywords = ("required", "properties", "additionalProperties", "minProperties", "propertyNames")
        if not any(word in schema for word in keywords):
            return []
        required = tuple(schema.get("required", ()))
        properties = {k: self.node(v) for k, v in schema.get("properties", {}).items()}
        extra = schema.get("additionalProperties", True)
        known = frozenset(properties) if extra is False else None
        rest = self.node(extra) if extra is not True and extra is not False else None
        least = schema.get("minProperties", 0)
        name = self.node(schema["propertyNames"]) if "propertyNames" in schema else None

        def check(x: object) -> bool:  # (one function, the keys before the values: this is the check's hot path)
            if type(x) is not dict:
                return True
            for key in required:
                if key not in x:
                    return False
            if known is not None and not known.issuperset(x):
                return False
            if len(x) < least:
                return False
            if name is not None:
                for key in x:
                    if not name(key):
                        return False
            for key, value in x.items():
                inner = properties.get(key, rest)
                if inner is not None and not inner(value):
                    return False
            return True

        return [check]

    def _array(self, schema: dict[str, Any]) -> list[Check]:
        least, most = schema.get("minItems", 0), schema.get("maxItems")
        item = self.node(schema["items"]) if "items" in schema else None
        unique = schema.get("uniqueItems") is True
        if not (least or most is not None or item is not None or unique):
            return []

        def check(x: object) -> bool:
            if type(x) is not list:
                return True
            if len(x) < least or most is not None and len(x) > most:
                return False
            if item is not None:
                for value in x:
                    if not item(value):
                        return False
            return not unique or len({_canonical(v) for v in x}) == len(x)

        return [check]

    def _one_of(self, branches: list[object]) -> Check:
        checks = tuple(self.node(branch) for branch in branches)
        keys = [branch.get("required", [None])[0] if isinstance(branch, dict) and branch.get("type") == "object"
                else None for branch in branches]
        if all(keys) and len(set(keys)) == len(keys):
            # Mappings told apart by a key: a value with one such key can fit only that branch (the
            # others require their own key); one with none or several is tested against every branch.
            by_key = dict(zip(keys, checks, strict=True))

            def keyed(x: object) -> bool:
                if type(x) is dict:
                    present = [by_key[k] for k in x if k in by_key]
                    if len(present) == 1:
                        return present[0](x)
                return _exactly_one(checks, x)

            return keyed
        return lambda x: _exactly_one(checks, x)


def _exactly_one(checks: tuple[Check, ...], x: object) -> bool:
    found = 0
    for check in checks:
        if check(x):
            found += 1
            if found > 1:
                return False
    return found == 1


def _bound(bound: object, holds: Callable[[object, object], bool]) -> Check:
    return lambda x: type(x) not in (int, float) or holds(x, bound)


def compile_schema(schema: dict[str, object]) -> Check:
    """The yes-or-no test of a whole schema: whether a document is valid under it."""
    return _Compiler(schema).node(schema)


@cache
def ruleset_shape() -> Check:
    """The shape check of the bundled ruleset schema, compiled when first needed."""
    import json

    from interpreter.load.bundled import schema_file

    with open(schema_file(), encoding="utf-8") as handle:
        return compile_schema(json.load(handle))
