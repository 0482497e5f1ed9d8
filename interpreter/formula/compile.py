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
Each checked tree is written once as Python statements (``formula.code``): one
temporary per operation, each arithmetic result checked against the 64-bit
range in the same statement that computes it, and each name read with one
dictionary lookup and one type test.  ``Formula.evaluate`` runs those
statements as a function of their own, written and compiled the first time the
formula is evaluated; a procedure step puts the same statements inside the
code written for the step.  There is one evaluator, so a formula gives the same
value and the same located error wherever it runs.  This was chosen by
measurement (docs/decisions.md): for ``natural + stat + mod + luck_roll -
luck_penalty`` the statements take about a third of the time nested closures
took, and a ``SimpleEval`` built per call (the only way to keep no state
between calls) about ten times as long; the compile-time allowlist, not the
evaluator, is what makes formulas safe either way.  ``simpleeval`` stays as the
oracle the property tests compare against.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Iterator, Mapping

from interpreter import limits
from interpreter.errors import FormulaSyntaxError, LimitExceeded, Location
from interpreter.formula.check import Allowlist
from interpreter.formula.code import compiled
from interpreter.formula.functions import ALLOWED_FUNCTIONS, Runner
from interpreter.formula.source import Source, parse, prescan
from interpreter.record import field, record

__all__ = [
    "ALLOWED_FUNCTIONS",
    "Either",
    "Formula",
    "compile_constant_or_formula",
    "compile_formula",
]


class Either(Collection[str]):
    """The names of two collections as one, without copying either: a formula checks its names against
    them, and a copy of every earlier name per formula (thousands of constants) grows with the square."""

    __slots__ = ("first", "second")

    def __init__(self, first: Collection[str], second: Collection[str]):
        self.first, self.second = first, second

    def __contains__(self, name: object) -> bool:
        return name in self.first or name in self.second

    def __iter__(self) -> Iterator[str]:
        yield from self.first
        yield from (name for name in self.second if name not in self.first)

    def __len__(self) -> int:
        return sum(1 for _ in self)


# ---------------------------------------------------------------- the value


@record
class Formula:
    """A checked formula, ready to evaluate many times.  Equal and hashed by its text."""

    text: str
    names: frozenset[str] = field(compare=False)
    calls: frozenset[str] = field(compare=False)
    where: Location | None = field(default=None, compare=False, repr=False)
    # the names read whenever the formula is evaluated (not behind and/or, if-else or a chained
    # comparison), each with where it is first read: a name that may be absent is refused there
    strict: tuple[tuple[str, Location], ...] = field(default=(), compare=False, repr=False)
    # the checked tree: its source (for messages), its body and its folded literals; None for a
    # formula that is one whole number, whose value is `literal`
    tree: tuple[Source, ast.expr, frozenset[int]] | None = field(default=None, compare=False, repr=False)
    literal: int | None = field(default=None, compare=False, repr=False)
    _run: Runner | None = field(default=None, compare=False, repr=False)

    def evaluate(
        self,
        env: Mapping[str, object],
        functions: Mapping[str, Callable[..., object]] | None = None,
    ) -> int | bool | float:
        """The formula's value with names taken from ``env``.

        ``functions`` supplies the extra (table) functions the formula was
        compiled with; the functions in ``ALLOWED_FUNCTIONS`` are always there
        and cannot be replaced.  Raises ``UnknownName`` for a name or function
        that is missing, ``EvaluationError`` for a value that is not a number,
        out of range, or a division by zero.
        """
        run = self._run
        if run is None:  # written and compiled when first evaluated (most formulas of a ruleset never are)
            run = _literal(self.literal or 0) if self.tree is None else compiled(*self.tree)
            object.__setattr__(self, "_run", run)  # (a cache: the formula's value does not change)
        value: int | bool | float = run(env, functions)
        return value


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
    if text.isdigit() and text.isascii() and (text == "0" or text[0] != "0") and len(text) < 19:
        value = int(text)  # a plain whole number (most of a ruleset's constants and table values)
        if value <= limits.INT_MAX:
            return Formula(text, frozenset(), frozenset(), where, literal=value)
    source = Source(text, where)
    prescan(source)
    tree = parse(source)
    if "true" in text or "false" in text:  # (only then can a name be one of them)
        _lowercase_flags(tree)
    checker = Allowlist(source, names, frozenset(functions))  # (names as given: a copy per formula is quadratic)
    checker.check(tree)
    strict: dict[str, Location] = {}
    for node in _always_read(tree.body):
        strict.setdefault(node.id, source.node_at(node))
    return Formula(text, frozenset(checker.names_used), frozenset(checker.calls), where, tuple(strict.items()),
                   (source, tree.body, frozenset(checker.folded)))


def _literal(value: int) -> Runner:
    """The runner of a formula that is one whole number, made without parsing it."""

    def constant(env: Mapping[str, object], tables: Mapping[str, object] | None) -> int:
        return value

    return constant


def _always_read(node: ast.AST) -> list[ast.Name]:
    """The name nodes evaluated whenever the formula is, in reading order."""
    out: list[ast.Name] = []
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Name):
            out.append(n)
            continue
        if isinstance(n, ast.BoolOp):
            parts: list[ast.AST] = [n.values[0]]
        elif isinstance(n, ast.IfExp):
            parts = [n.test]
        elif isinstance(n, ast.Compare):
            parts = [n.left, n.comparators[0]]
        elif isinstance(n, ast.Call):
            parts = list(n.args)
        else:
            parts = list(ast.iter_child_nodes(n))
        todo.extend(reversed(parts))
    return out


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
