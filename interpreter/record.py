"""Frozen records: the frozen, slotted dataclasses of the compiled form, made cheaply.

``@record`` on a class does what ``@dataclass(frozen=True, slots=True)`` does, and the result
is a dataclass (``dataclasses.fields``, ``replace`` and ``match`` work on it), but it is made
for a fraction of the cost.  ``dataclass`` writes six methods as source text for every class
and compiles each (about 0.6 ms a class); a start that defines fifty classes spent a third of
its time there.  Here only ``__init__`` is written and compiled per class; equality, hashing,
``repr`` and the refusal to assign are shared functions that read the class's field names.

They behave as dataclass's do: equal when of the same class with equal compared fields,
hashed by those fields, shown as ``Name(field=value, ...)`` with the fields kept for ``repr``,
and assigning or deleting any attribute raises ``dataclasses.FrozenInstanceError``.
"""

from __future__ import annotations

import dataclasses
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform

__all__ = ["record"]

T = TypeVar("T")

_MISSING = dataclasses.MISSING


def _key(names: tuple[str, ...]) -> Any:
    """A function giving the tuple of these attributes of an object."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        key = self.__class__.__record_compare__
        return key(self) == key(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self.__class__.__record_hash__(self))


def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__class__.__record_repr__)
    return f"{self.__class__.__qualname__}({shown})"


def _setattr(self: Any, name: str, value: Any) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _delattr(self: Any, name: str) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


def _getstate(self: Any) -> list[Any]:  # copy.copy and deepcopy, as for a frozen dataclass with slots
    return [getattr(self, f.name) for f in dataclasses.fields(self)]


def _setstate(self: Any, state: list[Any]) -> None:
    for f, value in zip(dataclasses.fields(self), state, strict=True):
        object.__setattr__(self, f.name, value)


def _init(cls: type, fields: tuple[dataclasses.Field[Any], ...]) -> Any:
    """The class's ``__init__``, setting each field as a frozen dataclass's does."""
    scope: dict[str, Any] = {"_set": object.__setattr__, "_factory": _MISSING}
    params, body = [], []
    for f in fields:
        if f.default is not _MISSING:
            scope[f"_d_{f.name}"] = f.default
            params.append(f"{f.name}=_d_{f.name}")
            body.append(f"    _set(self, {f.name!r}, {f.name})")
        elif f.default_factory is not _MISSING:
            scope[f"_f_{f.name}"] = f.default_factory
            params.append(f"{f.name}=_factory")
            body.append(f"    _set(self, {f.name!r}, _f_{f.name}() if {f.name} is _factory else {f.name})")
        else:
            params.append(f.name)
            body.append(f"    _set(self, {f.name!r}, {f.name})")
    text = f"def __init__(self, {', '.join(params)}):\n" + ("\n".join(body) or "    pass") + "\n"
    exec(text, scope)  # noqa: S102  (the text is made here from the class's own field names)
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    return init


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def record(cls: type[T]) -> type[T]:
    """Make ``cls`` a frozen dataclass with slots (see the module's description)."""
    if any(dataclasses.is_dataclass(base) for base in cls.__mro__[1:]):
        raise TypeError(f"record {cls.__name__} cannot extend a dataclass (a plain base with __slots__ = () can)")
    documented = bool(cls.__dict__.get("__doc__"))
    if not documented:
        cls.__doc__ = cls.__name__  # (else dataclass works out a signature text only to have it replaced)
    made: Any = dataclasses.dataclass(init=False, repr=False, eq=False, slots=True)(cls)
    fields = dataclasses.fields(made)
    made.__init__ = _init(made, fields)
    if not documented:  # dataclass's own text: the name and signature
        made.__doc__ = made.__name__ + f"({', '.join(f.name for f in fields)})"
    made.__record_compare__ = _key(tuple(f.name for f in fields if f.compare))
    made.__record_hash__ = _key(tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash)))
    made.__record_repr__ = tuple(f.name for f in fields if f.repr)
    made.__eq__ = _eq
    made.__hash__ = _hash
    made.__repr__ = _repr
    made.__setattr__ = _setattr
    made.__delattr__ = _delattr
    made.__getstate__ = _getstate
    made.__setstate__ = _setstate
    params = made.__dataclass_params__  # what it is now: what dataclass(frozen=True) would have said
    params.init = params.repr = params.eq = params.frozen = True
    return made  # type: ignore[no-any-return]
