"""The compiled form is immutable: no step, procedure or collection of a compiled ruleset can be changed."""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

import pytest

from interpreter import record
from interpreter.load.bundled import bundled_ids
from interpreter.pipeline import compile_ref
from interpreter.procedure.kinds import KINDS, writers
from interpreter.ruleset.specs import StepSpec, walk


def _mutable_parts(value: object, seen: set[int]) -> list[str]:
    """Every list, dict or set reachable through record fields, tuples and mapping proxies."""
    if id(value) in seen:
        return []
    seen.add(id(value))
    if isinstance(value, (list, dict, set)):
        return [type(value).__name__]
    found = []
    if dataclasses.is_dataclass(value) and not isinstance(value, type):  # none is, but one would have to be frozen
        assert type(value).__dataclass_params__.frozen, type(value)  # type: ignore[attr-defined]
        found += [f"{type(value).__name__}: a dataclass, not a record"]
    elif record.is_record(value) and not isinstance(value, type):
        for f in record.fields(value):
            found += [f"{type(value).__name__}.{f.name}: {p}" for p in _mutable_parts(getattr(value, f.name), seen)]
    elif isinstance(value, tuple):
        for item in value:
            found += _mutable_parts(item, seen)
    elif isinstance(value, MappingProxyType):
        for item in value.values():
            found += _mutable_parts(item, seen)
    return found


@pytest.mark.parametrize("ref", bundled_ids())
def test_every_step_and_procedure_is_frozen_all_the_way_down(ref):
    ruleset = compile_ref(ref)
    for proc in ruleset.procedures.values():
        assert _mutable_parts(proc, set()) == [], proc.name
        assert record.is_record(proc) and all(record.is_record(s) and record.is_record(s.spec) for s in walk(proc.steps))
        for step in walk(proc.steps):
            assert isinstance(step.spec, StepSpec)


def test_changing_a_compiled_step_is_refused_and_the_next_compile_is_unchanged():
    """Mutating procedures['check'].steps[0].spec once changed what the next compile_ref returned."""
    ruleset = compile_ref("lockwood")
    step = ruleset.procedures["check"].steps[0]
    first = record.fields(step.spec)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(step.spec, first, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        step.where = None  # type: ignore[misc]
    with pytest.raises(TypeError):
        ruleset.procedures["check"].outcome_help["x"] = "y"  # type: ignore[index]
    with pytest.raises(TypeError):
        ruleset.procedures["x"] = ruleset.procedures["check"]  # type: ignore[index]
    assert compile_ref("lockwood").procedures["check"].steps[0] == step


def test_the_registry_names_every_step_key_of_the_schema_once():
    import json

    from interpreter.load.bundled import schema_path

    schema = json.loads(schema_path().read_text(encoding="utf-8"))
    text = json.dumps(schema)
    keys = list(KINDS)
    assert len(keys) == len(set(keys))
    assert sorted(writers(KINDS)) == sorted(keys)  # every kind that compiles also runs, and no other
    for key in keys:
        assert f'"{key}"' in text, key
