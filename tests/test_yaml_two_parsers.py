"""The YAML reader's two parsers give the builder the same events.

Most text is read by ruamel.yaml's C parser (``events.c_events``), several times faster than its
Python parser; the Python parser reads what the C parser declines (errors, tags, anchors, directives,
tabs, deep nesting, empty keys and entries) and is the reference: wherever the C parser reads a text,
its events must be the Python parser's, positions included, and a text the Python parser refuses
must never be read by the C parser.
"""

from __future__ import annotations

import platform
import random
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from interpreter.load import events
from interpreter.load.events import FlowTooDeep, Problem, c_events

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(platform.python_implementation() != "CPython",
                                reason="ruamel.yaml's C parser is a dependency on CPython alone")


def test_the_c_parser_is_installed_where_it_is_a_dependency():
    assert events.CParser is not None, "pip install . installs ruamel.yaml.clib on CPython (pyproject.toml)"


def python_reading(text: str) -> tuple[str, object]:
    try:
        return "read", list(events.python_events(text))
    except (Problem, FlowTooDeep) as error:
        return "refused", type(error).__name__


def assert_same(text: str) -> bool:
    """True when the C parser read the text (and gave the Python parser's events)."""
    fast = c_events(text)
    if fast is None:
        return False
    assert python_reading(text) == ("read", fast), text
    return True


YAML_FILES = sorted(p for pattern in ("rulesets/*.yaml", "docs/**/*.yaml", "tests/**/*.yaml", "examples/**/*.yaml")
                    for p in ROOT.glob(pattern))


def test_every_yaml_file_of_the_project_reads_the_same_and_the_bundled_rulesets_take_the_fast_path():
    """Whole files, valid and broken; the bundled rulesets (the files read most) go through the C parser."""
    assert len(YAML_FILES) > 20
    for path in YAML_FILES:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        assert_same(text)
    for path in sorted((ROOT / "rulesets").glob("*.yaml")):
        assert c_events(path.read_text(encoding="utf-8")) is not None, path.name


PIECES = [":", " ", "\n", "-", "[", "]", "{", "}", ",", '"', "'", "#", "&a", "*a", "?", "|", ">", "\t", "x", "  ",
          "\n  ", ": ", "- ", "\r\n", "\\", '"\\/"', '"\\x41"', '"\\N"', '"\\u00e9"', "\\_", "@", "`", "é", "\u00a0",
          "~", "!", "!!str ", "%", "---\n", "|-\n  a\n", ">+\n  b\n\n"]


@pytest.mark.parametrize("seed", range(4))
def test_mutated_rulesets_read_the_same(seed):
    """Pieces of the bundled rulesets with a few characters inserted, deleted or repeated."""
    rng = random.Random(seed)
    sources = [p.read_text(encoding="utf-8").split("\n") for p in sorted((ROOT / "rulesets").glob("*.yaml"))]
    fast = 0
    for _ in range(700):
        lines = rng.choice(sources)
        start = rng.randrange(len(lines))
        text = "\n".join(lines[start:start + rng.randint(1, 40)]) + "\n"
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            k = rng.randrange(len(text) + 1)
            op = rng.random()
            if op < 0.5:
                text = text[:k] + rng.choice(PIECES) + text[k:]
            elif op < 0.8:
                text = text[:k] + text[k + rng.randint(1, 3):]
            else:
                text = text[:k] + text[k:k + rng.randint(1, 30)] * 2 + text[k:]
        fast += assert_same(text)
    assert fast > 50  # the comparison compared something


WORDS = st.sampled_from(["a", "b1", "x_y", "12", "-3", "1.5", "true", "null", "~", "d20 + 2", "a: b", "x #y",
                         "2d6!", "hp - 1", "'q'", '"q"', "é", "k, v", "[x]", "{y}", "", " ", "a  b", "line\nnext",
                         "tab\there", "back\\slash", "0x1F", "-", "?", "@", "`"])


