"""Entries of a list field that name traits, such as 'Firearms: Pistol' under `trait_groups`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from interpreter.ruleset.model import CompiledRuleset, SheetField

FIELD = "#field:"  # private env prefix: the traits a bound sheet's `trait_groups` field names


def entry_trait(ruleset: CompiledRuleset, field: SheetField, entry: str) -> str | None:
    """The trait (by name or label, in any letter case) of one of the field's groups an entry names."""
    head = " ".join(entry.partition(":")[0].split()).casefold()
    return _words(ruleset, field).get(head)


# The words naming the traits of a field's groups, for the last few (ruleset, field) asked about: a sheet of
# thousands of entries looks each up, where each was compared with every trait.
_WORDS: dict[tuple[int, int], tuple[CompiledRuleset, SheetField, dict[str, str]]] = {}


def _words(ruleset: CompiledRuleset, field: SheetField) -> dict[str, str]:
    """Each trait's name and label in lower case (the first trait that has it, in the ruleset's order) -> the trait."""
    known = _WORDS.get((id(ruleset), id(field)))
    if known is not None and known[0] is ruleset and known[1] is field:
        return known[2]
    words: dict[str, str] = {}
    for trait in ruleset.traits.values():
        if trait.group in field.trait_groups:
            words.setdefault(trait.name.casefold(), trait.name)
            words.setdefault((trait.label or "").casefold(), trait.name)
    if len(_WORDS) >= 16:
        _WORDS.clear()
    _WORDS[id(ruleset), id(field)] = (ruleset, field, words)
    return words


def named_traits(ruleset: CompiledRuleset, field: SheetField, entries: Iterable[object]) -> frozenset[str]:
    """The traits a list of entries names."""
    found = (entry_trait(ruleset, field, entry) for entry in entries if isinstance(entry, str))
    return frozenset(name for name in found if name is not None)


def trait_fields(ruleset: CompiledRuleset) -> list[SheetField]:
    """The list fields whose entries name traits."""
    if ruleset.sheet is None:
        return []
    return [f for f in ruleset.sheet.fields.values() if f.kind == "list" and f.trait_groups]


def flags(ruleset: CompiledRuleset, param: str, trait: str | None, sheet_env: Mapping[str, object] | None) -> dict[str, bool]:
    """`PARAM_in_GROUP` for every trait group and `PARAM_in_FIELD` for every field naming traits:
    whether the parameter named a trait of that group, or a trait the sheet's field has an entry for."""
    env: Mapping[str, object] = sheet_env or {}
    out = {f"{param}_in_{group}": trait is not None and ruleset.traits[trait].group == group
           for group in {t.group for t in ruleset.traits.values() if t.group}}
    for field in trait_fields(ruleset):
        named = env.get(FIELD + field.name)
        out[f"{param}_in_{field.name}"] = trait is not None and isinstance(named, frozenset) and trait in named
    for name in selected_traits(ruleset.effects):  # `PARAM_is_TRAIT` for the traits effects reach rolls of
        out[f"{param}_is_{name}"] = trait == name
    return out


def selected_traits(effects: Mapping[str, Any]) -> list[str]:
    """The traits some effect's selector names (`reaches: {traits: [...]}`), in order, each once."""
    return list(dict.fromkeys(t for e in effects.values() for t in (e.traits or ())))
