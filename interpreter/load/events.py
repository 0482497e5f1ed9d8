"""ruamel.yaml's parser, turned into a stream of simple events with 1-based positions.

Each event is a tuple ``(kind, line, col, value, flag, empty, anchor)``:

* ``SCALAR``: ``value`` is the text, ``flag`` says it is plain (unquoted, not a block
  scalar), ``empty`` marks the implicit empty scalar of ``key:`` with nothing after it;
* ``MAP`` / ``SEQ``: a collection starts; ``flag`` says it is written in flow style;
* ``END``: the innermost open collection ends;
* ``ALIAS``: ``anchor`` is the name after ``*``;
* ``REFUSE``: ``value`` is why the node there must not be loaded (it has a tag).

The parser is given a scanner that refuses ``%YAML`` versions other than 1.2, notes every
tag, and stops at the first flow collection nested past ``limits.MAX_DEPTH`` (raising
:class:`FlowTooDeep` before the parser recurses into it).  Syntax errors and the other
refusals found here are raised as :class:`Problem`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from ruamel.yaml.scanner import Scanner

from interpreter import limits
from interpreter.load.document import Path
from interpreter.load.layout import layout_problem

__all__ = ["ALIAS", "END", "MAP", "REFUSE", "SCALAR", "SEQ", "Event", "FlowTooDeep", "Problem", "yaml_events"]

SCALAR, MAP, SEQ, END, ALIAS, REFUSE = range(6)

Event = tuple[int, int, int, Any, bool, bool, Any]


class Problem(Exception):
    """A refusal found before the document path is known; the builder adds the path."""

    def __init__(self, message: str, line: int, col: int, path: Path | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col
        self.path = path


class FlowTooDeep(Exception):
    """Flow collections nest deeper than the limit; carries the start mark of each open one."""

    def __init__(self, marks: list[Any]):
        super().__init__("nesting too deep")
        self.marks = marks


class _CheckingScanner(Scanner):
    """ruamel.yaml's scanner, noting tags and flow nesting and refusing old YAML versions."""

    def __init__(self, loader: object = None) -> None:
        self.rs_tags: list[Any] = []
        self.rs_flow: list[object] = []
        super().__init__(loader=loader)

    def fetch_tag(self) -> None:
        super().fetch_tag()
        self.rs_tags.append(self.tokens[-1])

    def scan_directive(self) -> object:
        token = super().scan_directive()
        if token.name == "YAML" and tuple(token.value) != (1, 2):
            major, minor = token.value
            mark = token.start_mark
            raise Problem(f"YAML {major}.{minor} is not supported; remove the %YAML directive",
                          mark.line + 1, mark.column + 1)
        return token

    def fetch_flow_collection_start(self, TokenClass: Any, to_push: Any) -> None:
        super().fetch_flow_collection_start(TokenClass, to_push)
        self.rs_flow.append(self.tokens[-1].start_mark)
        if len(self.rs_flow) > limits.MAX_DEPTH:
            raise FlowTooDeep(list(self.rs_flow))

    def fetch_flow_collection_end(self, TokenClass: object) -> None:
        super().fetch_flow_collection_end(TokenClass)
        del self.rs_flow[len(self.flow_context):]


def _tag_refusal(text: str, scanner: _CheckingScanner, fallback_mark: object) -> Event:
    """A REFUSE event for the first tag in the text (the first tagged node is refused)."""
    if scanner.rs_tags:
        token = scanner.rs_tags[0]
        start, end = token.start_mark, token.end_mark
        written = text[start.index:end.index]
    else:  # not expected: the scanner sees every tag
        start, written = fallback_mark, "!"
    return (REFUSE, start.line + 1, start.column + 1, f"tags are not allowed ({written!r})", False, False, None)


def _syntax_problem(error: MarkedYAMLError, text: str) -> Problem:
    mark = error.problem_mark or error.context_mark
    problem = error.problem or error.context or "invalid YAML"
    message = " ".join(str(problem).split())
    if mark is not None:
        plain = layout_problem(message, text, mark.line + 1)
        if plain is not None:
            return Problem(*plain)
    if error.context and error.problem:
        context = " ".join(str(error.context).split())
        cm = error.context_mark
        if cm is not None and mark is not None and (cm.line, cm.column) != (mark.line, mark.column):
            context += f" at line {cm.line + 1}, column {cm.column + 1}"
        message += f" ({context})"
    if mark is None:
        return Problem(message, 1, 1)
    return Problem(message, mark.line + 1, mark.column + 1)


def yaml_events(text: str) -> Iterator[Event]:
    """Events from ruamel.yaml's parser, with tags and extra documents refused."""
    yaml = YAML(typ="safe", pure=True)
    yaml.Scanner = _CheckingScanner
    stream = yaml.parse(text)
    documents = 0
    try:
        while True:
            try:
                event = next(stream)
            except StopIteration:
                return
            except MarkedYAMLError as error:
                if str(error.problem or "").startswith("found undefined tag handle"):
                    yield _tag_refusal(text, yaml.scanner, error.problem_mark)
                raise _syntax_problem(error, text) from None
            except YAMLError as error:  # not expected once the text has been checked
                first = (str(error).splitlines() or ["invalid YAML"])[0]
                raise Problem(first, 1, 1) from None
            cls = type(event)
            mark = event.start_mark
            if cls is ScalarEvent:
                if event.ctag is not None:
                    yield _tag_refusal(text, yaml.scanner, mark)
                plain = event.style is None
                empty = (plain and not event.value and event.anchor is None
                         and mark.index == event.end_mark.index)
                yield (SCALAR, mark.line + 1, mark.column + 1, event.value, plain, empty, event.anchor)
            elif cls is MappingEndEvent or cls is SequenceEndEvent:
                yield (END, mark.line + 1, mark.column + 1, None, False, False, None)
            elif cls is MappingStartEvent or cls is SequenceStartEvent:
                if event.ctag is not None:
                    yield _tag_refusal(text, yaml.scanner, mark)
                yield (MAP if cls is MappingStartEvent else SEQ, mark.line + 1, mark.column + 1,
                       None, bool(event.flow_style), False, event.anchor)
            elif cls is AliasEvent:
                yield (ALIAS, mark.line + 1, mark.column + 1, None, False, False, event.anchor)
            elif cls is DocumentStartEvent:
                documents += 1
                if documents > 1:
                    raise Problem("only one YAML document is allowed in a file", mark.line + 1, mark.column + 1)
            elif cls is StreamEndEvent:
                return
    finally:
        stream.close()
