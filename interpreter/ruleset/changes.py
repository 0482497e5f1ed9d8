"""What differs between two rulesets' documents: every changed value by JSON path, and which
procedures may behave differently because of it.

A list of steps where some step has a name is compared step by step: a named step by its name
(``$.procedures.attack.steps[crit_damage].let.damage``), wherever a patch moved it, and the others
by position among the steps that are not the same on both sides."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from interpreter.load.document import json_path
from interpreter.load.patches import NESTED
from interpreter.record import record

Data = Mapping[str, Any]  # a ruleset's document, as loaded
IDENTITY = ("ruleset", "extends", "examples")  # keys that name a file or hold worked examples, not rules
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SECTIONS = ("constants", "dice", "tables", "derived", "procedures", "traits")
_SHEET_SECTIONS = ("traits", "derived", "sheet")  # what a procedure working on a sheet may read
_PROSE = {"summary", "help", "label", "refs", "title", "text", "description", "message"}
_REPORTED = ("outcomes", "values", "samples")  # a procedure's descriptions of what it reports, and its samples
_EFFECT_READS = ("change", "when")  # the parts of an effect whose names it reads (its selector names procedures)
_STEP_LISTS = NESTED  # the keys that hold lists of steps


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: object = _Missing()


@record
class Change:
    """One value that differs: `before` or `after` is MISSING when the value was added or removed."""

    path: str
    before: object
    after: object

    @property
    def kind(self) -> str:
        return "added" if self.before is MISSING else "removed" if self.after is MISSING else "changed"


def changes(before: Mapping[str, object], after: Mapping[str, object]) -> list[Change]:
    """Every value that differs between two documents, in document order (the base's keys first)."""
    top_before = {k: v for k, v in before.items() if k not in IDENTITY}
    top_after = {k: v for k, v in after.items() if k not in IDENTITY}
    return list(_walk(top_before, top_after, ()))


class _Named(str):
    """A step's name standing in a path for its index: written ``[name]``."""

    __slots__ = ()


def _text(path: tuple[str | int, ...]) -> str:
    out = "$"
    for step in path:
        out += f"[{step}]" if isinstance(step, _Named) else json_path((step,))[1:]
    return out


def _name(item: object) -> str | None:
    name = item.get("name") if isinstance(item, Mapping) else None
    return name if isinstance(name, str) else None


def _by_name(before: Sequence[object], after: Sequence[object], path: tuple[str | int, ...]) -> Iterator[Change]:
    """Two lists of steps compared: named steps by name, the others by where they differ."""
    import difflib

    old = {n: item for item in before if (n := _name(item)) is not None}
    new = {n: item for item in after if (n := _name(item)) is not None}
    for name in list(old) + [n for n in new if n not in old]:
        yield from _walk(old.get(name, MISSING), new.get(name, MISSING), path + (_Named(name),))

    def key(item: object) -> str:
        return f"name {_name(item)}" if _name(item) is not None else json.dumps(item, sort_keys=True, default=str)

    matcher = difflib.SequenceMatcher(None, [key(x) for x in before], [key(x) for x in after], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        gone = [(i, before[i]) for i in range(i1, i2) if _name(before[i]) is None]
        came = [(j, after[j]) for j in range(j1, j2) if _name(after[j]) is None]
        if tag == "equal":
            continue
        if len(gone) == len(came):
            for (_, a), (j, b) in zip(gone, came, strict=True):
                yield from _walk(a, b, path + (j,))
        else:
            yield from (Change(_text(path + (i,)), a, MISSING) for i, a in gone)
            yield from (Change(_text(path + (j,)), MISSING, b) for j, b in came)


def _walk(before: Any, after: Any, path: tuple[Any, ...]) -> Iterator[Change]:
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        for key in list(before) + [k for k in after if k not in before]:
            yield from _walk(before.get(key, MISSING), after.get(key, MISSING), path + (key,))
    elif (isinstance(before, list) and isinstance(after, list) and path and path[-1] in _STEP_LISTS
          and any(_name(x) is not None for x in before + after)):
        yield from _by_name(before, after, path)
    elif (isinstance(before, list) and isinstance(after, list) and len(before) == len(after)
          and any(isinstance(v, (Mapping, list)) for v in before)):
        for i, (old, new) in enumerate(zip(before, after, strict=True)):
            yield from _walk(old, new, path + (i,))
    elif not _same(before, after):
        yield Change(_text(path), before, after)


def _same(a: object, b: object) -> bool:
    return type(a) is type(b) and a == b


def _names(value: object) -> set[str]:
    """Every word in the text of a value, prose left out: the names a formula, dice expression or step may use."""
    if isinstance(value, Mapping):
        return {n for k, v in value.items() if k not in _PROSE for n in _names(v)}  # keys name what they define
    if isinstance(value, list):
        return {n for v in value for n in _names(v)}
    if isinstance(value, str):
        return set(_NAME.findall(value))
    return set()


def _uses(data: Data, start: tuple[str, str], reached: Mapping[str, Iterable[str]]) -> set[tuple[str, str]]:
    """The (section, name) entries a procedure (or effect) may depend on, followed through constants, dice,
    tables, derived values, called procedures and the effects that reach it (`reached`: procedure -> effect
    names); a sheet procedure depends on the whole sheet."""
    found: set[tuple[str, str]] = set()
    todo = [start]
    while todo:
        section, name = todo.pop()
        if (section, name) in found:
            continue
        found.add((section, name))
        spec = data.get(section) if name == "*" else (data.get(section) or {}).get(name)
        if section == "procedures" and isinstance(spec, Mapping) and spec.get("sheet", "none") != "none":
            todo += [(s, "*") for s in _SHEET_SECTIONS]
        if section == "procedures":
            todo += [("effects", effect) for effect in reached.get(name, ())]
        if section == "procedures" and isinstance(spec, Mapping):
            spec = {k: v for k, v in spec.items() if k not in _REPORTED}
        if section == "effects" and isinstance(spec, Mapping):
            spec = {k: v for k, v in spec.items() if k in _EFFECT_READS}
        for word in _names(spec):
            for other in _SECTIONS:
                if word in (data.get(other) or {}) and (other, word) not in found:
                    todo.append((other, word))
    return found


def _part(data: Mapping[str, object], section: str, name: str) -> object:
    value = data.get(section, MISSING)
    if name == "*" or value is MISSING:
        return value
    return value.get(name, MISSING) if isinstance(value, Mapping) else MISSING


def affected(before: Data, after: Data,
             reached: Mapping[str, Iterable[str]] | None = None) -> list[str]:
    """The procedures of both documents whose definition, or anything they use, differs; `reached` maps a
    procedure to the effects that reach it (in either ruleset), whose changes count too."""
    names = list(before.get("procedures") or {})
    names += [n for n in (after.get("procedures") or {}) if n not in names]
    out = []
    for name in names:
        uses = _uses(before, ("procedures", name), reached or {}) | _uses(after, ("procedures", name), reached or {})
        if any(not _deep_same(_part(before, s, n), _part(after, s, n)) for s, n in uses):
            out.append(name)
    return out


def touched_effects(before: Data, after: Data) -> list[str]:
    """The effects of both documents that differ, or whose change or switch reads something that differs."""
    names = list(before.get("effects") or {})
    names += [n for n in (after.get("effects") or {}) if n not in names]
    return [name for name in names
            if any(not _deep_same(_part(before, s, n), _part(after, s, n))
                   for s, n in _uses(before, ("effects", name), {}) | _uses(after, ("effects", name), {}))]


def _deep_same(a: object, b: object) -> bool:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_deep_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_deep_same(x, y) for x, y in zip(a, b, strict=True))
    return _same(a, b)


__all__ = ["MISSING", "Change", "Data", "affected", "changes", "touched_effects"]
