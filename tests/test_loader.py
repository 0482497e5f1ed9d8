"""The YAML loader: plain data, FILE:LINE:COL for every value, and every refusal."""

from __future__ import annotations

import dataclasses
import json
import math
import random
import time
from pathlib import Path

import pytest

from interpreter import limits
from interpreter.errors import Location, RulesetLoadError
from interpreter.load.document import Document, json_path
from interpreter.load.yaml import load_file, load_text

BROKEN = Path(__file__).parent / "broken" / "loader"


@pytest.fixture(autouse=True)
def _under_a_second(request):
    """Every case here must finish in under a second (of this process's CPU time, so
    that other work on the machine does not make it flaky), except those that parse a whole
    mebibyte, which ruamel.yaml takes a second or more over (repeated loads of a ruleset
    come from the parse cache instead)."""
    start = time.process_time()
    yield
    if request.node.name in ("test_a_mebibyte_of_plain_data_loads", "test_file_too_big_text"):
        return
    elapsed = time.process_time() - start
    assert elapsed < 1.0, f"took {elapsed:.2f} s"


@pytest.fixture
def load():
    """The loader's public entry for text (or UTF-8 bytes) with a file name for messages."""

    def run(text: str | bytes, file: str = "f.yaml") -> Document:
        return load_text(text, file)

    return run


def refusal(load, text, file="f.yaml") -> RulesetLoadError:
    with pytest.raises(RulesetLoadError) as info:
        load(text, file)
    error = info.value
    assert "\n" not in error.message
    assert error.where is not None and error.where.file == file
    return error


def at(error: RulesetLoadError) -> tuple[int, int]:
    return (error.where.line, error.where.col)


# --------------------------------------------------------------------- json_path


@pytest.mark.parametrize(
    "path, expected",
    [
        ((), "$"),
        (("procedures", "check", "steps", 2, "roll"), "$.procedures.check.steps[2].roll"),
        (("hit points",), '$["hit points"]'),
        (("1",), '$["1"]'),
        (("a-b", 0, 1), '$["a-b"][0][1]'),
        (("_x1", "Y"), "$._x1.Y"),
        (('say "hi"\\',), '$["say \\"hi\\"\\\\"]'),
        (("line\nbreak",), '$["line\\nbreak"]'),
        (("",), '$[""]'),
        (("café",), '$["café"]'),
    ],
)
def test_json_path(path, expected):
    assert json_path(path) == expected


# --------------------------------------------------------------------- positions

RULESET = """\
# demo ruleset
id: demo
name: "Demo System"
stats:
  str: {min: 3, max: 18}
procedures:
  check:
    params: [stat, dc]
    steps:
      - kind: roll
        dice: 1d20
      - kind: add
        value: mod(stat)
      - kind: compare
        roll: total >= dc
        note: |
          Meets or beats.
    empty:
tables:
  1: one
  "2": two
"""


def test_ruleset_data(load):
    doc = load(RULESET)
    assert doc.data == {
        "id": "demo",
        "name": "Demo System",
        "stats": {"str": {"min": 3, "max": 18}},
        "procedures": {
            "check": {
                "params": ["stat", "dc"],
                "steps": [
                    {"kind": "roll", "dice": "1d20"},
                    {"kind": "add", "value": "mod(stat)"},
                    {"kind": "compare", "roll": "total >= dc", "note": "Meets or beats.\n"},
                ],
                "empty": None,
            }
        },
        "tables": {"1": "one", "2": "two"},
    }
    assert list(doc.data) == ["id", "name", "stats", "procedures", "tables"]
    assert doc.file == "f.yaml"


@pytest.mark.parametrize(
    "path, key, line, col",
    [
        ((), False, 2, 1),
        (("id",), False, 2, 5),
        (("id",), True, 2, 1),
        (("name",), False, 3, 8),  # past the opening quote
        (("stats",), False, 5, 3),
        (("stats",), True, 4, 1),
        (("stats", "str"), False, 5, 8),
        (("stats", "str"), True, 5, 3),
        (("stats", "str", "max"), True, 5, 17),
        (("stats", "str", "max"), False, 5, 22),
        (("procedures", "check", "params", 1), False, 8, 20),
        (("procedures", "check", "params", 1), True, 8, 20),
        (("procedures", "check", "steps"), False, 10, 7),
        (("procedures", "check", "steps"), True, 9, 5),
        (("procedures", "check", "steps", 0), False, 10, 9),
        (("procedures", "check", "steps", 2, "roll"), False, 15, 15),
        (("procedures", "check", "steps", 2, "roll"), True, 15, 9),
        (("procedures", "check", "steps", 2, "note"), False, 16, 15),
        (("procedures", "check", "empty"), False, 18, 5),
        (("procedures", "check", "empty"), True, 18, 5),
        (("tables", "1"), True, 20, 3),
        (("tables", "1"), False, 20, 6),
        (("tables", "2"), True, 21, 3),
        (("tables", "2"), False, 21, 8),
    ],
)
def test_positions(load, path, key, line, col):
    where = load(RULESET).where(path, key=key)
    assert where == Location("f.yaml", line, col, json_path(path))


