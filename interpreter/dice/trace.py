"""The traced result of a roll: every die, what happened to it, and the terms it belongs to."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from interpreter.dice.keep import LATER, dropped
from interpreter.dice.term import TermSpec, meets

Rerolls = dict[int, tuple[int, ...]]  # a die's index -> the throws it rerolled, in order
# What the roller writes for one term as it rolls, at the cost of a tuple: the fields of RawTerm, in order.
# Nothing reads it by position but `RawTerm`, which a roll's reader gets (RollTrace.raw).
RawTuple = tuple[TermSpec, list[int], frozenset[int] | None, Rerolls | None, dict[int, int] | None, int, Rerolls | None]


class RawTerm(RawTuple):
    """What one dice term leaves behind as it is rolled, read into a `TermTrace` only when shown.

    A record made at the cost of a tuple (rolling makes one per term), read by its fields' names:
    ``values`` are the dice in draw order (face indices; a compounding die's sum of throws),
    ``dropped`` the indices a keep/drop set aside, ``rerolls`` the earlier throws of each rerolled die,
    ``parents`` the die each exploded die came from, ``result`` the total, ``throws`` the throws of each
    compounding die that exploded.  `raw_term` makes one, `RollTrace.raw` reads the roller's tuples as these.
    """

    __slots__ = ()

    @property
    def spec(self) -> TermSpec:
        return self[0]

    @property
    def values(self) -> list[int]:
        return self[1]

    @property
    def dropped(self) -> frozenset[int] | None:
        out = self[2]
        return dropped(self[0].keep, self[1]) if out is LATER else out

    @property
    def rerolls(self) -> Rerolls | None:
        return self[3]

    @property
    def parents(self) -> dict[int, int] | None:
        return self[4]

    @property
    def result(self) -> int:
        return self[5]

    @property
    def throws(self) -> Rerolls | None:
        return self[6]

    def all_dropped(self) -> RawTerm:
        """The same term with every die set aside (its group member was not kept)."""
        return raw_term(self.spec, self.values, frozenset(range(len(self.values))), self.rerolls, self.parents,
                        self.result, self.throws)

    def kept(self) -> list[int]:
        """The values of the dice a keep/drop kept, in draw order."""
        dropped = self.dropped
        return self.values if not dropped else [v for i, v in enumerate(self.values) if i not in dropped]

    def __repr__(self) -> str:
        return f"RawTerm({self.spec.text!r}, {self.values!r}, dropped={self.dropped!r}, result={self.result})"


def raw_term(spec: TermSpec, values: list[int], dropped: frozenset[int] | None, rerolls: Rerolls | None,
             parents: dict[int, int] | None, result: int, throws: Rerolls | None = None) -> RawTerm:
    """A term's raw trace."""
    return make_raw(RawTerm, (spec, values, dropped, rerolls, parents, result, throws))


make_raw: Callable[[type[RawTerm], RawTuple], RawTerm] = tuple.__new__


def as_record(written: RawTuple) -> RawTerm:
    """What the roller wrote for a term, as the record."""
    return written if isinstance(written, RawTerm) else make_raw(RawTerm, written)


class Die:
    """One die of a roll, with what happened to it.

    ``throws`` are the throws a compounding die (`!!`) added up, ``face`` a symbol die's face as written
    (`SA`), ``natural`` what the die showed before `mi` or `ma` changed it.
    """

    __slots__ = ("deducted", "exploded", "face", "from_", "kept", "natural", "rerolled", "sides", "success",
                 "throws", "value")

    def __init__(self, value: int, sides: int, kept: bool = True, rerolled: tuple[int, ...] = (),
                 exploded: bool = False, from_: int | None = None, success: bool | None = None,
                 deducted: bool = False, face: str | None = None, natural: int | None = None,
                 throws: tuple[int, ...] = ()):
        self.value, self.sides, self.kept, self.rerolled = value, sides, kept, rerolled
        self.exploded, self.from_, self.success, self.deducted = exploded, from_, success, deducted
        self.face, self.natural, self.throws = face, natural, throws

    def __repr__(self) -> str:
        extra = "".join(f", {name}={getattr(self, name)!r}" for name, usual in _DIE_DEFAULTS
                        if getattr(self, name) is not usual and getattr(self, name) != usual)
        return f"Die({self.value}, d{self.sides}{extra})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Die):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    __hash__ = None  # type: ignore[assignment]


# a die's fields after its value and sides, with the value each has when nothing happened to it
_DIE_DEFAULTS: tuple[tuple[str, Any], ...] = (
    ("kept", True), ("rerolled", ()), ("exploded", False), ("from_", None), ("success", None),
    ("deducted", False), ("face", None), ("natural", None), ("throws", ()))


class TermTrace:
    """One dice term of a roll: its text, its dice in draw order and its result."""

    __slots__ = ("counting", "dice", "faces", "label", "result", "sides", "text")

    def __init__(self, raw: RawTerm):
        spec, vals, dropped, hist, parents, result = raw.spec, raw.values, raw.dropped, raw.rerolls, raw.parents, raw.result
        self.text: str = spec.text
        written = spec.raw if spec.raw is not None else spec.codes
        self.sides: int = spec.sides if written is None else len(written)
        self.faces: tuple[int, ...] | tuple[str, ...] | None = spec.raw
        if spec.codes is not None:
            self.faces = tuple(spec.face_text(i) for i in spec.codes)
        self.label: str | None = spec.label
        shown = spec.value
        self.result: int = result
        self.counting: bool = spec.success is not None
        succ, ded = spec.success, spec.deduct
        dice = []
        if spec.compound:  # the values are the dice's sums; `throws` holds each exploded die's throws
            success, deduct = spec.tests
            for i, v in enumerate(vals):
                kept = not dropped or i not in dropped
                thrown = raw.throws.get(i, ()) if raw.throws else ()
                dice.append(Die(v, self.sides, kept, tuple(map(shown, hist.get(i, ()))) if hist else (),
                                bool(thrown), None, (kept and meets(success, v)) if success is not None else None,
                                bool(kept and deduct is not None and meets(deduct, v)), None, None,
                                tuple(map(shown, thrown))))
            self.dice: tuple[Die, ...] = tuple(dice)
            return
        triggered = set(parents.values()) if parents else ()
        natural = spec.natural
        symbolic = spec.marks is not None
        for i, v in enumerate(vals):
            kept = not dropped or i not in dropped
            dice.append(Die(
                shown(v), self.sides, kept,
                tuple(map(shown, hist.get(i, ()))) if hist else (),
                i in triggered,
                parents.get(i) if parents else None,
                (kept and succ[v]) if succ is not None else None,
                bool(kept and ded is not None and ded[v]),
                spec.face_text(v) if symbolic else None,
                natural[v] if natural and natural[v] != shown(v) else None))
        self.dice = tuple(dice)

    def __repr__(self) -> str:
        return f"TermTrace({self.text!r}, {list(self.dice)!r}, result={self.result})"


class RollTrace:
    """The outcome of rolling an expression: its value and a trace of every dice term."""

    __slots__ = ("_raw", "_terms", "_written", "env", "value")

    def __init__(self, value: int, raw: list[RawTuple], env: Mapping[str, Any]):
        self.value = value
        self._raw: list[RawTerm] | None = None
        self._written = raw
        self._terms: tuple[TermTrace, ...] | None = None
        self.env = env

    @property
    def written(self) -> list[RawTuple]:
        """What each dice term left behind, as the roller wrote it (the tuples `raw` reads as records)."""
        return self._written

    @property
    def raw(self) -> list[RawTerm]:
        """What each dice term left behind, in roll order, as the roller records it."""
        if self._raw is None:
            self._raw = [as_record(t) for t in self._written]
        return self._raw

    @property
    def terms(self) -> tuple[TermTrace, ...]:
        """One trace per dice term, in roll order."""
        if self._terms is None:
            self._terms = tuple(TermTrace(r) for r in self.raw)
        return self._terms

    @property
    def dice(self) -> tuple[Die, ...]:
        """Every die of every term, in draw order."""
        return tuple(d for t in self.terms for d in t.dice)

    def to_json(self) -> list[dict[str, Any]]:
        """Every die as a JSON-ready dict, all terms flattened in draw order."""
        out: list[dict[str, Any]] = []
        for term in self.terms:
            base = len(out)
            for d in term.dice:
                item: dict[str, Any] = {"value": d.value}
                if not d.kept:
                    item["kept"] = False
                    item["dropped"] = True
                if d.rerolled:
                    item["rerolled"] = list(d.rerolled)
                if d.success is not None:
                    item["success"] = d.success
                if d.deducted:
                    item["deducted"] = True
                if d.exploded:
                    item["exploded"] = True
                if d.from_ is not None:
                    item["from"] = base + d.from_
                if d.throws:
                    item["throws"] = list(d.throws)
                if d.face is not None:
                    item["face"] = d.face
                if d.natural is not None:
                    item["rolled"] = d.natural
                out.append(item)
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}(value={self.value}, terms={list(self.terms)!r})"
