"""`record` behaves as `dataclass(frozen=True, slots=True)` does: each check builds the same class
both ways and compares what they do (the standard library's dataclass is the oracle)."""

from __future__ import annotations

import dataclasses
import typing as kinds_of
from dataclasses import FrozenInstanceError, field
from types import MappingProxyType
from typing import Any, ClassVar
from typing import ClassVar as Shared

import pytest

from interpreter import record as rec
from interpreter.record import record


def both() -> list[type]:
    """The same class made by dataclass(frozen=True, slots=True) and by record."""
    made = []
    for decorate, make in ((dataclasses.dataclass(frozen=True, slots=True), field), (record, rec.field)):
        class Point:
            """A point with a label that takes no part in equality."""

            x: int
            y: int = 0
            label: str = make(default="", compare=False)
            extra: Any = make(default_factory=tuple, repr=False)

            def norm(self) -> int:
                return abs(self.x) + abs(self.y)

        made.append(decorate(Point))
    return made


CASES = [((1,), {}), ((1, 2), {}), ((1,), {"y": 3, "label": "a"}), ((), {"x": -4, "extra": (1, 2)})]


@pytest.mark.parametrize(("args", "kwargs"), CASES)
def test_fields_repr_methods_and_defaults_are_dataclass_s(args, kwargs):
    oracle, ours = both()
    a, b = oracle(*args, **kwargs), ours(*args, **kwargs)
    assert repr(a) == repr(b)
    assert [(f.name, f.compare, f.repr) for f in dataclasses.fields(a)] == \
        [(f.name, f.compare, f.repr) for f in rec.fields(b)]
    assert [getattr(a, f.name) for f in dataclasses.fields(a)] == [getattr(b, f.name) for f in rec.fields(b)]
    assert a.norm() == b.norm()
    assert type(a).__match_args__ == type(b).__match_args__
    assert rec.is_record(b) and rec.is_record(type(b)) and not rec.is_record(a)
    assert not hasattr(b, "__dict__") and type(b).__slots__ == type(a).__slots__


@pytest.mark.parametrize(("one", "other"), [(((1, 2), {}), ((1, 2), {"label": "x"})), (((1, 2), {}), ((2, 1), {})),
                                            (((0,), {}), ((0, 0), {"extra": 5})), (((3,), {}), ((3, 1), {}))])
def test_equality_and_hash_follow_the_compared_fields(one, other):
    oracle, ours = both()
    expected = oracle(*one[0], **one[1]) == oracle(*other[0], **other[1])
    assert (ours(*one[0], **one[1]) == ours(*other[0], **other[1])) is expected
    assert (ours(*one[0], **one[1]) != ours(*other[0], **other[1])) is (not expected)
    if expected:
        assert hash(ours(*one[0], **one[1])) == hash(ours(*other[0], **other[1]))
    assert hash(ours(*one[0], **{k: v for k, v in one[1].items() if k != "extra"})) == \
        hash(oracle(*one[0], **{k: v for k, v in one[1].items() if k != "extra"}))


def test_a_record_equals_only_its_own_class():
    oracle, ours = both()
    assert ours(1, 2) != oracle(1, 2)
    assert ours(1, 2) != (1, 2, "", ())
    assert ours(1) == ours(1)


def test_frozen_replace_and_match():
    oracle, ours = both()
    p = ours(1, 2, "a")
    with pytest.raises(FrozenInstanceError):
        p.x = 5
    with pytest.raises(FrozenInstanceError):
        del p.y
    with pytest.raises(FrozenInstanceError):
        p.other = 1
    q = rec.replace(p, y=7)
    expected = dataclasses.replace(oracle(1, 2, "a"), y=7)
    assert [getattr(q, f.name) for f in rec.fields(q)] == [getattr(expected, f.name) for f in dataclasses.fields(expected)]
    assert (q.x, q.y, q.label) == (1, 7, "a") and (p.x, p.y) == (1, 2)
    match q:
        case ours(1, y):  # type: ignore[misc]
            assert y == 7
        case _:
            pytest.fail("positional match did not bind")


def test_copies_are_equal_and_frozen():
    import copy

    _, ours = both()
    p = ours(1, 2, "a", ((1, 2),))
    for made in (copy.copy(p), copy.deepcopy(p)):
        assert made == p and made.label == "a" and made.extra == ((1, 2),)
        with pytest.raises(FrozenInstanceError):
            made.x = 3


def test_missing_and_unknown_arguments_fail_as_dataclass_s_do():
    oracle, ours = both()
    for cls in (oracle, ours):
        with pytest.raises(TypeError):
            cls()
        with pytest.raises(TypeError):
            cls(1, z=2)
        with pytest.raises(TypeError):
            cls(1, 2, "", None, 5)