@pytest.mark.parametrize(
    "path, key, line, col",
    [
        # a missing key: the mapping that lacks it (or the key naming that mapping)
        (("procedures", "check", "steps", 2, "missing"), False, 14, 9),
        (("procedures", "check", "steps", 2, "missing"), True, 14, 9),
        (("procedures", "nope", "x"), False, 7, 3),
        (("procedures", "nope", "x"), True, 6, 1),
        # an index past the end, a key into a list, an index into a mapping
        (("procedures", "check", "steps", 7), False, 10, 7),
        (("procedures", "check", "steps", "kind"), False, 10, 7),
        (("stats", 0), False, 5, 3),
        # below a scalar
        (("id", "deeper", 3), False, 2, 5),
        (("nothing",), False, 2, 1),
        (("nothing",), True, 2, 1),
    ],
)
def test_missing_paths_fall_back_to_the_nearest_ancestor(load, path, key, line, col):
    where = load(RULESET).where(path, key=key)
    assert (where.line, where.col) == (line, col)
    assert where.path == json_path(path)
    assert str(where) == f"f.yaml:{line}:{col}"


def test_where_accepts_a_list_path(load):
    doc = load(RULESET)
    assert doc.where(["procedures", "check", "steps", 1]) == doc.where(("procedures", "check", "steps", 1))


def test_a_document_built_by_hand_has_no_positions():
    doc = Document({"a": 1}, "made.yaml")
    assert doc.where(("a",)) == Location("made.yaml", 0, 0, "$.a")


def test_document_is_frozen(load):
    doc = load("a: 1\n")
    with pytest.raises(dataclasses.FrozenInstanceError):
        doc.data = {}


def test_positions_in_sequences_and_flow(load):
    doc = load("a:\n- x\n-   y\n- [p, 'q', \"r\"]\n- {k: v}\nb: [ 1 ,2 ]\n")
    assert doc.data == {"a": ["x", "y", ["p", "q", "r"], {"k": "v"}], "b": [1, 2]}
    expected = {
        ("a",): (2, 1), ("a", 0): (2, 3), ("a", 1): (3, 5), ("a", 2): (4, 3), ("a", 2, 0): (4, 4),
        ("a", 2, 1): (4, 8), ("a", 2, 2): (4, 13), ("a", 3): (5, 3), ("a", 3, "k"): (5, 7),
        ("b", 0): (6, 6), ("b", 1): (6, 9),
    }
    for path, (line, col) in expected.items():
        where = doc.where(path)
        assert (where.line, where.col) == (line, col), path
    key = doc.where(("a", 3, "k"), key=True)
    assert (key.line, key.col) == (5, 4)


def test_block_scalars(load):
    text = "lit: |\n  one\n  two\n\n\nfold: >\n  a\n  b\n\n  c\nstrip: |-\n  x\nkeep: |+\n  y\n\nlast: end\n"
    doc = load(text)
    assert doc.data == {
        "lit": "one\ntwo\n",
        "fold": "a b\nc\n",
        "strip": "x",
        "keep": "y\n\n",
        "last": "end",
    }
    assert (doc.where(("fold",)).line, doc.where(("fold",)).col) == (6, 7)


def test_nested_and_multi_line_flow_collections(load):
    text = (
        "rows:\n"
        "  - {on: [3, 4], outcome: success, text: the talent works}\n"
        "  - {on: 2, outcome: failure, refs: [R1, R2, ]}\n"
        "skill: {type: int, min: -1, options: {untrained: -1},\n"
        "        help: \"the skill, if any\"}\n"
        "list: [\n"
        "    a, b,  # first two\n"
        "    c\n"
        "  ]\n"
        "formula: {f: (STR + AGI) // 2, tiebreak: -damage_taken}\n"
    )
    doc = load(text)
    assert doc.data == {
        "rows": [
            {"on": [3, 4], "outcome": "success", "text": "the talent works"},
            {"on": 2, "outcome": "failure", "refs": ["R1", "R2"]},
        ],
        "skill": {"type": "int", "min": -1, "options": {"untrained": -1}, "help": "the skill, if any"},
        "list": ["a", "b", "c"],
        "formula": {"f": "(STR + AGI) // 2", "tiebreak": "-damage_taken"},
    }
    expected = {
        (("rows", 0, "on", 1), False): (2, 14),
        (("rows", 1, "refs", 1), False): (3, 42),
        (("skill", "help"), True): (5, 9),
        (("skill", "help"), False): (5, 16),  # past the opening quote
        (("skill", "options", "untrained"), False): (4, 50),
        (("list",), False): (6, 7),
        (("list", 2), False): (8, 5),
    }
    for (path, key), (line, col) in expected.items():
        where = doc.where(path, key=key)
        assert (where.line, where.col) == (line, col), path


