"""Which cases `rules diff` compares, and on which characters: the questions a house rule raises, asked of both rulesets.

A procedure is compared at its samples, and also where the change can show: at a trait of every
trait group (a cheaper attribute shows on an attribute, not on the sampled skill), and at keys
that reach every changed row of a table it uses. Those extra cases are kept only where the odds
differ. A procedure that works on a sheet runs on a new character of each ruleset (or the sheet
given); when the new character cannot afford it (a purchase), the diff supplies what it lacks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from interpreter import limits
from interpreter.cli.diff_probes import param_value
from interpreter.errors import Refused, RulesError
from interpreter.procedure.compare import Comparison, Sheet, compare
from interpreter.record import field, record
from interpreter.ruleset.changes import Change, Data, affected
from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset
from interpreter.ruleset.samples import as_arguments

if TYPE_CHECKING:
    from interpreter.load.document import Document

SUPPLIED = (100, 10_000)  # what the diff gives a sheet's spendable amount (experience) when a new character has too little


@record
class Characters:
    """The sheets a comparison runs on: one bound to each ruleset, and where they came from."""

    base: Sheet | None
    house: Sheet | None
    given: bool  # a sheet the user gave (else a new character of each ruleset)
    data: tuple[Mapping[str, object], Mapping[str, object]] | None = None  # the given sheet's data as each side reads it
    doc: Document | None = None
    unfit: tuple[str | None, str | None] = (None, None)  # what of the given sheet did not fit each side's rules


@record
class Diff:
    """Everything `rules diff` found: both rulesets, the changed values, the comparisons, and what was left out."""

    base: CompiledRuleset
    house: CompiledRuleset
    found: list[Change]
    odds: list[Comparison]
    skipped: list[dict[str, Any]]
    notes: dict[int, str]  # index in odds -> what the diff supplied to the character there
    people: Characters
    character: list[tuple[str, object, object]]  # the given sheet's derived numbers that differ
    sheet: str | None = None
    warned: dict[str, str] = field(default_factory=dict)  # a change's path -> the warning validate gives there
    effects: dict[str, list[str]] = field(default_factory=dict)  # each effect the change touches -> procedures it reaches
    cut: list[str] = field(default_factory=list)  # procedures whose cases beyond their samples limits.MAX_DIFF_CASES left out


def new_character(rs: CompiledRuleset, supply: Mapping[str, int] | None = None) -> tuple[object, Document] | None:
    """A new character of a ruleset as `rules sheet new` writes it (data, document), with `supply` set in its state."""
    from interpreter.load.yaml import load_text
    from interpreter.sheet.new_character import new_sheet

    try:
        doc = load_text(new_sheet(rs, "New character", None, rs.file), rs.file)
    except RulesError:
        return None
    if supply:
        state = doc.data.setdefault("state", {})
        state.update(supply)
    return doc.data, doc


def bind_to(rs: CompiledRuleset, data: Any, doc: Document | None) -> Sheet | None:
    """A sheet bound to a ruleset's names, or None when it cannot be (it breaks that ruleset's standing rules)."""
    from interpreter.sheet.session import bound

    try:
        return bound(rs, data, doc)
    except RulesError:
        return None


def spendable(rs: CompiledRuleset, proc: CompiledProcedure) -> list[str]:
    """The sheet's whole-number state values with no maximum that a procedure reads: what a purchase spends."""
    if rs.sheet is None:
        return []
    return [v.name for v in rs.sheet.state.values()
            if v.type == "int" and v.maximum is None and (proc.reads is None or v.name in proc.reads)]


def compare_case(base: CompiledRuleset, house: CompiledRuleset, name: str, args: Mapping[str, str], people: Characters
                 ) -> tuple[Comparison, str | None]:
    """One case compared, and a note of what the diff supplied to the character when that was needed."""
    sheets = (people.base, people.house)
    if people.given:  # a sheet in a final state is refused as a run refuses it (sheet.session)
        from interpreter.sheet.session import refuse_final

        for rs, sheet in zip((base, house), sheets, strict=True):
            if sheet is not None and name in rs.procedures:
                refuse_final(rs, rs.procedures[name], sheet, people.doc)
    try:
        return compare(base, house, name, args, sheets), None
    except Refused:
        proc = (house.procedures.get(name) or base.procedures.get(name))
        if proc is None or proc.sheet == "none":
            raise
        for amount in SUPPLIED:
            for field in spendable(house if name in house.procedures else base, proc):
                supplied = _supplied(base, house, people, {field: amount})
                if supplied is None:
                    continue
                try:
                    found = compare(base, house, name, args, supplied)
                except Refused:
                    continue
                return found, f"with {field} = {amount} supplied"
        raise


def _supplied(base: CompiledRuleset, house: CompiledRuleset, people: Characters, supply: dict[str, int]
              ) -> tuple[Sheet | None, Sheet | None] | None:
    out = []
    for i, rs in enumerate((base, house)):
        if people.given and people.data is not None:
            mine = people.data[i]
            state = mine.get("state")
            data = {**mine, "state": {**(state if isinstance(state, dict) else {}), **supply}}
            out.append(bind_to(rs, data, people.doc))
        else:
            made = new_character(rs, supply)
            out.append(bind_to(rs, *made) if made is not None else None)
    return (out[0], out[1])


