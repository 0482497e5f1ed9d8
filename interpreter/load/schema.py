"""Checking a loaded document against the JSON Schema, with every error placed and worded plainly."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any, NamedTuple, Protocol

import jsonschema
from jsonschema.exceptions import ValidationError

from interpreter import limits
from interpreter.errors import Location, SchemaViolation
from interpreter.hints import closest, suggest
from interpreter.load.bundled import schema_file
from interpreter.load.document import Path
from interpreter.load.shape import whole_pattern
from interpreter.words import value_text

_TYPE_WORDS = {
    "string": "text", "integer": "a whole number", "boolean": "true or false", "object": "a mapping",
    "array": "a list", "null": "nothing", "number": "a number",
}

ID_RULE = ("use lowercase letters, digits, _ and -, starting with a letter "
           "(on the command line a word starting with a digit may be dice, such as 2d20)")

# How each name pattern of the schema is explained: (what the thing is, the rule in words).
_PATTERN_WORDS = {
    "^[A-Za-z_][A-Za-z0-9_]*$": ("name", "use letters, digits and _, not starting with a digit"),
    "^[a-z][a-z0-9_-]*$": ("ruleset id", ID_RULE),
}


@cache
def schema(name: str = "ruleset.schema.json") -> dict[str, object]:
    """The bundled JSON schema, read once."""
    with open(schema_file(name), encoding="utf-8") as handle:
        return json.load(handle)  # type: ignore[no-any-return]


@cache
def _validator(name: str) -> Any:
    """jsonschema's validator of a bundled schema, with oneOf and pattern checked as the shape check does."""
    from interpreter.load.keywords import one_of, pattern

    kind = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"oneOf": one_of, "pattern": pattern})
    return kind(schema(name))


def _describe(value: object) -> str:
    if isinstance(value, bool):
        return value_text(value)
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        if not value:
            return "empty text"
        return f"the text '{value}'" if len(value) < 40 and "\n" not in value else "text"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing"
    return type(value).__name__


# Type lists of the schema that stand for one thing a game master writes.
_TYPE_SETS = {("string", "integer", "boolean"): "a formula", ("string", "integer"): "a dice expression"}


def _words(types: list[str]) -> str:
    if tuple(types) in _TYPE_SETS:
        return _TYPE_SETS[tuple(types)]
    words = [_TYPE_WORDS.get(t, t) for t in types]
    if len(words) <= 2:
        return " or ".join(words)
    return ", ".join(words[:-1]) + " or " + words[-1]


class Placing(Protocol):
    """What the check reads: a document's data, and where a path of it is written (a Document, or a stand-in)."""

    @property
    def data(self) -> object: ...

    def where(self, path: Path, *, key: bool = False) -> Location: ...


class _Message(NamedTuple):
    """One problem found by the schema, before it is placed in the file."""

    path: Path
    at_key: bool
    text: str
    hint: str | None = None
    missing: str | None = None    # the key a "missing required key" message is about
    typo_of: str | None = None    # the known key an unknown key is probably a misspelling of


def _types_of(branch: dict[str, Any]) -> list[str]:
    kind = branch.get("type")
    if kind is None:
        return []
    return list(kind) if isinstance(kind, list) else [kind]


def _fits(branch: dict[str, object], instance: object, schema_name: str) -> bool:
    """Whether the instance has one of the types a oneOf branch allows (any, when it names none)."""
    types = _types_of(branch)
    checker = _validator(schema_name)
    return not types or any(checker.is_type(instance, t) for t in types)


def _noun(error: ValidationError) -> str:
    """What the schema holding a oneOf calls one of its values: "One step of ..." gives "step"."""
    found = re.match(r"One ([a-z][a-z ]*?)(?: of\b|[.:,;])", str(error.schema.get("description", "")))
    return found.group(1) if found else "entry"