def test_plain_values_starting_with_a_dash(load):
    assert load("a: -damage_taken\nb: -5\nc: [-x, -1.5]\n").data == {
        "a": "-damage_taken", "b": -5, "c": ["-x", -1.5]}


def test_json_documents(load):
    data = {
        "name": "Demo", "dc": 12, "ratio": -1.5e3, "ok": True, "none": None,
        "text": "line\nbreak \"quoted\" é", "empty": {}, "list": [1, [2, {"k": []}], "x: y"],
    }
    for text in (json.dumps(data), json.dumps(data, indent=2), json.dumps(data, indent=4, ensure_ascii=False)):
        assert load(text).data == data
    doc = load(json.dumps(data, indent=2))
    where = doc.where(("list", 1, 1, "k"), key=True)
    assert (where.line, where.col) == (14, 9)
    assert load(json.dumps(data, indent=2)).where(("dc",)) == Location("f.yaml", 3, 9, "$.dc")


def test_the_first_problem_is_reported(load):
    error = refusal(load, "a: 1\na: 2\nb: !!str x\n")
    assert error.message.startswith("duplicate key 'a'")
    error = refusal(load, "b: !!str x\na: 1\na: 2\n")
    assert error.message.startswith("tags are not allowed")
    error = refusal(load, "a: 1\na: 2\nb: [unclosed\n")
    assert error.message.startswith("duplicate key 'a'")
    error = refusal(load, "a: [1, 2\nb: 1\nb: 2\n")
    assert error.where.line == 2


# ------------------------------------------------------------------------ scalars


def test_yaml_12_core_schema(load):
    text = """\
yes_: yes
no_: no
on_: on
off_: off
y_: y
t1: true
t2: True
t3: TRUE
f1: false
f2: False
n1: null
n2: ~
n3:
n4: NULL
i1: 42
i2: -7
i3: +7
i4: 0o17
i5: 0x1F
i6: 007
x1: 1.5
x2: 1e3
x3: -.5
x4: .inf
x5: -.INF
s1: 1_000
s2: 0b101
s3: 2024-01-01
s4: "12"
s5: '~'
s6: 017x
s7: tRue
s8: 12:30
"""
    data = load(text).data
    assert data["yes_"] == "yes" and data["no_"] == "no"
    assert data["on_"] == "on" and data["off_"] == "off" and data["y_"] == "y"
    assert [data[k] for k in ("t1", "t2", "t3", "f1", "f2")] == [True, True, True, False, False]
    assert [data[k] for k in ("n1", "n2", "n3", "n4")] == [None] * 4
    ints = [data[k] for k in ("i1", "i2", "i3", "i4", "i5", "i6")]
    assert ints == [42, -7, 7, 15, 31, 7] and all(type(i) is int for i in ints)
    assert [data[k] for k in ("x1", "x2", "x3")] == [1.5, 1000.0, -0.5]
    assert data["x4"] == math.inf and data["x5"] == -math.inf
    strings = [data[f"s{i}"] for i in range(1, 9)]
    assert strings == ["1_000", "0b101", "2024-01-01", "12", "~", "017x", "tRue", "12:30"]


def test_nan(load):
    assert math.isnan(load("a: .nan\n").data["a"])


def test_data_is_plain_python(load):
    doc = load("a: [1, {b: c}]\nd: |\n  text\ne: 'q'\n")

    def walk(value):
        assert type(value) in (dict, list, str, int, float, bool, type(None))
        if isinstance(value, dict):
            assert all(type(k) is str for k in value)
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(doc.data)


def test_int_keys_become_strings(load):
    doc = load("table:\n  1: one\n  2: two\n  -3: minus\n  0x10: hex\n")
    assert doc.data == {"table": {"1": "one", "2": "two", "-3": "minus", "16": "hex"}}
    where = doc.where(("table", "2"), key=True)
    assert (where.line, where.col) == (3, 3)


def test_quoted_scalars(load):
    doc = load("a: 'it''s'\nb: \"tab\\there \\u00e9 \\\"q\\\"\"\nc: \"# not a comment\"\n'd e': x # comment\n")
    assert doc.data == {"a": "it's", "b": 'tab\there é "q"', "c": "# not a comment", "d e": "x"}


# ------------------------------------------------------------------ text handling


