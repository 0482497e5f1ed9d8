"""Checking a loaded document against the JSON Schema, with every error placed and worded plainly."""

from __future__ import annotations

import difflib
import json
from functools import lru_cache
from typing import Any, Iterator

import jsonschema
from jsonschema.exceptions import ValidationError

from .errors import Location, SchemaViolation
from .resources import schema_path

_TYPE_WORDS = {
    "string": "text", "integer": "a whole number", "boolean": "true or false", "object": "a mapping",
    "array": "a list", "null": "nothing", "number": "a number",
}


@lru_cache(maxsize=None)
def schema(name: str = "ruleset.schema.json") -> dict[str, Any]:
    """The bundled JSON schema, read once."""
    with open(schema_path(name), encoding="utf-8") as handle:
        return json.load(handle)  # type: ignore[no-any-return]


@lru_cache(maxsize=None)
def _validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema(name))


def suggest(word: str, choices: list[str]) -> str | None:
    """A 'did you mean' hint for a misspelt word, or None."""
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if not close:
        lowered = {c.lower(): c for c in choices}
        if word.lower() in lowered:
            close = [lowered[word.lower()]]
    return f"did you mean '{close[0]}'?" if close else None


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the text '{value}'" if len(value) < 40 else "text"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing"
    return type(value).__name__


def _forms(error: ValidationError) -> list[str]:
    keys = []
    for branch in error.validator_value:
        required = branch.get("required") or []
        if required:
            keys.append(required[0])
    return keys


def _best_branch(error: ValidationError) -> list[ValidationError] | None:
    """The errors of the oneOf branch the author most likely meant, or None when no branch fits."""
    by_branch: dict[int, list[ValidationError]] = {}
    for sub in error.context or ():
        by_branch.setdefault(sub.schema_path[0], []).append(sub)
    candidates = []
    for index, branch in enumerate(error.validator_value):
        subs = by_branch.get(index, [])
        shallow = [s for s in subs if not s.relative_path and s.validator in ("type", "required")]
        if shallow:
            continue
        candidates.append((len(subs), index, subs))
    if not candidates:
        return None
    candidates.sort(key=lambda c: (c[0], c[1]))
    return candidates[0][2]


def _messages(error: ValidationError, doc: Any) -> Iterator[tuple[tuple[Any, ...], bool, str, str | None]]:
    """(path, at_key, message, hint) for one jsonschema error, worded for a game master."""
    path = tuple(error.absolute_path)
    kind = error.validator
    instance = error.instance
    if kind == "required":
        for key in error.validator_value:
            if isinstance(instance, dict) and key not in instance:
                yield path, bool(path), f"missing required key '{key}'", None
    elif kind == "additionalProperties":
        allowed = list(error.schema.get("properties", {}))
        for key in instance:
            if key not in allowed:
                hint = suggest(key, allowed)
                if hint is None and allowed:
                    hint = "allowed keys: " + ", ".join(allowed)
                yield path + (key,), True, f"unknown key '{key}'", hint
    elif kind == "type":
        wanted = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        words = " or ".join(_TYPE_WORDS.get(w, w) for w in wanted)
        yield path, False, f"expected {words}, got {_describe(instance)}", None
    elif kind == "enum":
        choices = [str(c) for c in error.validator_value]
        yield path, False, f"'{instance}' is not one of: {', '.join(choices)}", suggest(str(instance), choices)
    elif kind == "pattern":
        yield path, bool(path) and isinstance(instance, str), f"'{instance}' is not a valid name: use letters, digits and _, not starting with a digit", None
    elif kind == "propertyNames":
        yield path, False, error.message, None
    elif kind in ("minItems", "maxItems"):
        bound = error.validator_value
        word = "at least" if kind == "minItems" else "at most"
        yield path, False, f"needs {word} {bound} item{'s' if bound != 1 else ''}", None
    elif kind == "oneOf":
        best = _best_branch(error)
        if best is None:
            forms = _forms(error)
            if isinstance(instance, dict) and forms:
                present = [k for k in instance if isinstance(k, str)]
                hint = next((suggest(k, forms) for k in present if suggest(k, forms)), None)
                yield path, False, f"a step needs one of the keys: {', '.join(forms)}", hint
            else:
                yield path, False, f"{_describe(instance)} does not fit here", None
            return
        for sub in best:
            yield from _messages(sub, doc)
    else:
        yield path, False, error.message, None


def _property_name_error(error: ValidationError) -> tuple[tuple[Any, ...], str] | None:
    if error.validator == "propertyNames":
        return tuple(error.absolute_path), str(error.instance)
    return None


def iter_errors(doc: Any, schema_name: str = "ruleset.schema.json") -> Iterator[SchemaViolation]:
    """Every schema violation of a loaded document, placed at its line and column."""
    for error in _validator(schema_name).iter_errors(doc.data):
        bad_name = _property_name_error(error)
        if bad_name is not None:
            path, _ = bad_name
            for key in error.instance if isinstance(error.instance, dict) else ():
                pass
            name = error.instance
            yield SchemaViolation(
                f"'{name}' is not a valid name: use letters, digits and _, not starting with a digit",
                doc.where(path + (name,), key=True))
            continue
        for path, at_key, message, hint in _messages(error, doc):
            yield SchemaViolation(message, doc.where(path, key=at_key), hint)


def sorted_unique(problems: list[Any]) -> list[Any]:
    """Problems sorted by position, each once."""
    seen = set()
    out = []
    for problem in problems:
        where = problem.where or Location()
        key = (where.file, where.line, where.col, problem.message)
        if key not in seen:
            seen.add(key)
            out.append(problem)
    out.sort(key=lambda p: ((p.where or Location()).line, (p.where or Location()).col))
    return out