def test_default_factory_runs_per_instance_and_a_given_value_wins():
    made: list[int] = []

    @record
    class Counted:
        value: Any = rec.field(default_factory=lambda: made.append(1) or MappingProxyType({"n": len(made)}))

    assert Counted().value == {"n": 1} and Counted().value == {"n": 2}
    assert Counted(value=3).value == 3 and len(made) == 2


def test_the_standard_library_s_field_is_refused_not_taken_for_a_default():
    with pytest.raises(TypeError, match="interpreter.record.field"):
        @record
        class Wrong:
            value: Any = field(default=1)


def test_a_record_cannot_extend_a_dataclass():
    @dataclasses.dataclass(frozen=True)
    class Base:
        a: int

    with pytest.raises(TypeError, match="cannot extend a dataclass"):
        @record
        class Child(Base):
            b: int


def test_a_record_extends_a_record_and_super_reaches_the_base():
    @record
    class Base:
        a: int
        b: int = 2

        def total(self) -> int:
            return self.a + self.b

    @record
    class Child(Base):
        c: int = 3

        def total(self) -> int:
            return super().total() + self.c

    child = Child(1)
    assert (child.a, child.b, child.c, child.total()) == (1, 2, 3, 6)
    assert [f.name for f in rec.fields(Child)] == ["a", "b", "c"] and Child.__match_args__ == ("a", "b", "c")
    assert Child(1) == Child(1, 2, 3) and Child(1) != Base(1) and Base(5).total() == 7
    assert not hasattr(child, "__dict__")
    with pytest.raises(TypeError, match="again"):
        @record
        class Twice(Base):
            a: int = 0


def test_a_field_without_a_default_after_one_with_is_refused_as_by_dataclass():
    for decorate, make in ((dataclasses.dataclass(frozen=True, slots=True), field), (record, rec.field)):
        with pytest.raises(TypeError, match="non-default argument"):
            @decorate
            class Bad:
                x: int = make(default=0)
                y: int
    with pytest.raises(ValueError, match="both default and default_factory"):
        rec.field(default=1, default_factory=list)


def test_fields_of_something_else_is_a_type_error_as_in_dataclasses():
    with pytest.raises(TypeError):
        rec.fields(object())
    with pytest.raises(TypeError):
        dataclasses.fields(object())


def test_the_shared_init_and_the_compiled_one_agree_with_dataclass_s():
    """A class makes its first instances through a shared __init__ and then compiles its own."""
    oracle, ours = both()
    assert ours.__init__ is not oracle.__init__
    for round_ in range(2 * rec.COMPILE_AFTER // len(CASES) + 2):
        for args, kwargs in CASES:
            assert repr(ours(*args, **kwargs)) == repr(oracle(*args, **kwargs)), round_
        for bad_args, bad_kwargs in (((), {}), ((1,), {"x": 2}), ((1, 2, "", (), 5), {}), ((1,), {"z": 2})):
            with pytest.raises(TypeError):
                oracle(*bad_args, **bad_kwargs)
            with pytest.raises(TypeError):
                ours(*bad_args, **bad_kwargs)
    assert "__init__" in ours.__dict__ and ours.__init__.__qualname__.endswith("Point.__init__")


def test_a_class_variable_is_not_a_field_as_in_dataclasses():
    for decorate in (dataclasses.dataclass(frozen=True, slots=True), record):
        @decorate
        class Counter:
            limit: ClassVar[int] = 3
            value: int = 0

        assert Counter.limit == 3 and Counter(2).value == 2
        assert Counter.__match_args__ == ("value",)


def test_a_class_variable_imported_under_another_name_is_not_a_field_either():
    """The annotation is resolved in the class's module, as dataclasses does, not matched by its text."""
    for decorate in (dataclasses.dataclass(frozen=True, slots=True), record):
        @decorate
        class Counter:
            limit: Shared[int] = 3
            step: kinds_of.ClassVar[int] = 2
            bare: Shared = 1
            value: int = 0

        assert (Counter.limit, Counter.step, Counter.bare) == (3, 2, 1)
        assert Counter.__match_args__ == ("value",) and Counter(5).value == 5


def test_a_field_whose_type_only_starts_like_class_var_is_a_field():
    ClassVariety = int
    for decorate in (dataclasses.dataclass(frozen=True, slots=True), record):
        @decorate
        class Counter:
            limit: ClassVariety = 3

        assert Counter.__match_args__ == ("limit",) and Counter(4).limit == 4