def test_bom_is_accepted(load):
    for text in ("\ufeffa: 1\nb: 2\n", "\ufeffa: 1\nb: 2\n".encode("utf-8")):
        doc = load(text)
        assert doc.data == {"a": 1, "b": 2}
        assert (doc.where(("a",), key=True).line, doc.where(("a",), key=True).col) == (1, 1)
        assert (doc.where(("a",)).line, doc.where(("a",)).col) == (1, 4)


def test_bom_bytes_through_load_text():
    assert load_text(b"\xef\xbb\xbfname: x\n").data == {"name": "x"}


def test_crlf_line_endings(load):
    doc = load("a: 1\r\nb:\r\n  c: two words\r\n  d: |\r\n    x\r\n    y\r\ne: [1, 2]\r\n")
    assert doc.data == {"a": 1, "b": {"c": "two words", "d": "x\ny\n"}, "e": [1, 2]}
    where = doc.where(("b", "c"))
    assert (where.line, where.col) == (3, 6)
    where = doc.where(("e", 1))
    assert (where.line, where.col) == (7, 8)


def test_non_ascii_columns_count_characters(load):
    doc = load("名前: 日本語\nx: [é, ü]\n")
    assert doc.data == {"名前": "日本語", "x": ["é", "ü"]}
    where = doc.where(("x", 1))
    assert (where.line, where.col) == (2, 8)
    where = doc.where(("名前",))
    assert (where.line, where.col) == (1, 5)


# ---------------------------------------------------------------------- refusals


def test_file_too_big_text():
    text = "a: " + "x" * (limits.MAX_FILE_BYTES - 4) + "\n"
    assert len(text.encode()) == limits.MAX_FILE_BYTES
    assert load_text(text).data == {"a": "x" * (limits.MAX_FILE_BYTES - 4)}
    with pytest.raises(RulesetLoadError) as info:
        load_text(text + "b")
    assert info.value.message == "file is 1048577 bytes; the limit is 1048576"
    assert at(info.value) == (1, 1)
    with pytest.raises(RulesetLoadError) as info:
        load_text((text + "b").encode())
    assert info.value.message == "file is 1048577 bytes; the limit is 1048576"