def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def _one_of(error: ValidationError, schema_name: str) -> Iterator[_Message]:
    """The messages for a value that fits none of several forms, taken from the form it was meant as."""
    path = tuple(error.absolute_path)
    instance = error.instance
    branches: list[dict[str, Any]] = error.validator_value
    by_branch: dict[int, list[ValidationError]] = {}
    for sub in error.context or ():
        by_branch.setdefault(sub.schema_path[0], []).append(sub)

    def from_branch(index: int) -> Iterator[_Message]:
        subs = by_branch.get(index, [])
        if not subs:  # it fits this branch: the trouble is that it fits another one too
            yield _Message(path, False, f"{_describe(instance)} fits more than one form here")
        for sub in subs:
            yield from _messages(sub, schema_name)

    fitting = [i for i, branch in enumerate(branches) if _fits(branch, instance, schema_name)]
    if not fitting:
        wanted: list[str] = []
        for branch in branches:
            wanted += [t for t in _types_of(branch) if t not in wanted]
        if wanted:
            yield _Message(path, False, f"expected {_words(wanted)}, got {_describe(instance)}")
        else:
            yield _Message(path, False, f"{_describe(instance)} does not fit here")
        return
    if len(fitting) == 1:
        yield from from_branch(fitting[0])
        return
    # Several forms of the same type: mappings told apart by a key only one of them has
    # (a step's kind).  The form whose key is present is the one meant.
    kinds = [branches[i]["required"][0] for i in fitting if branches[i].get("required")]
    if isinstance(instance, dict) and len(kinds) == len(fitting):
        what = _noun(error)
        present = [k for k in kinds if k in instance]
        if len(present) == 1:
            yield from from_branch(fitting[kinds.index(present[0])])
            return
        if len(present) > 1:
            listed = ", ".join(f"'{k}'" for k in present[:-1]) + f" and '{present[-1]}'"
            yield _Message(path, False, f"{_a(what)} has exactly one {what} key; this one has {listed}",
                           f"split it into {len(present)} {what}s")
            return
        known = {key for i in fitting for key in branches[i].get("properties", {})}
        unknown = [k for k in instance if k not in known]
        for key in unknown:
            close = closest(str(key), kinds)
            hint = f"did you mean '{close}'?" if close else f"{_a(what)} is one of: " + ", ".join(kinds)
            yield _Message(path + (key,), True, f"unknown {what} kind '{key}'", hint)
        if not unknown:
            yield _Message(path, False, f"{_a(what)} needs one of the keys: " + ", ".join(kinds))
        return
    # Otherwise: the branch with the fewest complaints.
    best = min(fitting, key=lambda i: len(by_branch.get(i, [])))
    yield from from_branch(best)


def _pattern(error: ValidationError) -> _Message:
    """A name that breaks the naming rule: a value, or a mapping key (checked by propertyNames)."""
    path = tuple(error.absolute_path)
    value = error.instance
    is_key = len(error.schema_path) >= 2 and error.schema_path[-2] == "propertyNames"
    what, rule = _PATTERN_WORDS.get(error.validator_value, ("name", f"it must match {error.validator_value}"))
    hint = None
    candidate = re.sub(r"[\s-]+" if what == "name" else r"\s+", "_", str(value).strip())
    if what != "name":
        candidate = candidate.lower()
    if candidate != value and whole_pattern(error.validator_value).search(candidate):
        hint = f"did you mean '{candidate}'?"
    if is_key:
        return _Message(path + (value,), True, f"'{value}' is not a valid {what}: {rule}", hint)
    return _Message(path, False, f"'{value}' is not a valid {what}: {rule}", hint)


def _messages(error: ValidationError, schema_name: str) -> Iterator[_Message]:
    """The messages for one jsonschema error, worded for a game master."""
    kind = error.validator
    if kind == "oneOf":
        return _one_of(error, schema_name)
    if kind == "pattern":
        return iter([_pattern(error)])
    worded = _WORDED.get(kind)
    if worded is None:
        return iter([_Message(tuple(error.absolute_path), False, error.message)])
    return worded(error, tuple(error.absolute_path))


def _required(error: ValidationError, path: Path) -> Iterator[_Message]:
    for key in error.validator_value:
        if isinstance(error.instance, dict) and key not in error.instance:
            yield _Message(path, bool(path), f"missing required key '{key}'", missing=key)


def _unknown_keys(error: ValidationError, path: Path) -> Iterator[_Message]:
    allowed = list(error.schema.get("properties", {}))
    unknown = 0
    for key in error.instance:
        if key not in allowed:
            unknown += 1  # (past the problems a command shows, no key is compared with the allowed ones)
            close = closest(str(key), allowed) if unknown <= limits.MAX_REPORTED_PROBLEMS else None
            if close:
                hint: str | None = f"did you mean '{close}'?"
            elif allowed:
                hint = "allowed keys: " + ", ".join(allowed)
            else:
                hint = None
            yield _Message(path + (key,), True, f"unknown key '{key}'", hint, typo_of=close)


def _wrong_type(error: ValidationError, path: Path) -> Iterator[_Message]:
    wanted = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
    instance = error.instance
    if isinstance(instance, float) and "integer" in wanted:
        yield _Message(path, False, f"only whole numbers are allowed, not {instance}")
    else:
        yield _Message(path, False, f"expected {_words(wanted)}, got {_describe(instance)}")


def _not_listed(error: ValidationError, path: Path) -> Iterator[_Message]:
    choices = [str(c) for c in error.validator_value]
    instance = error.instance
    if isinstance(instance, str):
        yield _Message(path, False, f"'{instance}' is not one of: {', '.join(choices)}", suggest(instance, choices))
    else:
        yield _Message(path, False, f"expected one of: {', '.join(choices)}; got {_describe(instance)}")


