"""The two JSON Schema keywords jsonschema checks our way when it explains what is wrong: oneOf and pattern.

* ``pattern``: a pattern ending in ``$`` matches the whole string, as JSON Schema means it
  (Python's ``re.search`` would let ``$`` match before a final newline, so ``"p\\n"`` passed as a name).
* ``oneOf`` whose branches are mappings told apart by a required key (a procedure step and its
  kind): only the branch whose key the value holds is searched for the problems inside it; every
  other branch is shown to fail by its keys alone (a required key missing, a key it does not
  allow), which is all the messages read from it.  jsonschema's own ``oneOf`` descends into every
  branch, and each branch that allows ``steps`` descends into the nested steps again, so its time
  grew about fourfold per level of nesting.  The answer (valid or not) is the same.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jsonschema.exceptions import ValidationError

from interpreter.load.shape import whole_pattern

__all__ = ["one_of", "pattern"]


def pattern(validator: Any, wanted: str, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
    """The ``pattern`` keyword, matching the whole string."""
    if validator.is_type(instance, "string") and whole_pattern(wanted).search(instance) is None:
        yield ValidationError(f"{instance!r} does not match {wanted!r}")


def _kind_key(branch: object) -> str | None:
    """The key that tells a mapping branch apart: the first it requires."""
    if isinstance(branch, dict) and branch.get("type") == "object" and branch.get("required"):
        key = branch["required"][0]
        return key if isinstance(key, str) else None
    return None


def _key_errors(validator: Any, branch: dict[str, Any], instance: dict[str, Any], index: int) -> list[ValidationError]:
    """What a mapping branch says about a value's keys alone: missing required keys, keys it does not allow."""
    keys_only: dict[str, object] = {"type": "object", "required": branch.get("required", [])}
    if branch.get("additionalProperties") is False and "patternProperties" not in branch:
        keys_only["properties"] = dict.fromkeys(branch.get("properties", {}), True)
        keys_only["additionalProperties"] = False
    errors = list(validator.descend(instance, keys_only, schema_path=index))
    for error in errors:  # the messages read the branch's own properties and description
        error.schema = branch
    return errors


def one_of(validator: Any, branches: list[Any], instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
    """The ``oneOf`` keyword, searching deeply only the branch a mapping's kind key picks."""
    keys = [_kind_key(branch) for branch in branches]
    keyed = isinstance(instance, dict) and all(keys)
    present = [i for i, key in enumerate(keys) if keyed and key in instance]
    chosen = present[0] if len(present) == 1 else None
    context: list[ValidationError] = []
    valid = 0
    for index, branch in enumerate(branches):
        if keyed and index != chosen:
            shallow = _key_errors(validator, branch, instance, index)
            if shallow:  # it fails by its keys: no need to look inside
                context.extend(shallow)
                continue
        errors = list(validator.descend(instance, branch, schema_path=index))
        if errors:
            context.extend(errors)
        else:
            valid += 1
    if valid == 0:
        yield ValidationError("the value is not valid under any of the given schemas", context=context)
    elif valid > 1:
        yield ValidationError("the value is valid under more than one of the given schemas")