def test_file_too_big_counts_utf8_bytes():
    text = "a: " + "é" * (limits.MAX_FILE_BYTES // 2)
    with pytest.raises(RulesetLoadError) as info:
        load_text(text)
    assert info.value.message == f"file is {len(text.encode())} bytes; the limit is 1048576"


def test_file_too_big_is_refused_before_reading(tmp_path):
    huge = tmp_path / "huge.yaml"
    with open(huge, "wb") as handle:
        handle.truncate(8 * 1024**3)  # sparse: reading it all would take far too long
    with pytest.raises(RulesetLoadError) as info:
        load_file(huge)
    assert info.value.message == f"file is {8 * 1024**3} bytes; the limit is 1048576"
    assert str(info.value.where) == f"{huge}:1:1"


def test_file_of_exactly_the_limit_loads(tmp_path):
    path = tmp_path / "edge.yaml"
    body = "a: " + "x" * (limits.MAX_FILE_BYTES - 4) + "\n"
    path.write_bytes(body.encode())
    assert len(load_file(path).data["a"]) == limits.MAX_FILE_BYTES - 4
    path.write_bytes(body.encode() + b"#")
    with pytest.raises(RulesetLoadError, match="file is 1048577 bytes; the limit is 1048576"):
        load_file(path)


@pytest.mark.parametrize(
    "data, byte, line, col",
    [
        (b"a: 1\nb: caf\xe9\n", "0xe9", 2, 7),
        (b"\xffa: 1\n", "0xff", 1, 1),
        (b"\xef\xbb\xbfa: \xff\n", "0xff", 1, 4),
        (b"a: 1\r\nb: \xc3\n", "0xc3", 2, 4),
        (b"x: \xe6\x97\xa5\xe6\x97\n", "0xe6", 1, 5),
        (b"\xfe\xff\x00a", "0xfe", 1, 1),
    ],
)
def test_not_utf8(data, byte, line, col):
    with pytest.raises(RulesetLoadError) as info:
        load_text(data, "bad.yaml")
    assert info.value.message == f"not valid UTF-8 (byte {byte})"
    assert str(info.value.where) == f"bad.yaml:{line}:{col}"


@pytest.mark.parametrize(
    "text, code, line, col",
    [("a: b\x07c\n", "0007", 1, 5), ("a: 1\nb: \x00\n", "0000", 2, 4), ("a: '\x1b'\n", "001B", 1, 5)],
)
def test_control_characters(load, text, code, line, col):
    error = refusal(load, text)
    assert error.message == f"character U+{code} is not allowed"
    assert at(error) == (line, col)


@pytest.mark.parametrize(
    "text, version",
    [("%YAML 1.1\n---\na: yes\n", "1.1"), ("%YAML 1.0\n---\na: 1\n", "1.0"), ("%YAML 2.0\n---\na: 1\n", "2.0")],
)
def test_yaml_version_directive(load, text, version):
    error = refusal(load, text)
    assert error.message == f"YAML {version} is not supported; remove the %YAML directive"
    assert at(error) == (1, 1)


def test_yaml_12_directive_is_fine(load):
    assert load("%YAML 1.2\n---\na: yes\n").data == {"a": "yes"}


@pytest.mark.parametrize(
    "text, tag, line, col, path",
    [
        ("a: 1\nb: !!python/object/apply:os.system ['echo hi']\n",
         "!!python/object/apply:os.system", 2, 4, "$.b"),
        ("a:\n  b: !!str 5\n", "!!str", 2, 6, "$.a.b"),
        ("a: !foo bar\n", "!foo", 1, 4, "$.a"),
        ("a: &x !foo bar\n", "!foo", 1, 7, "$.a"),
        ("a: ! bar\n", "!", 1, 4, "$.a"),
        ("a: !<tag:yaml.org,2002:str> bar\n", "!<tag:yaml.org,2002:str>", 1, 4, "$.a"),
        ("a: !e!foo bar\n", "!e!foo", 1, 4, "$.a"),
        ("%TAG !e! tag:example.com,2000:\n---\na: !e!foo 1\n", "!e!foo", 3, 4, "$.a"),
        ("a: !!map\n  b: 1\n", "!!map", 1, 4, "$.a"),
        ("a:\n- [1, !!int 2]\n", "!!int", 2, 7, "$.a[0][1]"),
        ("!!str k: v\n", "!!str", 1, 1, "$"),
        ("!!map\na: 1\n", "!!map", 1, 1, "$"),
    ],
)
def test_tags_are_refused(load, text, tag, line, col, path):
    error = refusal(load, text)
    assert error.message == f"tags are not allowed ({tag!r})"
    assert at(error) == (line, col)
    assert error.where.path == path


def test_tags_never_run_anything(load, tmp_path):
    marker = tmp_path / "ran"
    text = f"a: !!python/object/apply:os.system ['touch {marker}']\n"
    refusal(load, text)
    text = f"a: !!python/object/new:subprocess.check_call [['touch', '{marker}']]\n"
    refusal(load, text)
    assert not marker.exists()


def test_duplicate_keys(load):
    error = refusal(load, "id: x\ncheck:\n    dc: 10\n    roll: 1d20\n    dc: 12\n")
    assert error.message == "duplicate key 'dc' (first defined at line 3, column 5)"
    assert at(error) == (5, 5)
    assert error.where.path == "$.check.dc"


def test_duplicate_keys_in_flow_and_after_int_conversion(load):
    error = refusal(load, "a: {dc: 1, dc: 2}\n")
    assert error.message == "duplicate key 'dc' (first defined at line 1, column 5)"
    assert at(error) == (1, 12)
    error = refusal(load, "t:\n  1: a\n  '1': b\n")
    assert error.message == "duplicate key '1' (first defined at line 2, column 3)"
    assert at(error) == (3, 3)


def test_same_key_in_different_mappings_is_fine(load):
    assert load("a: {k: 1}\nb: {k: 2}\n").data == {"a": {"k": 1}, "b": {"k": 2}}


@pytest.mark.parametrize(
    "text, message, line, col",
    [
        ("? [a, b]\n: 1\n", "keys must be strings, not sequences", 1, 3),
        ("t:\n  [a]: 1\n", "keys must be strings, not sequences", 2, 3),
        ("{a: 1}: 2\n", "keys must be strings, not mappings", 1, 1),
        ("true: 1\n", "keys must be strings, not booleans ('true'); put the key in quotes", 1, 1),
        ("a: 1\n~: 1\n", "keys must be strings, not null ('~'); put the key in quotes", 2, 1),
        ("null: 1\n", "keys must be strings, not null ('null'); put the key in quotes", 1, 1),
        (": 1\n", "keys must be strings, not null (an empty key)", 1, 1),
        ("1.5: x\n", "keys must be strings, not floats ('1.5'); put the key in quotes", 1, 1),
        ("a: &k [1]\nb: {*k : 2}\n", "keys must be strings, not sequences", 2, 5),
        ("base: &b {x: 1}\nd:\n  <<: *b\n", "merge keys ('<<') are not supported", 3, 3),
    ],
)
def test_bad_keys(load, text, message, line, col):
    error = refusal(load, text)
    assert error.message == message
    assert at(error) == (line, col)


def test_quoted_keys_that_look_like_other_types_are_strings(load):
    assert load("'true': 1\n'~': 2\n'1.5': 3\n'<<': 4\n").data == {"true": 1, "~": 2, "1.5": 3, "<<": 4}


@pytest.mark.parametrize(
    "text, line, col",
    [
        ("", 1, 1),
        ("# only a comment\n\n", 1, 1),
        ("---\n", 2, 1),
        ("just text\n", 1, 1),
        ("- a\n- b\n", 1, 1),
        ("\n\n  [1, 2]\n", 3, 3),
        ("42\n", 1, 1),
    ],
)
def test_top_level_must_be_a_mapping(load, text, line, col):
    error = refusal(load, text)
    assert error.message == "the top level must be a mapping of keys to values"
    assert at(error) == (line, col)
    assert error.where.path == "$"


def test_one_document_only(load):
    error = refusal(load, "a: 1\n---\nb: 2\n")
    assert error.message == "only one YAML document is allowed in a file"
    assert at(error) == (2, 1)
    assert load("---\na: 1\n...\n").data == {"a": 1}


@pytest.mark.parametrize(
    "text, message, line, col",
    [
        ("a: 1\n b: 2\n", "this key is indented more than its siblings at line 1; indent it like them", 2, 2),
        ("a: b: c\n", "mapping values are not allowed here", 1, 5),
        ("a: [1, 2\n", ("expected ',' or ']', but got '<stream end>' "
                       "(while parsing a flow sequence at line 1, column 4)"), 2, 1),
        ("a: 'open\n", "found unexpected end of stream (while scanning a quoted scalar at line 1, column 4)",
         2, 1),
        ("a:\n\t- b\n", "a tab indents this line; YAML indents with spaces only: put spaces in its place", 2, 1),
        ("a: 1\n- b\n", "expected <block end>, but found '-' (while parsing a block mapping at line 1, column 1)",
         2, 1),
    ],
)
def test_syntax_errors(load, text, message, line, col):
    error = refusal(load, text)
    assert error.message == message
    assert at(error) == (line, col)


def test_unknown_and_recursive_aliases(load):
    error = refusal(load, "a: *x\n")
    assert error.message == "unknown alias '*x' (no anchor '&x' before it)"
    assert at(error) == (1, 4)
    error = refusal(load, "a: &a [1, *a]\n")
    assert error.message == "alias '*a' is used inside the node it names"
    assert at(error) == (1, 11)


# ------------------------------------------------------------------------ aliases


def test_aliases_are_copied_and_located_at_their_anchor(load):
    doc = load("base: &b\n  dc: 10\n  tags: [x, y]\nother: *b\nkey: &k name\nagain: *k\n")
    assert doc.data["other"] == {"dc": 10, "tags": ["x", "y"]}
    assert doc.data["again"] == "name"
    assert doc.data["other"] is not doc.data["base"]
    doc.data["other"]["tags"].append("z")
    assert doc.data["base"]["tags"] == ["x", "y"]
    where = doc.where(("other",))
    assert (where.line, where.col, where.path) == (4, 8, "$.other")
    where = doc.where(("other", "tags", 1))
    assert (where.line, where.col, where.path) == (3, 13, "$.other.tags[1]")
    where = doc.where(("other", "dc"), key=True)
    assert (where.line, where.col) == (2, 3)
    where = doc.where(("other", "missing"))
    assert (where.line, where.col) == (4, 8)
    where = doc.where(("other", "tags", 5), key=True)
    assert (where.line, where.col) == (3, 3)  # the key "tags"


def test_anchored_blocks_and_flows(load):
    text = (
        "shapes:\n"
        "  stat: &stat {type: int, min: 1}\n"
        "  list: &list\n"
        "    - a\n"
        "    - &b b\n"
        "  block: &block\n"
        "    k: v\n"
        "use: [*stat, *b, {x: *list}]\n"
        "more:\n"
        "  - *block\n"
    )
    doc = load(text)
    assert doc.data["use"] == [{"type": "int", "min": 1}, "b", {"x": ["a", "b"]}]
    assert doc.data["more"] == [{"k": "v"}]
    spots = {
        ("shapes", "stat"): (2, 9), ("shapes", "list"): (3, 9), ("shapes", "list", 1): (5, 7),
        ("shapes", "block"): (6, 10), ("use", 0): (8, 7), ("use", 0, "min"): (2, 32),
        ("use", 2, "x"): (8, 22), ("use", 2, "x", 0): (4, 7), ("more", 0): (10, 5), ("more", 0, "k"): (7, 8),
    }
    for path, (line, col) in spots.items():
        where = doc.where(path)
        assert (where.line, where.col) == (line, col), path


def test_nested_aliases_resolve_through_each_anchor(load):
    doc = load("a: &a {x: [1, 2]}\nb: &b {inner: *a}\nc: *b\n")
    assert doc.data["c"] == {"inner": {"x": [1, 2]}}
    where = doc.where(("c", "inner", "x", 1))
    assert (where.line, where.col) == (1, 15)


def test_alias_limit(load):
    hundred = "one: &one 1\nmany: [" + ", ".join(["*one"] * 100) + "]\n"
    assert load(hundred).data["many"] == [1] * 100
    error = refusal(load, hundred.replace("]", ", *one]"))
    assert error.message == "too many aliases (more than 100)"
    assert at(error) == (2, 8 + 6 * 100)


def test_alias_node_limit(load, monkeypatch):
    monkeypatch.setattr(limits, "MAX_NODES", 10)
    base = "a: &a [1, 2, 3]\n"  # four nodes each time it is repeated
    assert load(base + "b: [*a, *a]\n").data["b"] == [[1, 2, 3], [1, 2, 3]]
    error = refusal(load, base + "b: [*a, *a, *a]\n")
    assert error.message == "aliases expand to more than 10 nodes"
    assert at(error) == (2, 13)


def test_billion_laughs_fails_fast(load):
    text = (BROKEN / "billion_laughs.yaml").read_text()
    start = time.process_time()
    error = refusal(load, text)
    assert time.process_time() - start < 0.5
    assert error.message == "aliases expand to more than 100000 nodes"
    assert at(error) == (7, 8)


def test_billion_laughs_with_ten_per_level(load):
    text = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]\n" for i in range(8)
    )
    error = refusal(load, text)
    assert error.message == "aliases expand to more than 100000 nodes"