def _items(error: ValidationError, path: Path) -> Iterator[_Message]:
    bound = error.validator_value
    word = "at least" if error.validator == "minItems" else "at most"
    count = len(error.instance) if isinstance(error.instance, list) else 0
    yield _Message(path, False, f"needs {word} {bound} item{'s' if bound != 1 else ''}, has {count}")


def _bound(error: ValidationError, path: Path) -> Iterator[_Message]:
    word = "at least" if error.validator == "minimum" else "at most"
    yield _Message(path, False, f"must be {word} {error.validator_value}, not {error.instance}")


def _repeated(error: ValidationError, path: Path) -> Iterator[_Message]:
    yield _Message(path, False, "lists the same item more than once")


def _entries(error: ValidationError, path: Path) -> Iterator[_Message]:
    word = "at least" if error.validator == "minProperties" else "at most"
    yield _Message(path, False, f"needs {word} {error.validator_value} "
                                f"entr{'ies' if error.validator_value != 1 else 'y'}")


# How each kind of jsonschema error is worded (oneOf and pattern, which need more, aside).
_WORDED: dict[str, Callable[[ValidationError, Path], Iterator[_Message]]] = {
    "required": _required, "additionalProperties": _unknown_keys, "type": _wrong_type, "enum": _not_listed,
    "minItems": _items, "maxItems": _items, "minimum": _bound, "maximum": _bound, "uniqueItems": _repeated,
    "minProperties": _entries, "maxProperties": _entries,
}


_Splits = dict[object, tuple[str, set[object]]]


def _split_formula(data: object, m: _Message, known: dict[int, tuple[object, _Splits]]) -> _Message:
    """A key that is the rest of a formula YAML split at a comma (`{focus: min(f, t)}` reads as `focus: min(f`
    and a key `t)`), or a problem inside one: said so, at the formula, with the quoted formula as the remedy.

    ``known`` keeps each mapping's splits (by identity, the mapping kept alongside) for the next message:
    60,000 unknown keys of one mapping look at its keys once, not 60,000 times."""
    mapping, depth = data, 0
    for depth, step in enumerate(m.path):  # a mapping on the path with a split formula in it
        if isinstance(mapping, list) and isinstance(step, int) and 0 <= step < len(mapping):
            mapping = mapping[step]
            continue
        if not isinstance(mapping, dict):
            break
        if id(mapping) not in known:
            known[id(mapping)] = (mapping, _splits(mapping))
        for name, (text, pieces) in known[id(mapping)][1].items():
            if step in pieces and isinstance(name, str):
                return _Message(m.path[:depth] + (name,), True, f"the formula of '{name}' was split at a comma: in a "
                                "mapping written {...} YAML ends a value at each comma", f'quote the formula: {name}: "{text}"')
        mapping = mapping.get(step)
    return m


def _splits(mapping: dict[object, object]) -> _Splits:
    """The formulas of a mapping that YAML split at commas: name -> (the formula whole, the keys it was split into)."""
    out: _Splits = {}
    items = list(mapping.items())
    i = 0
    while i < len(items):
        name, value = items[i]
        i += 1
        if not isinstance(value, str) or value.count("(") <= value.count(")"):
            continue
        text, pieces, depth = value, set(), value.count("(") - value.count(")")
        while depth > 0 and i < len(items):
            piece, rest = items[i]
            i += 1
            part = str(piece) + ("" if rest is None else f": {rest}")
            text, depth = f"{text}, {part}", depth + part.count("(") - part.count(")")
            pieces.add(piece)
        out[name] = (text, pieces)
    return out


def iter_errors(doc: Placing, schema_name: str = "ruleset.schema.json") -> Iterator[SchemaViolation]:
    """Every schema violation of a loaded document, placed at its line and column.

    A missing required key is not reported when the same mapping has an unknown key that
    is probably that key misspelt: ``stpes:`` is one mistake, reported once.
    """
    found = [m for error in _validator(schema_name).iter_errors(doc.data) for m in _messages(error, schema_name)]
    known: dict[int, tuple[object, _Splits]] = {}
    found = [_split_formula(doc.data, m, known) for m in found]
    misspelt = {(m.path[:-1], m.typo_of) for m in found if m.typo_of is not None}
    seen = set()
    for m in found:
        if m.missing is not None and (m.path, m.missing) in misspelt:
            continue
        if (m.path, m.at_key, m.text) in seen:
            continue
        seen.add((m.path, m.at_key, m.text))
        yield SchemaViolation(m.text, doc.where(m.path, key=m.at_key), m.hint)


