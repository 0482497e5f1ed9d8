"""What the command line writes: text any output encoding can carry and any terminal shows as it is, and one JSON convention.

Text never carries a control character but a newline or a tab: an escape sequence, a carriage
return or a line separator that a ruleset or sheet holds (in a title, a name) is written escaped
(`\x1b`, `\r`, `\u2028`), so that what a file holds cannot redraw the user's terminal.

The JSON conventions are described in docs/json.md: every float is rounded to 12 significant
digits (so `10.499999999999998` is written `10.5`), exact probabilities and means are given as
fraction strings beside them, and an error is `{"error": {...}}` on stdout.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping
from typing import IO, TYPE_CHECKING, TypeGuard

from interpreter.errors import Invalid, RulesError

if TYPE_CHECKING:
    from fractions import Fraction

SIGNIFICANT = 12

# What a character becomes when the output's encoding cannot carry it (a Windows pipe, LANG=C).
_PLAIN = {
    "█": "#", "▉": "#", "▊": "#", "▋": "#", "▌": "#", "▍": "", "▎": "", "▏": "",
    "→": "->", "←": "<-", "—": "-", "–": "-", "−": "-", "…": "...", "×": "x", "≤": "<=", "≥": ">=",
    "‘": "'", "’": "'", "“": '"', "”": '"', "·": ".",
}
_TABLE = str.maketrans(_PLAIN)


def _encoding(stream: IO[str] | None) -> str:
    return getattr(stream, "encoding", None) or "utf-8"


def c_locale() -> bool:
    """Whether the user's locale is C or POSIX (or none at all): plain ASCII, whatever Python writes.

    Python reads such a locale as UTF-8 (PEP 538 and 540) and sets LC_CTYPE to C.UTF-8 itself, so the
    stream's encoding does not tell; the locale the environment asks for does. Only on POSIX systems.
    """
    if os.name != "posix":
        return False
    for var in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = os.environ.get(var, "")
        if var == "LC_CTYPE" and value == "C.UTF-8" and sys.flags.utf8_mode:
            continue  # (set by Python when it found the C locale)
        if value:
            return value in ("C", "POSIX")
    return True


def can_show(text: str, err: bool = False) -> bool:
    """Whether the standard output (or error) stream can encode this text as it is (never beyond ASCII in LANG=C)."""
    if not text.isascii() and c_locale():
        return False
    try:
        text.encode(_encoding(sys.stderr if err else sys.stdout))
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def showable(text: str, err: bool = False) -> str:
    """The text, with characters the stream cannot encode replaced by plain ones (or '?')."""
    if can_show(text, err):
        return text
    encoding = _encoding(sys.stderr if err else sys.stdout)
    plain = text.translate(_TABLE)
    try:
        return plain.encode(encoding, errors="replace").decode(encoding)
    except LookupError:
        return plain.encode("ascii", errors="replace").decode("ascii")


# Controls but newline and tab, line and paragraph separators, and the marks that reorder text.
# (as text: `re` compiles it when some text is not plain printable ASCII, which most output is)
_UNSAFE = "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]"


def _escaped(found: re.Match[str]) -> str:
    return repr(found.group())[1:-1]


def echo(text: str, err: bool = False, nl: bool = True) -> None:
    """Write text to stdout (or stderr) in a form its encoding can carry, controls escaped; never fails on encoding."""
    plain = text.isascii() and text.replace("\n", "").replace("\t", "").isprintable()
    if not plain and re.search(_UNSAFE, text):
        text = re.sub(_UNSAFE, _escaped, text)
    _write(showable(text, err), err, nl)


def _write(text: str, err: bool, nl: bool) -> None:
    """Write text and the newline to the stream as it is now (a test may have replaced it), then flush it.

    (What a command writes never holds an escape sequence, so there is nothing to strip for a pipe.)
    """
    stream = sys.stderr if err else sys.stdout
    if stream is None:  # (pythonw: no console at all)
        return
    stream.write(text + "\n" if nl else text)
    stream.flush()


def echo_problem(problem: RulesError) -> None:
    """Print a user's mistake on stderr: its line(s), and on a terminal the source line and a caret."""
    from interpreter.cli.caret import error_lines, is_terminal  # (a command that goes well never loads it)

    echo("\n".join(error_lines(problem, terminal=is_terminal())), err=True)


def rounded(value: object) -> object:
    """A JSON-ready value with every float rounded to 12 significant digits."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float):
        return float(f"{value:.{SIGNIFICANT}g}")
    if is_fraction(value):
        return float(f"{float(value):.{SIGNIFICANT}g}")
    if isinstance(value, Mapping):
        return {str(k): rounded(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [rounded(v) for v in value]
    return value


def fraction(p: object) -> str | None:
    """An exact probability or mean as 'p/q' (a whole number as 'n'), or None when not exact."""
    if isinstance(p, int) and not isinstance(p, bool):
        return str(p)
    if not is_fraction(p):
        return None
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


def is_fraction(value: object) -> TypeGuard[Fraction]:
    """Whether a value is an exact fraction; a command that never imported ``fractions`` has none."""
    fractions = sys.modules.get("fractions")
    return fractions is not None and isinstance(value, fractions.Fraction)


def dumps(data: object) -> str:
    """One JSON object as the command line prints it."""
    return json.dumps(rounded(data))


# The version of the shapes of --json (docs/json.md): raised when a key is renamed, removed or changes its
# meaning; keys are added without raising it.
JSON_FORMAT = 1


def print_json(data: Mapping[str, object]) -> None:
    """Print one JSON object on stdout, with the version of its format last (`"format_version": 1`)."""
    _write(dumps({**data, "format_version": JSON_FORMAT}), False, True)


def _problem(err: RulesError) -> dict[str, object]:
    where = err.where
    message = f"{err.message}; {err.hint}" if err.hint else err.message
    return {"message": message, "file": where.file if where else None,
            "line": where.line if where and where.line else None,
            "column": where.col if where and where.line else None,
            "path": where.path if where and where.path else None}


def error_json(err: RulesError) -> dict[str, object]:
    """The JSON form of a user's mistake: the first problem under "error", every one under "problems"."""
    found = err.problems if isinstance(err, Invalid) and err.problems else [err]
    out: dict[str, object] = {"error": _problem(found[0])}
    if len(found) > 1:
        out["problems"] = [_problem(p) for p in found]
    return out


def typed_params(args: Mapping[str, str]) -> dict[str, object]:
    """Parameters as JSON shows them: whole numbers as numbers, true and false as flags, the rest as typed."""
    out: dict[str, object] = {}
    for name, text in args.items():
        try:
            out[name] = int(text)
        except ValueError:
            out[name] = {"true": True, "false": False}.get(text, text)
    return out


def usage_json(message: str) -> dict[str, object]:
    """The JSON form of a command-line usage mistake."""
    return {"error": {"message": message, "file": None, "line": None, "column": None, "path": None}}


__all__ = ["c_locale", "can_show", "dumps", "echo", "echo_problem", "error_json", "fraction", "is_fraction", "print_json", "rounded", "showable", "typed_params", "usage_json"]