# ------------------------------------------------------------------------ nesting


def _nested(levels: int) -> str:
    """A top-level mapping holding ``levels - 1`` nested flow sequences."""
    return "a: " + "[" * (levels - 1) + "]" * (levels - 1) + "\n"


def test_nesting_limit(load):
    assert load(_nested(64)).data["a"] is not None
    error = refusal(load, _nested(65))
    assert error.message == "nesting deeper than 64 levels"
    assert at(error) == (1, 4 + 63)


def test_nesting_limit_in_block_style(load):
    ok = "".join("  " * i + "k:\n" for i in range(63)) + "  " * 63 + "k: v\n"
    doc = load(ok)
    assert doc.where(("k",) * 64) == Location("f.yaml", 64, 130, "$" + ".k" * 64)
    deep = "".join("  " * i + "k:\n" for i in range(64)) + "  " * 64 + "k: v\n"
    error = refusal(load, deep)
    assert error.message == "nesting deeper than 64 levels"
    assert at(error) == (65, 129)


@pytest.mark.parametrize("opener, closer", [("[", "]"), ("{a: ", "}")])
def test_ten_thousand_levels_fail_fast(load, opener, closer):
    text = "a: " + opener * 10_000 + closer * 10_000 + "\n"
    start = time.process_time()
    error = refusal(load, text)
    assert time.process_time() - start < 0.5
    assert error.message == "nesting deeper than 64 levels"
    assert error.where.line == 1


