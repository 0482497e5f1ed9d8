"""Overlays: a ruleset written as a few changes to another, applied as a JSON Merge Patch.

An overlay file names its base with ``extends:`` and has an id of its own (``ruleset:``).
The merged ruleset is the base's data with the overlay applied as a JSON Merge Patch (RFC
7386): mappings merge key by key, recursively; any other value (a number, text, a list
such as ``steps`` or table ``rows``) replaces the base's value whole; ``null`` removes the
key.  A list may instead be patched in place: named steps changed, removed or inserted
around, items prepended or appended (:mod:`interpreter.load.patches`).  Overlays chain, at
most ``limits.MAX_CHAIN`` files deep.

Every value of the merged data keeps the file it was written in: :class:`MergedDocument`
places a path in the file that wrote it (the overlay for what it set, the base for what
it inherited), following the recorded origin of each item of a patched list.
"""

from __future__ import annotations

from collections.abc import Mapping

from interpreter.errors import Location, SchemaViolation
from interpreter.load.document import Document, Path, json_path
from interpreter.load.patches import SIDES, Origin, is_insertion, is_list_patch
from interpreter.record import field, record, replace

__all__ = ["NOT_INHERITED", "MergedDocument", "changes", "inherited", "overlay_problems"]

# The base's worked examples prove the base's rules text; a house rule may change what they give, so an
# overlay starts without them and lists its own.
NOT_INHERITED = ("examples",)


def inherited(base: dict[str, object]) -> dict[str, object]:
    """What an overlay takes over from its base: everything but the keys in NOT_INHERITED."""
    return {key: value for key, value in base.items() if key not in NOT_INHERITED}


def changes(base: object, patch: object, path: Path = ()) -> list[tuple[str, str]]:
    """What a patch does to its base: (JSON path, what), what being "added", "changed", "removed", "added to"
    (a list appended to) or "steps inserted before"/"after"; a named step's path ends in ``[its name]``."""
    out: list[tuple[str, str]] = []
    if not isinstance(patch, dict):
        return out
    steps = len(path) == 2 and path[0] == "procedures"
    for key, value in patch.items():
        here = path + (key,)
        had = isinstance(base, dict) and key in base
        before = base.get(key) if isinstance(base, dict) else None
        if steps and key == "steps" and isinstance(value, dict) and isinstance(before, list):
            out.extend(_step_changes(value, json_path(here)))
        elif isinstance(before, list) and is_list_patch(value):
            out.append((json_path(here), "added to"))
        elif value is None:
            if had:
                out.append((json_path(here), "removed"))
        elif isinstance(value, dict) and isinstance(before, dict):
            out.extend(changes(before, value, here))
        elif not had:
            out.append((json_path(here), "added"))
        elif before != value:
            out.append((json_path(here), "changed"))
    return out


def _step_changes(patch: Mapping[str, object], steps: str) -> list[tuple[str, str]]:
    out = []
    for name, value in patch.items():
        at = f"{steps}[{name}]"
        if value is None:
            out.append((at, "removed"))
        elif is_insertion(value):
            out += [(at, f"steps inserted {side}") for side in SIDES if side in value]
        else:
            out.append((at, "changed"))
    return out


def overlay_problems(doc: Document) -> list[SchemaViolation]:
    """What makes an overlay file unusable before it is merged: its own id and its base's name."""
    found = []
    data = doc.data
    if not isinstance(data.get("extends"), str) or not data["extends"].strip():
        found.append(SchemaViolation("'extends' names the ruleset this one changes: an id or a relative path",
                                     doc.where(("extends",))))
    if "ruleset" not in data:
        found.append(SchemaViolation("missing required key 'ruleset'", doc.where(()),
                                     "an overlay needs an id of its own"))
    return found


@record
class MergedDocument(Document):
    """The data of an overlay chain merged, each part placed in the file that wrote it.

    ``layers`` are the files' documents, the overlay first and the file at the root of
    the chain last; ``moved[i]`` gives the origin of each item of a list that applying
    ``layers[i]`` made anew (see :mod:`interpreter.load.patches`), by its path in the data
    that layer made.
    """

    layers: tuple[Document, ...] = field(default=(), repr=False, compare=False)
    moved: tuple[Mapping[Path, Origin], ...] = field(default=(), repr=False, compare=False)

    def where(self, path: Path, *, key: bool = False) -> Location:
        path = tuple(path)
        owner, there = self._place(self._existing(path))
        if owner is self:
            return super().where(path, key=key)
        if there == path:
            return owner.where(path, key=key)
        return replace(owner.where(there, key=key), path=json_path(path))

    def _existing(self, path: Path) -> Path:
        """The longest start of a path that exists in the merged data."""
        node = self.data
        size = 0
        for step in path:
            in_map = isinstance(node, dict) and isinstance(step, str) and step in node
            in_list = (isinstance(node, list) and isinstance(step, int) and not isinstance(step, bool)
                       and 0 <= step < len(node))
            if in_map or in_list:
                node = node[step]
            else:
                break
            size += 1
        return path[:size]

    def _place(self, path: Path) -> tuple[Document, Path]:
        """The layer that wrote the value at an existing path of the merged data, and its path there."""
        if not self.layers:
            return self, path
        for i, layer in enumerate(self.layers[:-1]):
            moved = self.moved[i] if i < len(self.moved) else {}
            size = next((n for n in range(len(path), 0, -1) if path[:n] in moved), 0) if moved else 0
            written, was = moved[path[:size]] if size else (path[:0], path[:0])
            rest = path[size:]
            if written is not None and _writes(layer.data, written + rest):
                return layer, written + rest
            if was is None:
                return layer, written + rest if written is not None else path
            path = was + rest
        return self.layers[-1], path


def _writes(data: object, path: Path) -> bool:
    """Whether a layer's data writes the value at a path: holds it, or replaces a value around it whole."""
    node = data
    for step in path:
        if not isinstance(node, dict):
            return True
        if step not in node:
            return False
        node = node[step]
    return True
