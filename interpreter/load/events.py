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

import re
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

CParser: Any
try:
    from _ruamel_yaml import CParser  # type: ignore[import-not-found,no-redef]  # ruamel.yaml.clib
except ImportError:  # pragma: no cover - a Python without the C extension reads all with the Python parser
    CParser = None

from interpreter import limits
from interpreter.load.document import Path
from interpreter.load.layout import layout_problem

__all__ = ["ALIAS", "END", "MAP", "REFUSE", "SCALAR", "SEQ", "Event", "FlowTooDeep", "Problem", "c_events", "python_events",
           "yaml_events"]

SCALAR, MAP, SEQ, END, ALIAS, REFUSE = range(6)

Event = tuple[int, int, int, Any, bool, bool, Any]
_END: Event = (END, 0, 0, None, False, False, None)  # where a collection ends is never shown: no position


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
    """Events from ruamel.yaml's parser, with tags and extra documents refused.

    Text that ruamel.yaml's C parser reads without error, without tags or directives and within the
    nesting limit is read by it (:func:`c_events`, several times faster); anything else, every error
    included, by the Python parser, whose messages and positions are the reference the C events are
    made to match.
    """
    fast = c_events(text) if CParser is not None else None
    return iter(fast) if fast is not None else python_events(text)


def python_events(text: str) -> Iterator[Event]:
    """Events from ruamel.yaml's Python parser: the reference, and the reader of what the C parser declines."""
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
                yield _END
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


# Where the Python parser is the one to read a text: a directive or a document marker at the start of a
# line, a tab (the C parser takes some the Python parser refuses), a line break YAML 1.1 and 1.2 read
# differently.  A match inside a quoted string or a block scalar costs only speed.
_PYTHON_ONLY = re.compile(r"^(?:%|---|\.\.\.)|[\t\x85\u2028\u2029]", re.MULTILINE)


def c_events(text: str) -> list[Event] | None:
    """The events of ``text`` read by the C parser, or None where the Python parser must read it.

    The C parser reads the whole text before any event is given out: any error sends the text to the
    Python parser, so every message and position of a syntax error is the Python parser's.  The
    events are made the same as the Python parser's: a plain scalar's style is None, and the empty
    scalar of ``key:`` with nothing after it stands where the next event starts (the Python parser
    places it at the next token).  Collections nested past ``limits.MAX_DEPTH`` go to the Python
    parser, which refuses them early (the C parser's time grows with the square of the depth), as do
    tags (refused there, with their text), an anchor or alias name followed by a character the two
    parsers read differently (``&a:``: a name's end in YAML 1.2, not in the C parser's 1.1), a text
    whose last line has no line break (where the two place the empty scalar of a last ``key:``) and
    the empty scalars of keys and entries.
    """
    if not text.endswith("\n") or _PYTHON_ONLY.search(text):
        return None
    try:
        return _c_read(CParser(text), text)
    except Exception:  # noqa: BLE001 - any refusal at all: the Python parser words it
        return None


def _declined(event: Any, anchor: str | None, text: str) -> bool:
    """Whether an event has a tag, or an anchor or alias name not ended where both parsers end it
    (the name written just past the ``&`` or ``*`` at the event's start, then a space, a break or a
    flow indicator)."""
    if getattr(event, "tag", None) is not None:
        return True
    if anchor is None:
        return False
    at = event.start_mark.index + 1
    return text[at:at + len(anchor)] != anchor or text[at + len(anchor):at + len(anchor) + 1] not in _NAME_ENDS


_NAME_ENDS = frozenset(["", " ", "\n", "\r", ",", "[", "]", "{", "}"])


def _past_colon(text: str, at: int) -> int | None:
    """How many columns before ``at`` (where the C parser places the empty value of a flow mapping's
    key, at the next token) the Python parser places it: just past the key's ``:``, if there is one
    (none for a key alone, ``{a, b}``); None when a line break comes between."""
    colon = at - 1
    while text[colon] == " ":
        colon -= 1
    if text[colon] in "\r\n":
        return None
    return at - colon - 1 if text[colon] == ":" else 0


def _c_read(parser: Any, text: str) -> list[Event] | None:
    events: list[Event] = []
    # For the document and each open collection: is it in flow style, is it a mapping, how many events
    # it has had (an end counts too, in the collection it closes).
    flows = [False]
    mapping = [False]
    counts = [0]
    empties: list[int] = []  # empty scalars waiting for the position of the event after them
    while True:
        event = parser.get_event()
        cls = type(event)
        mark = event.start_mark
        line, col = mark.line + 1, mark.column + 1
        for i in empties:
            events[i] = (SCALAR, line, col, "", True, True, None)
        empties.clear()
        counts[-1] += 1
        anchor = getattr(event, "anchor", None)
        if _declined(event, anchor, text):
            return None
        if cls is ScalarEvent:
            plain = not event.style
            empty = plain and not event.value and anchor is None and mark.index == event.end_mark.index
            if empty:
                if not (mapping[-1] and counts[-1] % 2 == 0):
                    return None  # an empty key or entry: each parser places it by rules of its own
                if not flows[-1]:
                    empties.append(len(events))  # the empty value of a block mapping's key
                else:
                    back = _past_colon(text, mark.index)
                    if back is None:
                        return None
                    col -= back
            events.append((SCALAR, line, col, event.value, plain, empty, anchor))
        elif cls is MappingStartEvent or cls is SequenceStartEvent:
            flow = bool(event.flow_style)
            flows.append(flow)
            mapping.append(cls is MappingStartEvent)
            counts.append(0)
            if len(flows) > limits.MAX_DEPTH + 1:
                return None
            events.append((MAP if cls is MappingStartEvent else SEQ, line, col, None, flow, False, anchor))
        elif cls is MappingEndEvent or cls is SequenceEndEvent:
            flows.pop()
            mapping.pop()
            counts.pop()
            events.append(_END)
        elif cls is AliasEvent:
            events.append((ALIAS, line, col, None, False, False, anchor))
        elif cls is DocumentStartEvent and events:
            return None  # a second document: the Python parser refuses it
        elif cls is StreamEndEvent:
            return events