def test_ten_thousand_brackets_alone_fail_fast(load):
    error = refusal(load, "[" * 10_000 + "]" * 10_000)
    assert error.message == "nesting deeper than 64 levels"
    error = refusal(load, "a: " + "[\n" * 10_000)
    assert error.message == "nesting deeper than 64 levels"
    assert at(error) == (64, 1)


def test_nesting_inside_block_collections_counts_them(load):
    text = "a:\n  b:\n    c: " + "[" * 61 + "]" * 61 + "\n"
    assert load(text).data["a"]["b"]["c"] is not None
    error = refusal(load, "a:\n  b:\n    c: " + "[" * 62 + "]" * 62 + "\n")
    assert error.message == "nesting deeper than 64 levels"
    assert at(error) == (3, 8 + 61)


def test_nesting_through_aliases(load):
    text = "a: &a " + "[" * 40 + "]" * 40 + "\nb: " + "[" * 30 + "*a" + "]" * 30 + "\n"
    error = refusal(load, text)
    assert error.message == "nesting deeper than 64 levels"
    assert at(error) == (2, 34)


# -------------------------------------------------------------------------- files


def test_load_file_names_and_display_names(tmp_path):
    path = tmp_path / "rules.yaml"
    path.write_text("a:\n  b: 1\n")
    doc = load_file(path)
    assert doc.file == str(path)
    assert doc.where(("a", "b")) == Location(str(path), 2, 6, "$.a.b")
    doc = load_file(str(path), display_name="rulesets/demo.yaml")
    assert doc.file == "rulesets/demo.yaml"
    path.write_text("a: 1\na: 2\n")
    with pytest.raises(RulesetLoadError) as info:
        load_file(path, display_name="shown.yaml")
    assert str(info.value) == "shown.yaml:2:1: $.a: duplicate key 'a' (first defined at line 1, column 1)"


