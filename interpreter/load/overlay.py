"""Overlays: a ruleset written as a few changes to another, applied as a JSON Merge Patch.

An overlay file names its base with ``extends:`` and has an id of its own (``ruleset:``).
The merged ruleset is the base's data with the overlay applied as a JSON Merge Patch (RFC
7386): mappings merge key by key, recursively; any other value (a number, text, a list
such as ``steps`` or table ``rows``) replaces the base's value whole; ``null`` removes the
key.  Overlays chain, at most ``limits.MAX_CHAIN`` files deep.

Every value of the merged data keeps the file it was written in: :class:`MergedDocument`
places a path in the file that wrote it (the overlay for what it set, the base for what
it inherited).
"""

from __future__ import annotations

from interpreter.errors import Location, SchemaViolation
from interpreter.load.document import Document, Path, json_path
from interpreter.record import field, record

__all__ = ["NOT_INHERITED", "MergedDocument", "changes", "inherited", "merge_patch", "overlay_problems"]

# The base's worked examples prove the base's rules text; a house rule may change what they give, so an
# overlay starts without them and lists its own.
NOT_INHERITED = ("examples",)


def inherited(base: dict[str, object]) -> dict[str, object]:
    """What an overlay takes over from its base: everything but the keys in NOT_INHERITED."""
    return {key: value for key, value in base.items() if key not in NOT_INHERITED}


def merge_patch(target: object, patch: object) -> object:
    """``patch`` applied to ``target`` as RFC 7386 says; neither argument is changed."""
    if not isinstance(patch, dict):
        return patch
    merged = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = merge_patch(merged.get(key), value)
    return merged


def changes(base: object, patch: object, path: Path = ()) -> list[tuple[str, str]]:
    """What a patch does to its base: (JSON path, "added", "changed" or "removed"), in patch order."""
    out: list[tuple[str, str]] = []
    if not isinstance(patch, dict):
        return out
    for key, value in patch.items():
        here = path + (key,)
        had = isinstance(base, dict) and key in base
        before = base.get(key) if isinstance(base, dict) else None
        if value is None:
            if had:
                out.append((json_path(here), "removed"))
        elif isinstance(value, dict) and isinstance(before, dict):
            out.extend(changes(before, value, here))
        elif not had:
            out.append((json_path(here), "added"))
        elif before != value:
            out.append((json_path(here), "changed"))
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
    the chain last.
    """

    layers: tuple[Document, ...] = field(default=(), repr=False, compare=False)

    def where(self, path: Path, *, key: bool = False) -> Location:
        path = tuple(path)
        owner = self._owner(self._existing(path))
        if owner is self:
            return super().where(path, key=key)
        return owner.where(path, key=key)

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

    def _owner(self, path: Path) -> Document:
        """The layer that wrote the value at an existing path of the merged data."""
        for layer in self.layers:
            node = layer.data
            for step in path:
                if not isinstance(node, dict):
                    return layer  # this layer replaced the whole value around the path
                if step not in node:
                    break
                node = node[step]
            else:
                return layer
        return self.layers[-1] if self.layers else self
