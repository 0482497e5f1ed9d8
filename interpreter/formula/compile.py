"""Formulas: small, safe arithmetic expressions written inside rulesets.

A formula is Python expression syntax cut down to what rules need::

    (STR + AGI) // 2
    stat + mod >= dc
    clamp(level // 4, 1, 5) if trained else 0

Allowed: whole-number literals and ``True``/``False``; the names declared where
the formula stands; ``+ - * / // %``; unary ``- + not``; comparisons (chained,
as in ``1 <= x <= 6``); ``and``/``or``; ``x if c else y``; and calls, with
positional arguments only, of the functions in ``ALLOWED_FUNCTIONS`` or of
extra functions (table lookups) named when the formula is compiled.  Anything
else (attributes, subscripts, strings, floats, containers, comprehensions,
lambdas, ``**``, bitwise operators, keyword arguments, ...) is refused when the
ruleset is loaded, with the line and column of the offending part.

Semantics
---------
* ``/`` is true division and gives a float (``7 / 2 == 3.5``); ``//`` floors
  (``-7 // 2 == -4``) and ``%`` takes the sign of the divisor, as in Python.
* ``True`` and ``False`` behave as 1 and 0 in arithmetic.
* ``and``/``or`` return one of their operands, as in Python.
* Every value -- each name read, each operation's result, each function's
  result -- must lie within ``limits.INT_MIN .. limits.INT_MAX`` (64 bits);
  otherwise evaluation stops with ``EvaluationError("integer out of range in
  '...'")``.  Division or modulo by zero stops with ``EvaluationError("division
  by zero in '...'")``.  Because every operand is bounded and ``**``/``<<`` are
  not part of the language, no single operation can allocate much memory or
  run for long.

Limits
------
Before anything is parsed, the text length is checked against
``limits.MAX_FORMULA_CHARS`` (so a megabyte of text is refused at once) and a
linear scan refuses bracket nesting or runs of unary operators deeper than
``limits.MAX_FORMULA_DEPTH``; only then is the text given to ``ast.parse``.
The syntax tree is then walked without recursion to count its parts
(``limits.MAX_FORMULA_NODES``) and measure its depth.  A left-leaning chain of
the same kind of operator (``a + b - c + d``) counts as one level, so long sums
are limited by the part count rather than by depth.  The 64-bit range is read
from ``limits`` when a formula is compiled.

Evaluation strategy
-------------------
Each checked tree is compiled once into nested Python closures, one per node,
with the range and zero-divisor checks built into the arithmetic closures.
``Formula.evaluate`` then just calls the root closure with the environment; no
evaluator object is built per call and nothing is kept between calls, so a
formula may be evaluated from several places at once.  This was chosen by
measurement over running the same pre-parsed tree through ``simpleeval``
with checked operators.  For ``natural + stat + mod`` the closures take about
0.6-0.9 microseconds per evaluation; a ``SimpleEval`` built per call (the only
way to keep no state between calls) takes about 9-12 microseconds, and even a
single reused instance, which keeps the names of the current call on itself
and so is not re-entrant, takes about 1.5-2.5 microseconds.
Formulas are evaluated inside exact-odds loops many thousands of times, so the
factor matters; the compile-time allowlist, not the evaluator, is what makes
formulas safe either way.
"""

from __future__ import annotations

import ast
import math
import re
import warnings
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from interpreter import limits
from interpreter.errors import EvaluationError, FormulaSyntaxError, LimitExceeded, Location

__all__ = [
    "ALLOWED_FUNCTIONS",
    "Formula",
    "compile_constant_or_formula",
    "compile_formula",
]

Number = int | bool | float
Runner = Callable[[Mapping[str, object], Mapping[str, Callable[..., Any]] | None], Any]


# ---------------------------------------------------------------- functions


def _min(*args: Number) -> Number:
    return min(args)


def _max(*args: Number) -> Number:
    return max(args)


def _clamp(x: Number, lo: Number, hi: Number) -> Number:
    if lo > hi:
        raise EvaluationError(f"clamp() lower bound {lo} is greater than upper bound {hi}")
    return lo if x < lo else min(x, hi)


