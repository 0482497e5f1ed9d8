"""Frozen records: the immutable, slotted classes of the compiled form, made cheaply.

``@record`` on an annotated class gives what ``@dataclass(frozen=True, slots=True)`` gives: an
``__init__`` taking the fields in order (defaults and ``field(default_factory=...)`` as there),
equality and hashing by the compared fields, ``repr``, ``__match_args__`` for ``match``, copies,
and ``dataclasses.FrozenInstanceError`` on any assignment.  ``fields`` and ``replace`` here do
what the standard library's do for a dataclass.

It is made for a small part of the cost.  ``dataclass`` inspects every annotation and writes
and compiles six methods per class (about a quarter of a millisecond a class); a start that
defines sixty classes spent a third of its time there.  Here the class is made once with its
slots, equality, hashing, ``repr`` and the refusal to assign are shared functions that read the
class's field names, and ``__init__`` is a shared one too until the class has made a few dozen
instances; then the class's own is written and compiled.

A record may extend another record (its fields come first) or a plain class with
``__slots__ = ()``; it may not extend a standard dataclass.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform

__all__ = ["Field", "field", "fields", "is_record", "record", "replace"]

T = TypeVar("T")


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: object = _Missing()


class Field:
    """One field of a record: its name, its default (or a factory making one) and where it counts."""

    __slots__ = ("compare", "default", "default_factory", "hash", "name", "repr")

    def __init__(self, default: object, default_factory: object, compare: bool, hash: bool | None,
                 repr: bool) -> None:
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.compare = compare
        self.hash = hash
        self.repr = repr

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, compare={self.compare}, repr={self.repr})"


def field(*, default: object = MISSING, default_factory: Callable[[], object] | object = MISSING, compare: bool = True,
          hash: bool | None = None, repr: bool = True) -> Any:
    """A field with a default or a default factory, or left out of equality (``compare``) or ``repr``."""
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, compare, hash, repr)


def fields(obj: Any) -> tuple[Field, ...]:
    """A record's fields (of an instance or of the class), in order."""
    try:
        return obj.__record_fields__  # type: ignore[no-any-return]
    except AttributeError:
        raise TypeError("must be called with a record type or instance") from None


def is_record(obj: object) -> bool:
    """Whether ``obj`` is a record class or an instance of one."""
    return hasattr(obj, "__record_fields__")


def replace(obj: T, /, **changes: object) -> T:
    """A copy of a record with some fields changed."""
    for f in fields(obj):
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)


def _key(names: tuple[str, ...]) -> Callable[[object], tuple[object, ...]]:
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


def _frozen(message: str) -> Exception:
    from dataclasses import FrozenInstanceError  # (only when a program breaks the rule)

    return FrozenInstanceError(message)


def _setattr(self: object, name: str, value: object) -> None:
    raise _frozen(f"cannot assign to field {name!r}")


def _delattr(self: object, name: str) -> None:
    raise _frozen(f"cannot delete field {name!r}")


def _getstate(self: Any) -> list[Any]:  # copy.copy and deepcopy
    return [getattr(self, f.name) for f in self.__record_fields__]


def _setstate(self: Any, state: list[Any]) -> None:
    for f, value in zip(self.__record_fields__, state, strict=True):
        object.__setattr__(self, f.name, value)


def _init(cls: Any) -> Any:
    """The class's ``__init__``, setting each field as a frozen dataclass's does."""
    scope: dict[str, Any] = {"_set": object.__setattr__, "_factory": MISSING}
    params, body = [], []
    for f in cls.__record_fields__:
        if f.default is not MISSING:
            scope[f"_d_{f.name}"] = f.default
            params.append(f"{f.name}=_d_{f.name}")
            body.append(f"    _set(self, {f.name!r}, {f.name})")
        elif f.default_factory is not MISSING:
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


COMPILE_AFTER = 32  # instances a class makes through the generic __init__ before its own is compiled
_made: dict[type, int] = {}


def _generic_init(self: Any, *args: Any, **kwargs: Any) -> None:
    """Set the fields from the arguments as the compiled ``__init__`` would, for the first few instances.

    Compiling a class's own ``__init__`` costs as much as making a few dozen instances this way, and
    most classes make only a few during a command; a class that makes more gets its own.
    """
    cls = self.__class__
    owner = cls if cls.__dict__.get("__init__") is _generic_init else \
        next(c for c in cls.__mro__ if c.__dict__.get("__init__") is _generic_init)
    count = _made.get(owner, 0) + 1
    if count > COMPILE_AFTER:
        init = _init(owner)
        type.__setattr__(owner, "__init__", init)
        init(self, *args, **kwargs)
        return
    _made[owner] = count
    every = owner.__record_fields__
    if len(args) > len(every):
        raise TypeError(f"{owner.__name__}.__init__() takes {len(every) + 1} positional arguments "
                        f"but {len(args) + 1} were given")
    for f, value in zip(every, args, strict=False):
        if f.name in kwargs:
            raise TypeError(f"{owner.__name__}.__init__() got multiple values for argument {f.name!r}")
        object.__setattr__(self, f.name, value)
    missing = []
    for f in every[len(args):]:
        if f.name in kwargs:
            object.__setattr__(self, f.name, kwargs.pop(f.name))
        elif f.default is not MISSING:
            object.__setattr__(self, f.name, f.default)
        elif f.default_factory is not MISSING:
            object.__setattr__(self, f.name, f.default_factory())
        else:
            missing.append(f.name)
    if missing:
        raise TypeError(f"{owner.__name__}.__init__() missing {len(missing)} required argument(s): "
                        + ", ".join(repr(name) for name in missing))
    if kwargs:
        raise TypeError(f"{owner.__name__}.__init__() got an unexpected keyword argument {next(iter(kwargs))!r}")


