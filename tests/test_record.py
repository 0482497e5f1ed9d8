"""`record` behaves as `dataclass(frozen=True, slots=True)` does: each check builds the same class
both ways and compares what they do (the standard library's dataclass is the oracle)."""

from __future__ import annotations

import dataclasses
from dataclasses import FrozenInstanceError, field
from types import MappingProxyType
from typing import Any

import pytest

from interpreter.record import record


def both() -> list[type]:
    """The same class made by dataclass(frozen=True, slots=True) and by record."""
    made = []
    for decorate in (dataclasses.dataclass(frozen=True, slots=True), record):
        class Point:
            """A point with a label that takes no part in equality."""

            x: int
            y: int = 0
            label: str = field(default="", compare=False)
            extra: Any = field(default_factory=tuple, repr=False)

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
        [(f.name, f.compare, f.repr) for f in dataclasses.fields(b)]
    assert [getattr(a, f.name) for f in dataclasses.fields(a)] == [getattr(b, f.name) for f in dataclasses.fields(b)]
    assert a.norm() == b.norm()
    assert type(a).__match_args__ == type(b).__match_args__
    assert dataclasses.is_dataclass(b) and type(b).__dataclass_params__.frozen
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
    _, ours = both()
    p = ours(1, 2, "a")
    with pytest.raises(FrozenInstanceError):
        p.x = 5
    with pytest.raises(FrozenInstanceError):
        del p.y
    with pytest.raises(FrozenInstanceError):
        p.other = 1
    q = dataclasses.replace(p, y=7)
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
        value: Any = field(default_factory=lambda: made.append(1) or MappingProxyType({"n": len(made)}))

    assert Counted().value == {"n": 1} and Counted().value == {"n": 2}
    assert Counted(value=3).value == 3 and len(made) == 2


def test_a_record_cannot_extend_a_dataclass():
    @dataclasses.dataclass(frozen=True)
    class Base:
        a: int

    with pytest.raises(TypeError, match="cannot extend a dataclass"):
        @record
        class Child(Base):
            b: int