def _scalar(draw, word: str, indent: int) -> str:
    style = draw(st.sampled_from(["plain", "single", "double", "literal", "folded"]))
    if style == "single":
        return "'" + word.replace("'", "''") + "'"
    if style == "double":
        return '"' + word.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'
    if style in ("literal", "folded") and word.strip() and "\t" not in word:
        mark = ("|" if style == "literal" else ">") + draw(st.sampled_from(["", "-", "+"]))
        pad = " " * (indent + 2)
        return mark + "\n" + "\n".join(pad + part for part in word.split("\n"))
    return word  # plain: often not valid YAML, which is the point of comparing refusals too


@st.composite
def documents(draw, depth: int = 0, indent: int = 0) -> str:
    kind = draw(st.sampled_from(["map", "seq", "flow"] if depth < 3 else ["flow"]))
    pad = " " * indent
    step = draw(st.sampled_from([1, 2, 4]))
    comment = draw(st.sampled_from(["", "", " # note", "  #: x"]))
    if kind == "flow":
        items = [_scalar(draw, draw(WORDS), indent) for _ in range(draw(st.integers(0, 3)))]
        items = [item for item in items if "\n" not in item]
        if draw(st.booleans()):
            return "{" + ", ".join(f"k{i}: {item}" for i, item in enumerate(items)) + "}" + comment
        return "[" + ", ".join(items) + "]" + comment
    lines = []
    for i in range(draw(st.integers(1, 3))):
        nested = draw(st.booleans())
        head = f"{pad}k{i}:" if kind == "map" else f"{pad}-"
        if nested:
            inner = draw(documents(depth + 1, indent + step))
            if inner.startswith(("{", "[")):
                lines.append(f"{head} {inner}")
            else:
                lines.append(head + comment)
                lines.append(inner)
        else:
            value = _scalar(draw, draw(WORDS), indent)
            lines.append(f"{head} {value}{comment if chr(10) not in value else ''}".rstrip(" ")
                         if value else head)
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(["", "   ", pad + "# own line"])))
    return "\n".join(lines)


@given(documents(), st.sampled_from(["\n", "\r\n"]))
def test_generated_documents_read_the_same(text, newline):
    assert_same(text.replace("\n", newline) + newline)


@pytest.mark.parametrize("text", [
    "a: " + "[" * 10_000 + "]" * 10_000 + "\n",
    "a: " + "{a: " * 10_000 + "}" * 10_000 + "\n",
    "".join(" " * i + f"k{i}:\n" for i in range(300)),
])
def test_deep_nesting_is_declined_at_once(text):
    """The C parser's time grows with the square of the depth: past the limit, the Python parser refuses."""
    start = time.process_time()
    assert c_events(text) is None
    assert time.process_time() - start < 0.1


@pytest.mark.parametrize("text", ["a: &x 1\nb: *x\n", "a: &x\nb: *x\n", "a: [&x 1, *x]\n", "a: {b: &x {c: 1}, d: *x}\n",
                                  "a: {b: }\n", "a: {b: c, d}\n", "a: [b: ]\n", "a:\n  b:\n\n  # c\nd: 1\n",
                                  "k: 'it''s'\nq: \"\\u00e9\\/\"\nl: |-\n  x\n\n  y\nf: >+\n  z\n\n", "a: é ü\nb: 1\r\n"])
def test_what_both_read_the_same(text):
    """Anchors and aliases, empty values in block and flow mappings, quoting, escapes, block scalars, UTF-8, CRLF."""
    assert assert_same(text)


@pytest.mark.parametrize("text", ["a: !x 1\n", "%YAML 1.2\n---\na: 1\n", "a: 1\n---\nb: 2\n",
                                  "a:\tb\n", "a: 1", "? \n: 1\n", "- \n- 1\n", "[a, , b]\n", "{a: \n }\n", "a: &x: 1\n"])
def test_what_the_python_parser_reads_its_own_way_is_left_to_it(text):
    """Tags, directives, documents, tabs, a last line without a break, empty keys and entries, an anchor name
    the two parsers end differently, an empty flow value on a line of its own."""
    assert c_events(text) is None
