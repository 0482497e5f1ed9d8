"""Character sheets as formula names: binding a sheet, keeping derived names fresh, and writing changes back.

A sheet file holds `ruleset`, `name`, `traits`, `choices` and `state`. Bound for a
procedure, it becomes names: traits, derived values, state values, `T_current` and
`T_max` of a current/max track, `T_size`, `T_filled`, `T_rightmost`, `T_penalty`,
`T_full` and one count per damage type of a box track, and `R` and `R_max` of a
resource. Procedures change those names; `changed_paths` turns the difference back
into sheet paths.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from interpreter.errors import BadParameter, Location
from interpreter.hints import suggest
from interpreter.ruleset.derived import evaluate_derived, refresh, statuses
from interpreter.ruleset.entries import FIELD, named_traits, trait_fields
from interpreter.ruleset.model import CompiledRuleset, SheetSpec, Track
from interpreter.ruleset.tables import table_functions
from interpreter.ruleset.tracks import EMPTY, MARKS, as_written, boxes_written, drawable

if TYPE_CHECKING:
    from interpreter.load.document import Document


def _number(value: object, what: str, where: Location | None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadParameter(f"{what} must be a whole number, not {value!r}", where)
    return value


def _at(doc: Document | None, path: tuple[Any, ...]) -> Location | None:
    return doc.where(path) if doc is not None else None


def bind(ruleset: CompiledRuleset, data: Mapping[str, Any], doc: Document | None = None) -> dict[str, Any]:
    """The names of a sheet's data for a procedure run; missing values take their defaults."""
    spec: SheetSpec | None = ruleset.sheet
    env: dict[str, object] = dict(ruleset.constants)
    traits = data.get("traits") or {}
    state = data.get("state") or {}
    for name, trait in ruleset.traits.items():
        value = traits.get(name, trait.default if trait.default is not None else 0)
        env[name] = _number(value, f"trait '{name}'", _at(doc, ("traits", name)))
    unknown = [k for k in traits if k not in ruleset.traits]
    if unknown:
        raise BadParameter(f"unknown trait '{unknown[0]}'", _at(doc, ("traits", unknown[0])),
                           suggest(unknown[0], list(ruleset.traits)))
    if spec is not None:  # field flags first: derived values and track sizes may read them
        _choices(ruleset, spec, data.get("choices") or {}, env)
    evaluate_derived(ruleset, env, with_state=False)
    if spec is None:
        return env
    functions = table_functions(ruleset)
    for name, value in spec.state.items():
        raw = state.get(name)
        if raw is None:
            raw = value.default.evaluate(env, functions)
        env[name] = bool(raw) if value.type == "flag" else _number(raw, f"state '{name}'", _at(doc, ("state", name)))
    evaluate_derived(ruleset, env)  # now those that read state values too
    for track in spec.tracks.values():
        if track.kind == "current_max":
            _current_max(track, state.get(track.name), env, functions, doc)
        else:
            env[MARKS + track.name] = _marks(track, state.get(track.name), doc)
    for resource in spec.resources.values():
        raw = state.get(resource.name)
        if raw is None:
            raw = (resource.start or resource.max).evaluate(env, functions)
        env[resource.name] = _number(raw, f"resource '{resource.name}'", _at(doc, ("state", resource.name)))
    refresh(ruleset, env, doc)
    return env


def _current_max(track: Track, raw: object, env: dict[str, Any], functions: Mapping[str, Any], doc: Document | None) -> None:
    """A current/max track's two names: its maximum (the sheet's, else its formula's) and its current value."""
    assert track.max is not None, "a current_max track has a max"
    top = track.max.evaluate(env, functions)
    written = raw if isinstance(raw, Mapping) else {}
    env[f"{track.name}_max"] = _number(written.get("max", top), f"{track.name} max",
                                       _at(doc, ("state", track.name, "max")))
    env[f"{track.name}_current"] = _number(written.get("current", env[f"{track.name}_max"]),
                                           f"{track.name} current", _at(doc, ("state", track.name, "current")))


