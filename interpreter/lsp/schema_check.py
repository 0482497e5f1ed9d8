"""The schema check of a ruleset being edited, procedure by procedure, each result kept for the next edit.

The schema checks each procedure on its own (nothing in it relates two procedures, nor a
procedure to the rest of the file), so the problems of a whole document are those of each
procedure checked alone plus those of the rest.  Each part's problems are kept by the part's
data: an edit to one procedure checks only that procedure again.  The problems are the real
checker's (:func:`interpreter.load.schema.iter_errors`), in the order
:func:`interpreter.load.checked.check_schema` gives them (a test compares the two).

Where the schema is not of that shape (a keyword at its top level or on ``procedures`` that
could relate parts), or the document has no mapping of procedures, the whole document is
checked as ``check_schema`` does.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any

from interpreter.errors import Invalid, Location, RulesError, SchemaViolation
from interpreter.load.document import Document, Path

__all__ = ["SchemaCheck"]

# What the top of the schema and its `procedures` may hold for the parts to be checked apart.
_TOP = frozenset({"$schema", "$id", "title", "description", "type", "additionalProperties", "required",
                  "properties", "$defs"})
_PROCEDURES = frozenset({"type", "description", "propertyNames", "additionalProperties", "minProperties"})

Found = list[tuple[str, str | None, Path, bool]]  # (message, hint, path, at the key)


class _Recorder:
    """A document for the checker that records where each problem it reports is placed."""

    def __init__(self, data: Any, doc: Document) -> None:
        self.data = data
        self.doc = doc
        self.placed: list[tuple[Path, bool]] = []

    def where(self, path: Path, *, key: bool = False) -> Location:
        self.placed.append((tuple(path), key))
        return Location()


class SchemaCheck:
    """Checks documents against the ruleset schema, keeping each part's problems by its data."""

    def __init__(self, most: int = 2048) -> None:
        self._found: OrderedDict[str, Found] = OrderedDict()
        self._most = most
        self.checked = 0  # parts checked so far (the rest came from memory)

    def __call__(self, doc: Document) -> None:
        """Raise Invalid with every schema problem of a document, as ``check_schema`` does."""
        from interpreter.load.checked import check_schema, in_file_order
        from interpreter.load.schema import schema

        data = doc.data
        procedures = data.get("procedures") if isinstance(data, dict) else None
        if not _apart(schema()) or not isinstance(procedures, dict) or not procedures:
            check_schema(doc)
            return
        names = list(procedures)
        # the rest of the file, with its first procedure (so that `procedures` is not empty)
        parts = [{**data, "procedures": {names[0]: procedures[names[0]]}}]
        parts += [{"ruleset": "part", "title": "part", "procedures": {name: procedures[name]}} for name in names[1:]]
        problems: list[RulesError] = []
        for part in parts:
            for message, hint, path, key in self._problems(part, doc):
                problems.append(SchemaViolation(message, doc.where(path, key=key), hint))
        if problems:
            raise Invalid(in_file_order(problems, doc), doc)  # (later stages may check the rest: see pipeline)

    def _problems(self, part: dict[str, Any], doc: Document) -> Found:
        from interpreter.load.schema import iter_errors

        try:
            key = json.dumps(part, ensure_ascii=False, allow_nan=True)
        except (TypeError, ValueError):
            key = None
        known = self._found.get(key) if key is not None else None
        if known is not None:
            self._found.move_to_end(key)  # type: ignore[arg-type]
            return known
        recorder = _Recorder(part, doc)
        violations = list(iter_errors(recorder))
        found = [(v.message, v.hint, path, at_key) for v, (path, at_key) in zip(violations, recorder.placed, strict=True)]
        self.checked += 1
        if key is not None:
            self._found[key] = found
            if len(self._found) > self._most:
                self._found.popitem(last=False)
        return found


def _apart(schema: dict[str, Any]) -> bool:
    """Whether the schema checks each procedure apart from the rest (see the module's docstring)."""
    procedures = schema.get("properties", {}).get("procedures")
    return (set(schema) <= _TOP and isinstance(procedures, dict) and set(procedures) <= _PROCEDURES
            and set(schema.get("required", [])) <= {"ruleset", "title", "procedures"})
