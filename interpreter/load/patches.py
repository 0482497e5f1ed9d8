"""One overlay file applied to the data of its base: RFC 7386, and the patch forms of lists.

JSON Merge Patch replaces a list whole.  An overlay may instead change a list in place:

- under ``procedures.NAME.steps``, a mapping keyed by step names (a step's ``name:``, unique
  within its procedure, wherever the step sits: nested ``then``, ``else`` and ``steps`` lists
  included).  Each value is ``null`` (the step is removed), ``{before: [...], after: [...]}``
  (steps inserted before or after it) or a patch merged onto the step as RFC 7386 merges any
  mapping (``{let: {damage: "damage * 2"}}`` changes that one binding);
- wherever the base holds a list, a mapping of ``prepend:`` and/or ``append:`` lists, added at
  its start or end (a table's ``rows``, a decide's branches, a procedure's ``samples``).

A merged list's items no longer sit at the paths their file gives them, so each item of a list
made here is recorded with where it came from (:data:`Origin`), and
:class:`interpreter.load.overlay.MergedDocument` follows those records to place an error in the
file, and at the line, that wrote the value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeGuard

from interpreter.errors import RulesError, SchemaViolation
from interpreter.hints import suggest
from interpreter.load.document import Document, Path

__all__ = ["ENDS", "NESTED", "SIDES", "Origin", "apply", "is_insertion", "is_list_patch", "step_names"]

NESTED = ("then", "else", "steps")  # the keys of a step that hold lists of steps (a test checks them against the schema)
SIDES = ("before", "after")  # what a named step's patch may insert around it
ENDS = ("prepend", "append")  # what a patch of a list may add to it

Origin = tuple[Path | None, Path | None]
"""Where a merged value came from: its path in the overlay file (None: not written there) and in the data
the overlay was applied to (None: new in the overlay)."""

_KEEP = object()


def is_list_patch(patch: object) -> TypeGuard[dict[str, list[object]]]:
    """Whether a patch adds to a list: a mapping of ``prepend:``/``append:`` lists and nothing else."""
    return (isinstance(patch, dict) and bool(patch) and all(k in ENDS for k in patch)
            and all(isinstance(v, list) for v in patch.values()))


def is_insertion(patch: object) -> TypeGuard[dict[str, object]]:
    """Whether a named step's patch inserts steps around it: a mapping of ``before:``/``after:`` and nothing else."""
    return isinstance(patch, dict) and bool(patch) and all(k in SIDES for k in patch)


def step_names(steps: object, path: Path = ()) -> dict[str, Path]:
    """Each name of a list of steps, nested lists included, with where its first step is."""
    found: dict[str, Path] = {}
    for i, step in enumerate(steps if isinstance(steps, list) else ()):
        if not isinstance(step, dict):
            continue
        if isinstance(step.get("name"), str):
            found.setdefault(step["name"], path + (i,))
        for key in NESTED:
            for name, where in step_names(step.get(key), path + (i, key)).items():
                found.setdefault(name, where)
    return found