def _own_fields(cls: type, namespace: dict[str, Any], inherited: set[str]) -> list[Field]:
    """The fields a class's body declares, taken out of the namespace they were written in."""
    out = []
    for name, annotation in namespace.get("__annotations__", {}).items():
        if _is_class_var(annotation, namespace.get("__module__")):
            continue
        value = namespace.pop(name, MISSING)
        if value.__class__ is Field:
            made = value
        elif type(value).__module__ == "dataclasses":
            raise TypeError(f"record {cls.__name__}: {name!r} takes interpreter.record.field, not dataclasses.field")
        else:
            made = Field(value, MISSING, True, None, True)
        made.name = name
        if name in inherited:
            raise TypeError(f"record {cls.__name__} declares {name!r} again")
        out.append(made)
    return out


def _is_class_var(annotation: object, module: str | None) -> bool:
    """Whether an annotation is ``typing.ClassVar`` (bare or subscripted), under whatever name it was imported.

    A written annotation (``from __future__ import annotations``) is resolved by looking up its head
    name, dotted or not, in the class's module: it is never evaluated.
    """
    import sys
    import typing

    if not isinstance(annotation, str):
        return annotation is typing.ClassVar or typing.get_origin(annotation) is typing.ClassVar
    head = annotation.split("[", 1)[0].strip()
    found: object = vars(sys.modules[module]) if module in sys.modules else {}
    for part in head.split("."):
        found = found.get(part, MISSING) if isinstance(found, dict) else getattr(found, part, MISSING)
        if found is MISSING:
            return head in ("ClassVar", "typing.ClassVar")  # a name the module does not have (yet)
    return found is typing.ClassVar


def _rebind(namespace: dict[str, object], old: type, new: type) -> None:
    """Point the ``__class__`` cell of methods (what ``super()`` reads) at the class made anew."""
    for value in namespace.values():
        func: Any = value.__func__ if isinstance(value, (classmethod, staticmethod)) else \
            value.fget if isinstance(value, property) else value
        code = getattr(func, "__code__", None)
        if code is None or "__class__" not in code.co_freevars:
            continue
        for cell in func.__closure__ or ():
            try:
                if cell.cell_contents is old:
                    cell.cell_contents = new
            except ValueError:  # an empty cell
                continue


@dataclass_transform(frozen_default=True, field_specifiers=(field, Field))
def record(cls: type[T]) -> type[T]:
    """Make ``cls`` a frozen record with slots (see the module's description)."""
    if any("__dataclass_fields__" in base.__dict__ for base in cls.__mro__[1:]):
        raise TypeError(f"record {cls.__name__} cannot extend a dataclass (a plain base with __slots__ = () can)")
    inherited: tuple[Field, ...] = next((b.__dict__["__record_fields__"] for b in cls.__mro__[1:]
                                         if "__record_fields__" in b.__dict__), ())
    namespace = {k: v for k, v in cls.__dict__.items() if k not in ("__dict__", "__weakref__")}
    own = tuple(_own_fields(cls, namespace, {f.name for f in inherited}) if "__annotations__" in namespace else ())
    every = inherited + own
    seen_default = False
    for f in every:
        if f.default is not MISSING or f.default_factory is not MISSING:
            seen_default = True
        elif seen_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
    namespace["__slots__"] = tuple(f.name for f in own)
    if not namespace.get("__doc__"):
        namespace["__doc__"] = f"{cls.__name__}({', '.join(f.name for f in every)})"
    namespace.update({  # (given before the class is made: setting a method on a class afterwards costs more)
        "__qualname__": cls.__qualname__, "__record_fields__": every,
        "__match_args__": tuple(f.name for f in every),
        "__record_compare__": _key(tuple(f.name for f in every if f.compare)),
        "__record_hash__": _key(tuple(f.name for f in every if (f.compare if f.hash is None else f.hash))),
        "__record_repr__": tuple(f.name for f in every if f.repr),
        "__init__": _generic_init, "__eq__": _eq, "__hash__": _hash, "__repr__": _repr,
        "__setattr__": _setattr, "__delattr__": _delattr, "__getstate__": _getstate, "__setstate__": _setstate,
    })
    maker: Any = type(cls)
    made: Any = maker(cls.__name__, cls.__bases__, namespace)
    _rebind(namespace, cls, made)
    return made  # type: ignore[no-any-return]