def _marks(track: Track, raw: object, doc: Document | None) -> tuple[int, ...]:
    """A box track's marks as numbers: 0 for an empty box, else the rank of its damage type (1 the worst)."""
    text = isinstance(raw, str)
    if text and not drawable(track):
        raise BadParameter(f"state.{track.name} is drawn as text, but its marks are not one character each",
                           _at(doc, ("state", track.name)), "write a list of boxes (a damage type or null each)")
    marks = []
    for i, word in enumerate(boxes_written(raw)):
        if word is None:
            marks.append(0)
        elif word in track.types:
            marks.append(track.types.index(word) + 1)
        elif word in track.marks:
            marks.append(track.marks.index(word) + 1)
        else:
            shown = ", ".join(track.types) if not text else (
                " ".join(track.marks) + f", or {EMPTY} for an empty box")
            raise BadParameter(f"'{word}' is not a " + ("mark" if text else "damage type")
                               + f" of {track.name} ({shown})",
                               _at(doc, ("state", track.name) + (() if text else (i,))))
    return tuple(marks)


def _choices(ruleset: CompiledRuleset, spec: SheetSpec, choices: object, env: dict[str, object]) -> None:
    """The names a sheet's choices give: the traits a field names, and each field flag."""
    for field in trait_fields(ruleset):
        entries = choices.get(field.name) if isinstance(choices, Mapping) else None
        env[FIELD + field.name] = named_traits(ruleset, field, entries if isinstance(entries, list) else ())
    for field in spec.fields.values():  # a field's flags: whether an entry is the one each tells of
        entries = choices.get(field.name) if isinstance(choices, Mapping) else None
        if isinstance(entries, Mapping):  # a points field: an entry holds when it has a point or more
            entries = [k for k, v in entries.items() if isinstance(v, int) and not isinstance(v, bool) and v >= 1]
        chosen = {_entry_key(e) for e in (entries if isinstance(entries, list) else [entries]) if isinstance(e, str)}
        for flag, entry in field.flags.items():
            env[flag] = _entry_key(entry) in chosen


def _entry_key(entry: str) -> str:
    """An entry as fields compare entries: in any letter case, spaces run together."""
    return " ".join(entry.casefold().split())


def sheet_paths(ruleset: CompiledRuleset) -> Iterator[tuple[str, tuple[object, ...]]]:
    """Each env name that is stored on a sheet, with its path in the sheet file."""
    for name in ruleset.traits:
        yield name, ("traits", name)
    spec = ruleset.sheet
    if spec is None:
        return
    for name in spec.state:
        yield name, ("state", name)
    for track in spec.tracks.values():
        if track.kind == "current_max":
            yield f"{track.name}_current", ("state", track.name, "current")
            yield f"{track.name}_max", ("state", track.name, "max")
        else:
            yield MARKS + track.name, ("state", track.name)
    for name in spec.resources:
        yield name, ("state", name)


def _sheet(ruleset: CompiledRuleset) -> SheetSpec:
    assert ruleset.sheet is not None, "only a ruleset with a sheet section binds sheets"
    return ruleset.sheet


def stored(ruleset: CompiledRuleset, name: str, value: Any, like: Any = None) -> Any:
    """An env value as it is written on the sheet: box marks the way the sheet writes the track (see as_written)."""
    if name.startswith(MARKS):
        return as_written(_sheet(ruleset).tracks[name[len(MARKS):]], value, like)
    return value


def changed_paths(ruleset: CompiledRuleset, before: Mapping[str, object], after: Mapping[str, object],
                  data: Mapping[str, object] | None = None) -> list[tuple[tuple[object, ...], object, object]]:
    """(path, old, new) for every stored value a procedure changed, written as the sheet writes it."""
    out = []
    state = (data.get("state") if data is not None else None) or {}
    for name, path in sheet_paths(ruleset):
        if name in after and before.get(name) != after[name]:
            like = state.get(path[1]) if name.startswith(MARKS) and isinstance(state, Mapping) else None
            out.append((path, stored(ruleset, name, before.get(name), like), stored(ruleset, name, after[name], like)))
    return out


__all__ = ["bind", "changed_paths", "evaluate_derived", "names_ruleset", "refresh", "statuses"]


def names_ruleset(value: object, ruleset: CompiledRuleset, sheet_file: str | None) -> bool:
    """Whether a sheet's `ruleset:` names this ruleset (its id, or its file relative to the sheet), or a base or
    an overlay of it (sheet.lineage: such a sheet is read with this ruleset's rules, and the command says so)."""
    from interpreter.sheet.lineage import kin_note, names_exactly

    return names_exactly(value, ruleset, sheet_file) or kin_note(value, ruleset, sheet_file) is not None