class _Apply:
    """One overlay applied: the merged data, each moved item's origin, and the problems found."""

    def __init__(self, doc: Document, base: str, procedures: list[str]) -> None:
        self.doc = doc
        self.base = base  # what messages call the ruleset extended
        self.procedures = procedures  # the procedures it has
        self.moved: dict[Path, Origin] = {}
        self.problems: list[RulesError] = []

    def merge(self, target: object, patch: object, here: Path, written: Path, was: Path) -> object:
        """``patch`` (at ``written`` in the overlay) applied to ``target`` (at ``was`` before) to stand at ``here``."""
        if not isinstance(patch, dict):
            self._forget(here)
            return patch
        if len(here) == 2 and here[0] == "procedures" and target is None and "steps" not in patch:
            self._no_procedure(here[1], written)
        if len(here) == 3 and here[0] == "procedures" and here[2] == "steps":
            if target is None:
                self._no_procedure(here[1], written)
                return None
            if isinstance(target, list):
                return self.steps(target, patch, here, written, was)
        if isinstance(target, list) and is_list_patch(patch):
            return self.extend(target, patch, here, written, was)
        if not isinstance(target, dict):
            self._forget(here)
        merged = dict(target) if isinstance(target, dict) else {}
        for key, value in patch.items():
            if value is None:
                merged.pop(key, None)
                self._forget(here + (key,))
            else:
                merged[key] = self.merge(merged.get(key), value, here + (key,), written + (key,), was + (key,))
        return merged

    def _forget(self, here: Path) -> None:
        """Drop the origins recorded under a value the overlay replaces."""
        if self.moved:
            for path in [p for p in self.moved if p[:len(here)] == here]:
                del self.moved[path]

    def _no_procedure(self, name: object, written: Path) -> None:
        self.problems.append(SchemaViolation(
            f"no procedure '{name}' in {self.base} to change", self.doc.where(written[:2], key=True),
            suggest(str(name), self.procedures) or "a new procedure needs its whole list of steps"))

    def extend(self, target: list[object], patch: Mapping[str, list[object]], here: Path, written: Path,
               was: Path) -> list[object]:
        """A list with ``prepend:`` items before the base's and ``append:`` items after them."""
        self._forget(here)
        out: list[object] = []
        for i, value in enumerate(patch.get("prepend", ())):
            self._put(out, value, here, (written + ("prepend", i), None))
        for j, value in enumerate(target):
            self._put(out, value, here, (None, was + (j,)))
        for i, value in enumerate(patch.get("append", ())):
            self._put(out, value, here, (written + ("append", i), None))
        return out

    def _put(self, out: list[object], value: object, here: Path, origin: Origin) -> None:
        self.moved[here + (len(out),)] = origin
        out.append(value)

    def steps(self, target: list[object], patch: dict[str, object], here: Path, written: Path,
              was: Path) -> list[object]:
        """A procedure's steps with the named ones patched (see the module's docstring)."""
        known = step_names(target)
        if is_list_patch(patch) and not any(end in known for end in patch):
            return self.extend(target, patch, here, written, was)  # steps added at the start or the end
        for name, change in patch.items():
            at = written + (name,)
            if name not in known:
                hint = suggest(str(name), known) or ("its steps have no names" if not known else
                                                f"its named steps: {', '.join(known)}")
                self.problems.append(SchemaViolation(f"no step named '{name}' in {here[1]}",
                                                     self.doc.where(at, key=True), hint))
            elif is_insertion(change):
                for side in SIDES:
                    if side in change and not isinstance(change[side], list):
                        self.problems.append(SchemaViolation(f"'{side}' takes a list of steps",
                                                             self.doc.where(at + (side,))))
            elif change is not None and not isinstance(change, dict):
                self.problems.append(SchemaViolation(
                    f"step '{name}' is changed by a mapping: its keys merged onto the step, or before: and after: "
                    "lists of steps to insert", self.doc.where(at), "null removes the step"))
        self._forget(here)
        return self._rebuild(target, patch, here, written, was)

    def _rebuild(self, items: list[object], patch: dict[str, object], here: Path, written: Path,
                 was: Path) -> list[object]:
        out: list[object] = []
        for j, item in enumerate(items):
            name = item.get("name") if isinstance(item, dict) else None
            change = patch.get(name, _KEEP) if isinstance(name, str) else _KEEP
            if change is None:
                continue
            inserts: dict[str, object] = change if is_insertion(change) else {}
            for i, value in enumerate(_items(inserts.get("before"))):
                self._put(out, value, here, (written + (str(name), "before", i), None))
            at, old = here + (len(out),), was + (j,)
            if isinstance(item, dict):
                item = {key: self._rebuild(value, patch, at + (key,), written, old + (key,))
                        if key in NESTED and isinstance(value, list) else value for key, value in item.items()}
            if change is _KEEP or inserts:
                self.moved[at] = (None, old)
            else:
                self.moved[at] = (written + (str(name),), old)
                item = self.merge(item, change, at, written + (str(name),), old)
            out.append(item)
            for i, value in enumerate(_items(inserts.get("after"))):
                self._put(out, value, here, (written + (str(name), "after", i), None))
        return out


def _items(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def apply(target: dict[str, object], doc: Document, base: str) -> tuple[object, dict[Path, Origin], list[RulesError]]:
    """An overlay's document applied to the data of the ruleset it extends (called ``base`` in messages):
    the merged data, the origin of every item of a list made anew, and what is wrong with the patch."""
    procedures = target.get("procedures")
    patcher = _Apply(doc, base, list(procedures) if isinstance(procedures, dict) else [])
    merged = patcher.merge(target, doc.data, (), (), ())
    return merged, patcher.moved, patcher.problems