def _trait_cases(rs: CompiledRuleset, proc: CompiledProcedure, sample: Mapping[str, object]) -> list[dict[str, str]]:
    """The sample with each trait parameter set to the first trait of every other trait group."""
    out = []
    for param in proc.params:
        if param.type != "trait":
            continue
        groups: dict[str, str] = {}
        for trait in rs.traits.values():
            groups.setdefault(trait.group, trait.name)
        for trait_name in groups.values():
            if str(sample.get(param.name)) != trait_name:
                out.append({**as_arguments(sample), param.name: trait_name})
    return out


def _keys(base: CompiledRuleset, house: CompiledRuleset) -> dict[str, set[int]]:
    """For every table both rulesets have, the keys of the rows that differ (each changed row's ends)."""
    out: dict[str, set[int]] = {}
    for name, new in house.tables.items():
        old = base.tables.get(name)
        if old is None:
            continue
        shape = [tuple((r.low, r.high, r.text, getattr(r.value, "text", r.value)) for r in t.rows) for t in (old, new)]
        changed = set(shape[0]) ^ set(shape[1])
        if changed:
            out[name] = {key for low, high, *_ in changed for key in (low, high)}
    return out


def _row_cases(before: Data, after: Data, base: CompiledRuleset, house: CompiledRuleset, name: str,
               proc: CompiledProcedure, sample: Mapping[str, object]) -> list[dict[str, str]]:
    """The sample with a number parameter set to each key of a changed row of a table the procedure uses."""
    out = []
    for table, keys in _keys(base, house).items():
        probe = {**before, "tables": {**(before.get("tables") or {}), table: (after.get("tables") or {})[table]}}
        if name not in affected(before, probe):
            continue  # the procedure does not use this table
        for param in proc.params:
            for key in sorted(keys):
                value = param_value(param, key)
                if value is not None and value != str(sample.get(param.name)):
                    out.append({**as_arguments(sample), param.name: value})
    return out


def reached(base: CompiledRuleset, house: CompiledRuleset) -> dict[str, set[str]]:
    """Each procedure's effects (those whose flag or change it takes), in either ruleset."""
    out: dict[str, set[str]] = {}
    for rs in (base, house):
        for name, proc in rs.procedures.items():
            out.setdefault(name, set()).update(proc.effects)
    return out


def probes(before: Data, after: Data, found: list[Change], touched: list[str],
           base: CompiledRuleset, house: CompiledRuleset, name: str, sample: Mapping[str, object]) -> list[dict[str, str]]:
    """Parameters beyond a sample where the change may show (kept by the caller only where the odds differ):
    the effects the change touches turned on, the flags of the texts it touches, a trait of every group,
    the keys of changed table rows; at most limits.MAX_DIFF_PROBES."""
    from interpreter.cli.diff_probes import changed_texts, effect_cases, flag_cases, hot_words, unique

    out = []
    for rs, data in ((house, after), (base, before)):  # an effect the house removed is turned on in the base
        if name in rs.procedures:
            spec = (data.get("procedures") or {}).get(name)
            out += [case for e in touched if e in rs.effects and e in rs.procedures[name].effects
                    for case in effect_cases(rs, rs.procedures[name], spec, rs.effects[e], sample)]
    if name in base.procedures and name in house.procedures:
        proc = house.procedures[name]
        spec = (after.get("procedures") or {}).get(name)
        out += flag_cases(proc, spec, hot_words(found), changed_texts(found), sample)
        out += _trait_cases(house, proc, sample) + _row_cases(before, after, base, house, name, proc, sample)
    return unique(out)[:limits.MAX_DIFF_PROBES]


def thresholds(after: Data, found: list[Change], house: CompiledRuleset, name: str,
               sample: Mapping[str, object]) -> list[dict[str, str]]:
    """The sample with a number parameter on either side of a comparison of the procedure's formulas
    (diff_probes), at most limits.MAX_DIFF_PROBES."""
    from interpreter.cli.diff_probes import changed_texts, threshold_cases, unique

    if name not in house.procedures:
        return []
    spec = (after.get("procedures") or {}).get(name)
    return unique(threshold_cases(house, house.procedures[name], spec, changed_texts(found), sample))[
        :limits.MAX_DIFF_PROBES]


def sheet_changes(base: CompiledRuleset, house: CompiledRuleset, people: Characters) -> list[tuple[str, object, object]]:
    """The character's derived numbers that differ between the rulesets: (name, before, after)."""
    if people.base is None or people.house is None:
        return []
    out = []
    names = list(people.base) + [n for n in people.house if n not in people.base]
    for name in names:
        if name in base.constants or name in house.constants:
            continue  # the ruleset's numbers are under "Changed values"; these are the character's
        old, new = people.base.get(name), people.house.get(name)
        plain = all(isinstance(v, (int, float, bool, str, type(None))) for v in (old, new))
        if plain and (old != new or type(old) is not type(new)):
            out.append((name, old, new))
    return out


__all__ = ["SUPPLIED", "Characters", "Diff", "bind_to", "compare_case", "new_character", "probes", "reached",
           "sheet_changes", "spendable", "thresholds"]
