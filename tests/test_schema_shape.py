"""The shape check (the schema compiled into a yes-or-no test) agrees with jsonschema, both take time in
proportion to the document however deeply steps nest, and names match their patterns as whole strings."""

from __future__ import annotations

import contextlib
import copy
import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from interpreter.errors import Invalid, RulesError
from interpreter.load import schema
from interpreter.load.bundled import bundled_ids, rulesets_dir, schema_path
from interpreter.load.checked import check_schema
from interpreter.load.document import Document
from interpreter.load.shape import compile_schema, ruleset_shape
from interpreter.load.yaml import load_file, load_text

BROKEN = Path(__file__).resolve().parent / "broken" / "rulesets"
ODD_VALUES = [None, 0, 1, 1.0, 1.5, -1, 10**6, "", "x", "p\n", "Two words", [], [1], {}, {"x": 1}, True, False]


def jsonschema_valid(data: Any) -> bool:
    """Whether our jsonschema validator (the one that explains problems) finds none."""
    return not any(True for _ in schema._validator("ruleset.schema.json").iter_errors(data))


def mutations(data: Any, rng: random.Random, count: int) -> list[Any]:
    """Copies of a document, each with one value replaced, one key removed or one key added somewhere."""
    paths: list[tuple[Any, ...]] = []

    def walk(node: Any, path: tuple[Any, ...]) -> None:
        paths.append(path)
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, path + (key,))
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, path + (index,))

    walk(data, ())
    out = []
    for path in rng.sample(paths[1:], min(count, len(paths) - 1)):
        changed = copy.deepcopy(data)
        parent = changed
        for step in path[:-1]:
            parent = parent[step]
        how = rng.randrange(3)
        if how == 0 or not isinstance(parent, dict):
            parent[path[-1]] = copy.deepcopy(rng.choice(ODD_VALUES))
        elif how == 1:
            del parent[path[-1]]
        else:
            parent[rng.choice(["stpes", "extra", "p\n", "roll", "repeat", "while"])] = copy.deepcopy(rng.choice(ODD_VALUES))
        out.append(changed)
    return out


def broken_documents() -> list[Any]:
    docs = []
    for path in sorted(BROKEN.glob("*.yaml")):
        with contextlib.suppress(RulesError):  # (a file broken in its YAML has no document to check)
            docs.append(load_file(path).data)
    return docs


@pytest.mark.parametrize("ruleset_id", bundled_ids())
def test_the_shape_check_and_jsonschema_agree_on_mutated_rulesets(ruleset_id):
    data = load_file(rulesets_dir() / f"{ruleset_id}.yaml").data
    shape = ruleset_shape()
    documents = [data, *mutations(data, random.Random(ruleset_id), 20)]
    disagree = [doc for doc in documents if shape(doc) != jsonschema_valid(doc)]
    assert not disagree, json.dumps(disagree[0])[:2000]
    assert sum(shape(doc) for doc in documents) < len(documents)  # (some mutations are invalid: the test can fail)


def test_the_shape_check_and_jsonschema_agree_on_every_broken_ruleset():
    shape = ruleset_shape()
    documents = broken_documents()
    assert len(documents) > 30
    assert [shape(doc) for doc in documents] == [jsonschema_valid(doc) for doc in documents]


def test_our_one_of_decides_as_jsonschemas_own_does():
    """Looking only at the branch a step's key picks changes the time, never the answer (names without newlines)."""
    plain = Draft202012Validator(json.loads(schema_path().read_text(encoding="utf-8")))
    data = load_file(rulesets_dir() / "lockwood.yaml").data
    rng = random.Random(7)
    documents = [doc for doc in mutations(data, rng, 15) if "\n" not in json.dumps(doc).replace("\\n", "")]
    documents += broken_documents()
    assert [jsonschema_valid(doc) for doc in documents] == [plain.is_valid(doc) for doc in documents]


def test_the_shape_check_refuses_a_keyword_it_does_not_know():
    with pytest.raises(ValueError, match="does not know the keyword"):
        compile_schema({"type": "object", "if": {"required": ["a"]}})
    with pytest.raises(ValueError, match="only at the end"):
        compile_schema({"type": "string", "pattern": "^a$|^b$"})


@pytest.mark.parametrize("value, valid", [(1, True), (1.0, True), (True, False), (1.5, False), ("1", False)])
def test_the_shape_check_reads_integer_as_jsonschema_does(value, valid):
    check = compile_schema({"type": "integer"})
    assert check(value) is valid is Draft202012Validator({"type": "integer"}).is_valid(value)


def nested(depth: int, inner: str = "- let: {x: 1}") -> str:
    """A ruleset whose one procedure nests `repeat` steps `depth` deep around one step."""
    lines = ["ruleset: deep", "title: Deep", "procedures:", "  p:", "    outcomes: {done: done}", "    steps:"]
    indent = "      "
    for _ in range(depth):
        lines += [f"{indent}- repeat: 2", f"{indent}  steps:"]
        indent += "    "
    lines += [indent + inner, "      - decide: [{outcome: done}]"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("depth", [8, 12, 20])
def test_nested_steps_are_checked_in_time_proportional_to_their_size(depth):
    """Each level once cost about four times the level inside it: 12 nested `repeat` never answered.
    (A guard against the old growth, not a measurement: bench/ measures.)"""
    started = time.process_time()
    check_schema(load_text(nested(depth)))
    with pytest.raises(Invalid):
        check_schema(load_text(nested(depth, "- rol: {x: 1d6}")))
    assert time.process_time() - started < 5


def test_a_mistake_deep_inside_nested_steps_is_placed_with_its_hint():
    source = nested(12, "- rol: {x: 1d6}")
    expected = ("<string>:31:57: $.procedures.p" + ".steps[0]" * 13 + ".rol: unknown step kind 'rol'; "
                "did you mean 'roll'?")
    got = [str(e) for e in schema.iter_errors(load_text(source))]
    assert got == [expected]


@pytest.mark.parametrize("where, text", [
    ("id", 'ruleset: "nl2\\n"'),
    ("procedure", '  "p\\n":'),
])
def test_a_name_ending_in_a_newline_is_refused(where, text):
    """A pattern's `$` once matched before a final newline (Python's re.search): `"p\\n"` was a valid name."""
    source = nested(1)
    source = source.replace("ruleset: deep", text) if where == "id" else source.replace("  p:", text)
    with pytest.raises(Invalid) as caught:
        check_schema(load_text(source))
    message = str(caught.value.problems[0])
    assert "is not a valid" in message
    assert "\n" not in str(caught.value.problems[0].message).replace("\n'", "")  # (placed, worded)


def test_a_name_ending_in_a_newline_is_one_line_on_the_command_line(rules, tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text(nested(1).replace("  p:", '  "p\\n":'), encoding="utf-8")
    result = rules("validate", str(path))
    assert result.exit_code == 1
    assert result.stderr == (f"{path}:4:3: $.procedures[\"p\\n\"]: 'p\\n' is not a valid name: use letters, digits "
                             "and _, not starting with a digit; did you mean 'p'?\n")


def test_a_document_with_floats_for_whole_numbers_is_not_refused_by_either_check():
    doc = Document(load_text(nested(1).replace("repeat: 2", "repeat: 2.0")).data, "r.yaml")
    assert ruleset_shape()(doc.data) is jsonschema_valid(doc.data) is True