ALLOWED_FUNCTIONS: Mapping[str, Callable[..., Number]] = {
    "min": _min,
    "max": _max,
    "abs": abs,
    "floor": math.floor,
    "ceil": math.ceil,
    "clamp": _clamp,
}

# name -> (fewest, most) positional arguments; None means no upper bound.
_ARITY: dict[str, tuple[int, int | None]] = {
    "min": (1, None),
    "max": (1, None),
    "abs": (1, 1),
    "floor": (1, 1),
    "ceil": (1, 1),
    "clamp": (3, 3),
}


# ---------------------------------------------------------------- the value


@dataclass(frozen=True, slots=True)
class Formula:
    """A checked formula, ready to evaluate many times.  Equal and hashed by its text."""

    text: str
    names: frozenset[str] = field(compare=False)
    calls: frozenset[str] = field(compare=False)
    where: Location | None = field(default=None, compare=False, repr=False)
    _run: Runner = field(default=None, compare=False, repr=False)  # type: ignore[assignment]

    def evaluate(
        self,
        env: Mapping[str, object],
        functions: Mapping[str, Callable[..., Any]] | None = None,
    ) -> int | bool | float:
        """The formula's value with names taken from ``env``.

        ``functions`` supplies the extra (table) functions the formula was
        compiled with; the functions in ``ALLOWED_FUNCTIONS`` are always there
        and cannot be replaced.  Raises ``UnknownName`` for a name or function
        that is missing, ``EvaluationError`` for a value that is not a number,
        out of range, or a division by zero.
        """
        return self._run(env, functions)


# ---------------------------------------------------------------- compiling


def compile_formula(
    text: str,
    *,
    names: Collection[str],
    functions: Collection[str] = (),
    where: Location | None = None,
) -> Formula:
    """Check a formula and prepare it for evaluation.

    ``names`` are the names the formula may read; ``functions`` are extra
    functions it may call besides ``ALLOWED_FUNCTIONS``.  ``where`` is the
    position of the formula's first character in its source file; errors point
    at the offending part relative to it.
    """
    start = where or Location("<formula>", 1, 1)
    if not isinstance(text, str):
        raise FormulaSyntaxError(f"a formula must be text, not {type(text).__name__}", start)
    max_chars = limits.MAX_FORMULA_CHARS
    if len(text) > max_chars:  # before anything else looks at the text
        raise LimitExceeded(f"formula is too long ({len(text)} characters; the limit is {max_chars})", start)
    text = str(text)
    source = _Source(text, where)
    _prescan(source)
    tree = _parse(source)
    _lowercase_flags(tree)
    from interpreter.formula.build import _Builder  # imported here: both build on this module's names
    from interpreter.formula.check import _Checker

    checker = _Checker(source, frozenset(names), frozenset(functions))
    checker.check(tree)
    builder = _Builder(source, limits.INT_MIN, limits.INT_MAX, checker.folded)
    run = builder.build(tree.body)
    return Formula(text, frozenset(checker.names_used), frozenset(checker.calls), where, run)


def _lowercase_flags(tree: ast.AST) -> None:
    """`true` and `false` (as YAML writes them) mean True and False in a formula."""
    for node in ast.walk(tree):
        for field_name, value in ast.iter_fields(node):
            if isinstance(value, ast.Name) and value.id in ("true", "false"):
                setattr(node, field_name, ast.copy_location(ast.Constant(value.id == "true"), value))
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, ast.Name) and item.id in ("true", "false"):
                        value[i] = ast.copy_location(ast.Constant(item.id == "true"), item)


def compile_constant_or_formula(
    value: object,
    *,
    names: Collection[str],
    functions: Collection[str] = (),
    where: Location | None = None,
) -> Formula:
    """A formula from a YAML value: a whole number or true/false becomes a constant formula."""
    if isinstance(value, bool):
        text = "True" if value else "False"
    elif isinstance(value, int):
        text = str(int(value))
    elif isinstance(value, str):
        text = value
    elif isinstance(value, float):
        raise FormulaSyntaxError("only whole numbers are allowed", where)
    else:
        raise FormulaSyntaxError(
            f"expected a whole number, true/false or a formula, not {type(value).__name__}", where
        )
    return compile_formula(text, names=names, functions=functions, where=where)


