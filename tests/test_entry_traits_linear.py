"""Entries of a list field that name traits are looked up, not compared with every trait: a sheet of
20,000 such entries against 20,000 traits is read in well under a second (it took each entry times each
trait), and each entry names the first trait, in the ruleset's order, whose name or label it gives."""

from __future__ import annotations

import time
from types import MappingProxyType

from interpreter.pipeline import compile_ref
from interpreter.record import replace
from interpreter.ruleset.entries import entry_trait, named_traits
from interpreter.ruleset.model import SheetField, Trait

COUNT = 20_000


def _ruleset():
    traits = {f"T{i}": Trait(f"T{i}", f"Skill {i}", "skills" if i % 2 else "other", 0, 5, 0) for i in range(COUNT)}
    traits["Twin"] = Trait("Twin", "skill 1", "skills", 0, 5, 0)  # (a label another trait has: the first wins)
    field = SheetField("specialties", "list", None, True, None, (), [], "", ("skills",))
    return replace(compile_ref("lockwood"), traits=MappingProxyType(traits)), field


def test_an_entry_names_the_first_trait_of_the_fields_groups_by_name_or_label():
    ruleset, field = _ruleset()
    assert entry_trait(ruleset, field, "t1: Pistol") == "T1"
    assert entry_trait(ruleset, field, "  SKILL   1 : x") == "T1"
    assert entry_trait(ruleset, field, "twin: y") == "Twin"
    assert entry_trait(ruleset, field, "T2: z") is None  # (a trait of another group)
    assert entry_trait(ruleset, field, "nobody: z") is None


def test_twenty_thousand_entries_against_twenty_thousand_traits_in_well_under_a_second():
    ruleset, field = _ruleset()
    entries = [f"Skill {i}: detail" for i in range(COUNT)]
    started = time.process_time()
    named = named_traits(ruleset, field, entries)
    used = time.process_time() - started
    assert named == {f"T{i}" for i in range(1, COUNT, 2)}
    assert used < 1.0, f"{used:.2f} s of CPU"