def test_load_file_that_cannot_be_read(tmp_path):
    with pytest.raises(RulesetLoadError) as info:
        load_file(tmp_path / "missing.yaml")
    assert info.value.message.startswith("cannot read the file")
    with pytest.raises(RulesetLoadError):
        load_file(tmp_path)


BROKEN_FILES = {
    "billion_laughs.yaml": ("aliases expand to more than 100000 nodes", 7, 8),
    "bool_key.yaml": ("keys must be strings, not booleans ('true'); put the key in quotes", 3, 3),
    "complex_key.yaml": ("keys must be strings, not sequences", 3, 5),
    "control_char.yaml": ("character U+0007 is not allowed", 2, 12),
    "deep_flow.yaml": ("nesting deeper than 64 levels", 2, 71),
    "duplicate_key.yaml": ("duplicate key 'dc' (first defined at line 3, column 5)", 5, 5),
    "empty.yaml": ("the top level must be a mapping of keys to values", 1, 1),
    "merge_key.yaml": ("merge keys ('<<') are not supported", 3, 3),
    "not_utf8.yaml": ("not valid UTF-8 (byte 0xe9)", 2, 10),
    "python_tag.yaml": ("tags are not allowed ('!!python/object/apply:os.system')", 4, 11),
    "syntax_error.yaml": ("expected ',' or ']', but got ':' (while parsing a flow sequence at line 2, column 7)",
                          3, 5),
    "too_many_aliases.yaml": ("too many aliases (more than 100)", 2, 608),
    "top_level_list.yaml": ("the top level must be a mapping of keys to values", 1, 1),
    "two_documents.yaml": ("only one YAML document is allowed in a file", 2, 1),
    "yaml11.yaml": ("YAML 1.1 is not supported; remove the %YAML directive", 1, 1),
}


def test_every_broken_file_is_listed():
    assert sorted(p.name for p in BROKEN.iterdir()) == sorted(BROKEN_FILES)


@pytest.mark.parametrize("name", sorted(BROKEN_FILES))
def test_broken_files(name):
    message, line, col = BROKEN_FILES[name]
    with pytest.raises(RulesetLoadError) as info:
        load_file(BROKEN / name, display_name=f"broken/{name}")
    error = info.value
    assert error.message == message
    assert str(error.where) == f"broken/{name}:{line}:{col}"
    assert "\n" not in str(error)


# ---------------------------------------------------------------------------- speed


def _typical_ruleset(lines: int = 500) -> str:
    out = ["# A made-up system", "id: demo", "name: Demo System", "version: 1", "dice:",
           "  default: d20", "shapes:", "  stat: &stat {type: int, min: 1, max: 20, help: a stat}",
           "checks:"]
    k = 0
    while len(out) < lines:
        out += [
            f"  check_{k}:",
            f"    summary: Roll 1d20 + stat {k} against a DC.",
            f"    roll: 1d20 + mod(stat_{k})",
            f"    dc: {10 + k % 10}",
            "    tags: [attack, melee]",
            f'    text: "Roll {k}: beat the DC"',
            "    params:",
            "      stat: *stat",
            "      dc: {type: int, default: 10, options: {easy: 5, hard: 15},",
            "           help: the difficulty}",
            "    steps:",
            "      - kind: roll",
            "        expr: 2d6  # damage",
            "      - kind: compare",
            "        when: total >= dc",
            "        tiebreak: -natural",
            "      - {on: [3, 4], outcome: success, text: it works}",
            "    notes: >",
            "      Some folded",
            "      text here.",
            "",
        ]
        k += 1
    return "\n".join(out[:lines]) + "\n"


def test_typical_ruleset_loads():
    text = _typical_ruleset()
    assert len(text.splitlines()) == 500
    doc = load_text(text)
    assert len(doc.data["checks"]) > 20
    assert doc.data["checks"]["check_3"]["params"]["stat"]["max"] == 20
    assert doc.where(("checks", "check_3", "params", "stat", "max")).line == 8  # inside the anchored original


def test_a_mebibyte_of_plain_data_loads():
    rng = random.Random(7)
    parts = []
    size = 0
    i = 0
    while True:
        part = (
            f"entry_{i}:\n  name: \"Item number {i}\"\n  cost: {rng.randint(1, 1000)}\n"
            f"  weight: {rng.random():.3f}\n  tags: [a, b, c]\n  notes: some plain text here  # why\n"
            f"  list:\n    - 1\n    - x: y\n"
        )
        if size + len(part) > limits.MAX_FILE_BYTES:
            break
        parts.append(part)
        size += len(part)
        i += 1
    text = "".join(parts)
    doc = load_text(text)
    assert len(doc.data) == i
    assert doc.where((f"entry_{i - 1}", "list", 1, "x")).line == 9 * i