# ---------------------------------------------------------------- positions


class _Source:
    """The formula text, how it is parsed, and how parser positions map back to the file.

    The text is parsed wrapped as ``"(\\n" + text + "\\n)"`` so that a formula
    may span lines and start with spaces; brackets are checked to balance
    first, so the wrapping cannot change what the text means.  Line 1 of the
    wrapped text is the added bracket; line ``k + 1`` is line ``k`` of the text.
    """

    def __init__(self, text: str, where: Location | None):
        self.text = text.replace("\r\n", "\n").replace("\r", "\n")
        self.where = where
        self.lines = self.text.split("\n")
        self.wrapped = "(\n" + self.text + "\n)"

    @property
    def start(self) -> Location:
        return self.at(1, 0)

    def at(self, line: int, col: int) -> Location:
        """The file position of 1-based ``line`` and 0-based character ``col`` in the text."""
        where = self.where
        if where is None:
            return Location("<formula>", line, col + 1)
        if line == 1:
            return Location(where.file, where.line, where.col + col, where.path)
        return Location(where.file, where.line + line - 1, col + 1, where.path)

    def at_index(self, index: int) -> Location:
        """The file position of a character index into the text."""
        line = self.text.count("\n", 0, index) + 1
        col = index - (self.text.rfind("\n", 0, index) + 1)
        return self.at(line, col)

    def at_wrapped(self, wrapped_line: int | None, col: int | None, *, in_bytes: bool) -> Location:
        """The file position of a position in the wrapped text (as the parser reports it)."""
        line = (wrapped_line or 1) - 1
        if line < 1:
            return self.start
        if line > len(self.lines):  # the added closing bracket: just after the last character
            return self.at_index(len(self.text.rstrip()))
        col = max(col or 0, 0)
        if in_bytes:
            col = len(self.lines[line - 1].encode("utf-8")[:col].decode("utf-8", "ignore"))
        return self.at(line, col)

    def node_at(self, node: ast.AST) -> Location:
        return self.at_wrapped(node.lineno, node.col_offset, in_bytes=True)  # type: ignore[attr-defined]

    def segment(self, node: ast.AST) -> str:
        """The text of a node, shortened for messages."""
        text = ast.get_source_segment(self.wrapped, node) or ast.unparse(node)
        text = " ".join(text.split())
        return text if len(text) <= 60 else text[:57] + "..."


_NOT_CHAIN = r"(?:\bnot\b[\s(]*)"


def _prescan(source: _Source) -> None:
    """Refuse deep nesting and unbalanced brackets before the parser sees the text.

    One linear pass, skipping string literals and comments: brackets must
    balance, may nest at most ``MAX_FORMULA_DEPTH`` deep, and runs of unary
    operator characters or of ``not`` are bounded the same way.
    """
    text = source.text
    max_depth = limits.MAX_FORMULA_DEPTH
    too_deep = f"formula is nested too deeply (more than {max_depth} levels)"
    closers = {")": "(", "]": "[", "}": "{"}
    stack: list[tuple[str, int]] = []
    run = 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "([{":
            stack.append((c, i))
            if len(stack) > max_depth:
                raise LimitExceeded(too_deep, source.at_index(i))
            run = 0
        elif c in ")]}":
            if not stack or stack[-1][0] != closers[c]:
                raise FormulaSyntaxError(f"unmatched '{c}'", source.at_index(i))
            stack.pop()
            run = 0
        elif c in "+-~":
            run += 1
            if run > max_depth + 1:
                raise LimitExceeded(too_deep, source.at_index(i))
        elif c in " \t\n\\":
            pass
        elif c in "'\"":
            end = _string_end(text, i)
            if end < 0:
                return  # unterminated: the parser reports it
            i = end
            run = 0
            continue
        elif c == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        else:
            run = 0
        i += 1
    if stack:
        opener, index = stack[-1]
        raise FormulaSyntaxError(f"'{opener}' was never closed", source.at_index(index))
    deep_not = re.search(_NOT_CHAIN + "{%d,}" % (max_depth + 1), text)
    if deep_not:
        raise LimitExceeded(too_deep, source.at_index(deep_not.start()))


