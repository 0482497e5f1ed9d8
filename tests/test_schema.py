"""The ruleset schema: a valid draft 2020-12 schema, every property described in it and in
docs/format.md, and every bundled ruleset valid against it."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from interpreter.load.bundled import bundled_ids, schema_path

ROOT = Path(__file__).resolve().parent.parent
FORMAT_DOC = ROOT / "docs" / "format.md"


def load_schema() -> dict[str, Any]:
    with open(schema_path(), encoding="utf-8") as handle:
        return json.load(handle)  # type: ignore[no-any-return]


def schema_properties(node: Any, pointer: str = "#") -> Iterator[tuple[str, str, Any]]:
    """(name, JSON pointer, subschema) of every property declared anywhere in a schema: under
    ``properties`` at any depth, so in ``$defs``, ``items``, ``additionalProperties`` and every
    ``oneOf`` branch too."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                for name, sub in value.items():
                    where = f"{pointer}/properties/{name}"
                    yield name, where, sub
                    yield from schema_properties(sub, where)
            else:
                yield from schema_properties(value, f"{pointer}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from schema_properties(value, f"{pointer}/{index}")


def undescribed(schema: dict[str, Any]) -> list[str]:
    """Pointers of the properties that have no description."""
    return [where for _, where, sub in schema_properties(schema)
            if not (isinstance(sub, dict) and isinstance(sub.get("description"), str) and sub["description"].strip())]


def yaml_examples(doc: str) -> str:
    """The text of the fenced yaml examples of a Markdown page."""
    return "\n".join(re.findall(r"^```yaml\n(.*?)^```", doc, flags=re.DOTALL | re.MULTILINE))


def mentioned(name: str, doc: str) -> bool:
    """Whether the page names a key: as `name` in backticks, or as `name:` keying a yaml example."""
    if f"`{name}`" in doc:
        return True
    return re.search(rf"(?<![\w-]){re.escape(name)}:(?=\s|$)", yaml_examples(doc)) is not None


def undocumented(schema: dict[str, Any], doc: str) -> list[tuple[str, str]]:
    """(name, pointer) of every schema property the page does not mention."""
    return [(name, where) for name, where, _ in schema_properties(schema) if not mentioned(name, doc)]


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return load_schema()


@pytest.fixture(scope="module")
def doc() -> str:
    return FORMAT_DOC.read_text(encoding="utf-8")


# ------------------------------------------------------------------------------ the schema


def test_schema_is_a_valid_draft_2020_12_schema(schema):
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def test_property_walk_reaches_defs_items_and_oneof_branches(schema):
    pointers = {where for _, where, _ in schema_properties(schema)}
    assert "#/properties/ruleset" in pointers
    assert "#/properties/tables/additionalProperties/properties/rows/items/properties/on" in pointers
    assert "#/properties/derived/additionalProperties/oneOf/1/properties/formula" in pointers
    assert "#/$defs/step/oneOf/0/properties/let" in pointers
    assert "#/$defs/step/oneOf/8/properties/contest/properties/ties" in pointers


def test_every_schema_property_has_a_description(schema):
    assert undescribed(schema) == []


def test_a_property_without_description_is_reported():
    bare = copy.deepcopy(load_schema())
    bare["$defs"]["step"]["oneOf"][1]["properties"]["roll"].pop("description")
    bare["properties"]["notes"]["additionalProperties"]["properties"]["title"]["description"] = " "
    assert undescribed(bare) == [
        "#/properties/notes/additionalProperties/properties/title",
        "#/$defs/step/oneOf/1/properties/roll",
    ]


# ------------------------------------------------------------------ the schema and the doc


def test_every_schema_property_is_described_in_format_md(schema, doc):
    assert undocumented(schema, doc) == []


def test_a_property_the_doc_does_not_describe_is_reported(schema, doc):
    grown = copy.deepcopy(schema)
    grown["properties"]["zorblax"] = {"type": "string", "description": "A key no page mentions."}
    grown["$defs"]["step"]["oneOf"][5]["properties"]["quuxcount"] = {"type": "integer", "description": "Another."}
    before = undocumented(schema, doc)
    assert [item for item in undocumented(grown, doc) if item not in before] == [
        ("zorblax", "#/properties/zorblax"),
        ("quuxcount", "#/$defs/step/oneOf/5/properties/quuxcount"),
    ]


def test_a_key_counts_as_documented_only_in_backticks_or_as_a_yaml_example_key():
    page = "Use `alpha` here. The word beta: is prose.\n\n```yaml\ngamma: 1\nrow: {on: 2, delta: x}\n```\n"
    assert [mentioned(n, page) for n in ("alpha", "beta", "gamma", "on", "delta", "row", "epsilon")] == [
        True, False, True, True, True, True, False]


# ---------------------------------------------------------------------- the bundled rulesets


@pytest.mark.parametrize("ruleset_id", bundled_ids())
def test_bundled_ruleset_validates(rules, ruleset_id):
    result = rules("validate", ruleset_id)
    assert result.stderr == ""
    assert result.exit_code == 0
    assert result.stdout == f"{ruleset_id} (bundled): valid\n"
