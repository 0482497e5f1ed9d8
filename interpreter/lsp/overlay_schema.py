"""The overlay schema, derived from the ruleset schema: what a JSON Merge Patch of a ruleset may hold.

An overlay is applied to its base as RFC 7386 says: a mapping merges key by key, anything else
(text, numbers, lists such as ``steps`` or table ``rows``) replaces the base's value whole, and
``null`` removes a key.  So in an overlay every key of every mapping is optional and may be
``null``, while a list or a scalar must be valid whole, exactly as in a ruleset.  A list may also
be patched (see :mod:`interpreter.load.patches`): any list by a mapping of ``prepend:``/``append:``
lists of its items, a procedure's ``steps`` by a mapping of step names to a patch of the step,
``null`` or ``before:``/``after:`` lists of steps.  The overlay must name its base (``extends``)
and its own id (``ruleset``).

``schema/overlay.schema.json`` is what :func:`overlay_schema` makes of ``schema/ruleset.schema.json``
(a test checks it); ``python tools/overlay_schema.py`` writes it again after the ruleset schema changes.
"""

from __future__ import annotations

import copy
from typing import Any

from interpreter.load.patches import ENDS, SIDES

__all__ = ["OVERLAY_ID", "overlay_schema"]

OVERLAY_ID = "https://rulesmith.invalid/overlay.schema.json"
_PATCH = "-patch"  # the suffix of a definition's patch form in $defs
_DROPPED = ("required", "minProperties")  # a patch may leave out what a whole value must have


def _nullable(node: Any) -> Any:
    """A node that also allows null (a merge patch's removal)."""
    if not isinstance(node, dict) or "type" not in node and not any(
            k in node for k in ("$ref", "anyOf", "oneOf", "allOf", "enum", "const")):
        return node  # it allows anything already
    if "type" in node and not any(k in node for k in ("$ref", "anyOf", "oneOf", "allOf", "enum", "const")):
        kinds = node["type"] if isinstance(node["type"], list) else [node["type"]]
        return {**node, "type": kinds + ["null"] if "null" not in kinds else kinds}
    wrapped: dict[str, Any] = {"anyOf": [{"type": "null"}, node]}
    if "description" in node:
        wrapped = {"description": node["description"], **wrapped}
    return wrapped


def _added_to(node: dict[str, object]) -> dict[str, object]:
    """A list's schema, or a mapping adding items of it at its start or end."""
    ends = {"type": "object", "description": "Items added to the base's list: prepend at its start, append at its end.",
            "properties": {end: {**node, "description": f"Items to {end}."} for end in ENDS},
            "additionalProperties": False, "minProperties": 1}
    return {"description": node.get("description", "A list."), "anyOf": [node, ends]}


def _step_patches(node: dict[str, object], step: object) -> dict[str, object]:
    """A procedure's steps schema, or a mapping of step names to what becomes of each step."""
    sides = {"type": "object", "description": "Steps inserted around the named step.",
             "properties": {side: {**node, "description": f"Steps inserted {side} it."} for side in SIDES},
             "additionalProperties": False, "minProperties": 1}
    named = {"type": "object", "description": "Named steps changed: a step patch merged onto the step, null "
                                              "removing it, or before:/after: lists of steps inserted around it.",
             "propertyNames": {"$ref": "#/$defs/step_name"},
             "additionalProperties": {"anyOf": [{"type": "null"}, sides, step]}}
    return {"description": node.get("description", "The steps."), "anyOf": [node, named]}


class _Deriver:
    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.wanted: list[str] = []  # definitions whose patch form is used

    def patch(self, node: Any) -> Any:
        """What may stand in a patch where a value of this schema stands."""
        if not isinstance(node, dict):
            return node
        out = {k: copy.deepcopy(v) for k, v in node.items() if k not in _DROPPED}
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            if name not in self.wanted:
                self.wanted.append(name)
            out["$ref"] = f"#/$defs/{name}{_PATCH}"
        if isinstance(node.get("properties"), dict):
            out["properties"] = {k: _nullable(self._listed(v)) for k, v in node["properties"].items()}
        if isinstance(node.get("additionalProperties"), dict):
            out["additionalProperties"] = _nullable(self.patch(node["additionalProperties"]))
        if "oneOf" in node:  # without their required keys the forms overlap: any of them will do
            out.pop("oneOf")
            out["anyOf"] = [self.patch(branch) for branch in node["oneOf"]]
        for word in ("anyOf", "allOf"):
            if word in node:
                out[word] = [self.patch(branch) for branch in node[word]]
        return out  # "items" stay whole: a list replaces the base's list

    def _listed(self, node: object) -> object:
        """A property's patch form; a list also in the forms that patch it in place."""
        out = self.patch(node)
        return _added_to(out) if isinstance(node, dict) and node.get("type") == "array" else out


def overlay_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema of an overlay of rulesets that ``schema`` describes."""
    deriver = _Deriver(schema)
    root: dict[str, Any] = deriver.patch(schema)
    root["$id"] = OVERLAY_ID
    root["title"] = "rulesmith overlay"
    root["description"] = ("A ruleset written as changes to another (extends: BASE), applied as a JSON Merge Patch: "
                           "every key is optional, null removes it, a list or a value replaces the base's whole; a list may "
                           "instead be added to (prepend:, append:) and a procedure's steps changed by name.")
    root["required"] = ["extends", "ruleset"]
    for key in ("extends", "ruleset"):
        root["properties"][key] = copy.deepcopy(schema["properties"][key])
    procedure = root["properties"]["procedures"]["additionalProperties"]["properties"]
    steps = deriver.patch(schema["properties"]["procedures"]["additionalProperties"]["properties"]["steps"])
    procedure["steps"] = _nullable(_step_patches(steps, deriver.patch({"$ref": "#/$defs/step"})))
    definitions = copy.deepcopy(schema.get("$defs", {}))
    done: set[str] = set()
    while len(done) < len(deriver.wanted):
        for name in list(deriver.wanted):
            if name not in done:
                done.add(name)
                definitions[f"{name}{_PATCH}"] = deriver.patch(schema["$defs"][name])
    root["$defs"] = definitions
    return root