def _string_end(text: str, i: int) -> int:
    """Index just after the string literal starting at ``i``, or -1 if it never ends."""
    quote = text[i]
    if text.startswith(quote * 3, i):
        end = text.find(quote * 3, i + 3)
        return -1 if end < 0 else end + 3
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == quote:
            return j + 1
        if c == "\n":
            return -1
        j += 1
    return -1


_STATEMENT_MESSAGES: dict[type, str] = {
    ast.Import: "import is not allowed",
    ast.ImportFrom: "import is not allowed",
    ast.Assign: "assignment is not allowed",
    ast.AugAssign: "assignment is not allowed",
    ast.AnnAssign: "assignment is not allowed",
    ast.FunctionDef: "function definitions are not allowed",
    ast.AsyncFunctionDef: "function definitions are not allowed",
    ast.ClassDef: "class definitions are not allowed",
}


def _parse(source: _Source) -> ast.Expression:
    """Parse the (already scanned) text as one expression, or raise a located error."""
    if not source.text.strip():
        raise FormulaSyntaxError("empty formula", source.start)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source.wrapped, mode="eval")
    except SyntaxError as err:
        raise _statement_error(source) or FormulaSyntaxError(
            _syntax_message(err, source.wrapped), source.at_wrapped(err.lineno, (err.offset or 1) - 1, in_bytes=False)
        ) from None
    except ValueError as err:  # e.g. a null character, on older Pythons
        raise FormulaSyntaxError(str(err), source.start) from None
    except (RecursionError, MemoryError):
        raise LimitExceeded("formula is too complex", source.start) from None
    body = tree.body
    if isinstance(body, ast.Tuple) and not body.elts and body.lineno == 1:
        raise FormulaSyntaxError("empty formula", source.start)  # only a comment
    return tree


def _syntax_message(err: SyntaxError, wrapped: str = "") -> str:
    msg = err.msg or "invalid syntax"
    if "null bytes" in msg:
        return "formulas cannot contain null characters"
    if msg == "invalid syntax":
        lines = wrapped.split("\n")
        row = lines[err.lineno - 1] if err.lineno and 0 < err.lineno <= len(lines) else ""
        rest = row[(err.offset or 1) - 1:] + "".join(lines[err.lineno:] if err.lineno else [])
        if rest.strip() in ("", ")"):
            return "the formula ends where a number or name was expected"
        return "this is not a formula: check for a missing operator or bracket"
    if msg.startswith("invalid syntax. Perhaps you forgot a comma"):
        return "two values stand side by side; put an operator between them"
    if msg == "invalid decimal literal":
        return "a number runs into letters (dice such as 1d6 belong in roll steps, not formulas)"
    # Line numbers inside the message would count the added bracket; drop them.
    return re.sub(r" \(detected at line \d+\)", "", msg)


def _statement_error(source: _Source) -> FormulaSyntaxError | None:
    """A clear message when the text is a statement (``import os``, ``x = 1``) rather than an expression."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = ast.parse(source.text, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for index, stmt in enumerate(module.body):
        if isinstance(stmt, ast.Expr):
            if index:
                return FormulaSyntaxError(
                    "a formula must be a single expression", _text_node_at(source, stmt)
                )
            continue
        message = _STATEMENT_MESSAGES.get(type(stmt), "statements are not allowed")
        return FormulaSyntaxError(message, _text_node_at(source, stmt))
    return None


def _text_node_at(source: _Source, node: ast.AST) -> Location:
    """Position of a node parsed from the unwrapped text."""
    return source.at_wrapped(node.lineno + 1, node.col_offset, in_bytes=True)  # type: ignore[attr-defined]
