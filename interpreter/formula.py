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
import difflib
import math
import operator
import re
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Mapping

from . import limits
from .errors import EvaluationError, FormulaSyntaxError, LimitExceeded, Location, RulesError, UnknownName

__all__ = [
    "ALLOWED_FUNCTIONS",
    "Formula",
    "compile_formula",
    "compile_constant_or_formula",
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
    return lo if x < lo else hi if x > hi else x


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
    checker = _Checker(source, frozenset(names), frozenset(functions))
    checker.check(tree)
    builder = _Builder(source, limits.INT_MIN, limits.INT_MAX, checker.folded)
    run = builder.build(tree.body)
    return Formula(text, frozenset(checker.names_used), frozenset(checker.calls), where, run)


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


# ---------------------------------------------------------------- checking

_ARITHMETIC = {ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod}
_BINOP_REFUSED = {
    ast.Pow: "'**' is not allowed",
    ast.LShift: "'<<' is not allowed",
    ast.RShift: "'>>' is not allowed",
    ast.BitOr: "'|' is not allowed",
    ast.BitAnd: "'&' is not allowed",
    ast.BitXor: "'^' is not allowed",
    ast.MatMult: "'@' is not allowed",
}
_COMPARE_REFUSED = {
    ast.In: "'in' is not allowed",
    ast.NotIn: "'not in' is not allowed",
    ast.Is: "'is' is not allowed",
    ast.IsNot: "'is not' is not allowed",
}
_NODE_REFUSED = {
    ast.Attribute: "attribute access is not allowed",
    ast.Subscript: "subscripts are not allowed",
    ast.JoinedStr: "strings are not allowed in formulas",
    ast.FormattedValue: "strings are not allowed in formulas",
    ast.List: "lists are not allowed",
    ast.Tuple: "tuples are not allowed",
    ast.Set: "sets are not allowed",
    ast.Dict: "dicts are not allowed",
    ast.ListComp: "comprehensions are not allowed",
    ast.SetComp: "comprehensions are not allowed",
    ast.DictComp: "comprehensions are not allowed",
    ast.GeneratorExp: "comprehensions are not allowed",
    ast.Lambda: "lambda is not allowed",
    ast.NamedExpr: "assignment is not allowed",
    ast.Starred: "'*' unpacking is not allowed",
    ast.Await: "await is not allowed",
    ast.Yield: "yield is not allowed",
    ast.YieldFrom: "yield is not allowed",
    ast.Slice: "subscripts are not allowed",
}
# A left operand in the same group as its parent continues a chain: no extra depth.
_GROUP = {ast.Add: 1, ast.Sub: 1, ast.Mult: 2, ast.Div: 2, ast.FloorDiv: 2, ast.Mod: 2}


def _did_you_mean(name: str, candidates: Collection[str]) -> str | None:
    """A hint naming the closest candidate, ignoring case first."""
    pool = sorted(set(candidates))
    same_case = [c for c in pool if c.lower() == name.lower()]
    if same_case:
        return f"did you mean '{same_case[0]}'?"
    lowered: dict[str, str] = {}
    for c in pool:
        lowered.setdefault(c.lower(), c)
    close = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
    return f"did you mean '{lowered[close[0]]}'?" if close else None


class _Checker:
    """Walks the tree once, without recursion, refusing anything outside the allowlist."""

    def __init__(self, source: _Source, names: frozenset[str], functions: frozenset[str]):
        self.source = source
        self.names = names
        self.functions = functions | frozenset(ALLOWED_FUNCTIONS)
        self.names_used: set[str] = set()
        self.calls: set[str] = set()
        self.folded: set[int] = set()  # ids of int literals allowed only because they are negated
        self.problems: list[tuple[tuple[int, int, int, int], RulesError]] = []

    def check(self, tree: ast.Expression) -> None:
        max_nodes = limits.MAX_FORMULA_NODES
        max_depth = limits.MAX_FORMULA_DEPTH
        count = 0
        order = 0
        stack: list[tuple[ast.AST, int]] = [(tree.body, 1)]
        while stack:
            node, depth = stack.pop()
            count += 1
            order += 1
            if count > max_nodes:
                raise LimitExceeded(
                    f"formula has too many parts (more than {max_nodes})", self.source.start
                )
            if depth > max_depth:
                raise LimitExceeded(
                    f"formula is nested too deeply (more than {max_depth} levels)",
                    self.source.node_at(node),
                )
            children = self._visit(node, order)
            for child in reversed(children):
                extra = 1
                if (
                    isinstance(node, ast.BinOp)
                    and child is node.left
                    and isinstance(child, ast.BinOp)
                    and _GROUP.get(type(child.op)) == _GROUP.get(type(node.op))
                ):
                    extra = 0
                stack.append((child, depth + extra))
        if self.problems:
            self.problems.sort(key=lambda p: p[0])
            raise self.problems[0][1]

    def _problem(self, node: ast.AST, order: int, error: RulesError, rank: int = 0) -> None:
        key = (node.lineno, node.col_offset, rank, order)  # type: ignore[attr-defined]
        self.problems.append((key, error))

    def _refuse(self, node: ast.AST, order: int, message: str, rank: int = 0) -> None:
        self._problem(node, order, FormulaSyntaxError(message, self.source.node_at(node)), rank)

    def _visit(self, node: ast.AST, order: int) -> list[ast.AST]:
        """Record any problem with this node and return the children to check."""
        kind = type(node)
        if kind is ast.Name:
            self._name(node, order)  # type: ignore[arg-type]
            return []
        if kind is ast.Constant:
            self._constant(node, order)  # type: ignore[arg-type]
            return []
        if kind is ast.BinOp:
            refused = _BINOP_REFUSED.get(type(node.op))  # type: ignore[attr-defined]
            if refused:
                self._refuse(node, order, refused)
                return []
            return [node.left, node.right]  # type: ignore[attr-defined]
        if kind is ast.UnaryOp:
            op = node.op  # type: ignore[attr-defined]
            if isinstance(op, ast.Invert):
                self._refuse(node, order, "'~' is not allowed")
                return []
            operand = node.operand  # type: ignore[attr-defined]
            if (
                isinstance(op, ast.USub)
                and type(operand) is ast.Constant
                and type(operand.value) is int
                and limits.INT_MIN <= -operand.value <= limits.INT_MAX
            ):
                self.folded.add(id(operand))
            return [operand]
        if kind is ast.BoolOp:
            return list(node.values)  # type: ignore[attr-defined]
        if kind is ast.Compare:
            for op in node.ops:  # type: ignore[attr-defined]
                refused = _COMPARE_REFUSED.get(type(op))
                if refused:
                    self._refuse(node, order, refused)
                    return []
            return [node.left, *node.comparators]  # type: ignore[attr-defined]
        if kind is ast.IfExp:
            return [node.body, node.test, node.orelse]  # type: ignore[attr-defined]
        if kind is ast.Call:
            return self._call(node, order)  # type: ignore[arg-type]
        refused = _NODE_REFUSED.get(kind)
        self._refuse(node, order, refused or f"{kind.__name__} is not allowed")
        return []

    def _name(self, node: ast.Name, order: int) -> None:
        name = node.id
        if name in self.names:
            self.names_used.add(name)
            return
        where = self.source.node_at(node)
        if name in self.functions:
            error: RulesError = FormulaSyntaxError(
                f"'{name}' is a function; call it with arguments, like {name}(...)", where
            )
        else:
            hint = _did_you_mean(name, set(self.names) | {"True", "False"})
            error = UnknownName(f"unknown name '{name}'", where, hint=hint)
        self._problem(node, order, error)

    def _constant(self, node: ast.Constant, order: int) -> None:
        value = node.value
        kind = type(value)
        if kind is bool:
            return
        if kind is int:
            if limits.INT_MIN <= value <= limits.INT_MAX or id(node) in self.folded:
                return
            error = LimitExceeded(
                "integer literal out of range (it must fit in 64 bits)", self.source.node_at(node)
            )
            self._problem(node, order, error)
            return
        if kind in (float, complex):
            message = "only whole numbers are allowed"
        elif kind is str:
            message = "strings are not allowed in formulas"
        elif kind is bytes:
            message = "bytes are not allowed in formulas"
        elif value is None:
            message = "None is not allowed"
        elif value is Ellipsis:
            message = "'...' is not allowed"
        else:
            message = f"{kind.__name__} values are not allowed"
        self._refuse(node, order, message)

    def _call(self, node: ast.Call, order: int) -> list[ast.AST]:
        func = node.func
        children: list[ast.AST] = list(node.args)
        for keyword in node.keywords:
            message = (
                "keyword arguments are not allowed" if keyword.arg else "'**' unpacking is not allowed"
            )
            self._refuse(keyword, order, message)
        if not isinstance(func, ast.Name):
            # The callee itself is usually refused (x.y(), (lambda: 1)()); this
            # is reported at the callee, ranked after any problem found there.
            self._refuse(func, order, "only named functions can be called", rank=1)
            return [func, *children]
        name = func.id
        if name not in self.functions:
            hint = _did_you_mean(name, self.functions)
            error = FormulaSyntaxError(f"unknown function '{name}'", self.source.node_at(func), hint=hint)
            self._problem(node, order, error)
            return children
        self.calls.add(name)
        given = len(node.args)
        fewest, most = _ARITY.get(name, (1, None))
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            return children  # refused above, or when the Starred child is visited
        if most is not None and fewest == most and given != fewest:
            plural = "" if fewest == 1 else "s"
            self._refuse(node, order, f"{name}() takes exactly {fewest} argument{plural} ({given} given)")
        elif given < fewest:
            plural = "" if fewest == 1 else "s"
            self._refuse(node, order, f"{name}() needs at least {fewest} argument{plural}")
        return children


# ---------------------------------------------------------------- building closures

_COMPARE = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


class _Builder:
    """Turns a checked tree into nested closures ``run(env, functions) -> value``."""

    def __init__(self, source: _Source, lo: int, hi: int, folded: set[int]):
        self.source = source
        self.lo = lo
        self.hi = hi
        self.folded = folded

    def out_of_range(self, value: Any, node: ast.AST) -> EvaluationError:
        kind = "integer" if isinstance(value, int) else "number"
        return EvaluationError(
            f"{kind} out of range in '{self.source.segment(node)}'", self.source.node_at(node)
        )

    def build(self, node: ast.AST) -> Runner:
        method = getattr(self, "_" + type(node).__name__)
        return method(node)

    def _Constant(self, node: ast.Constant) -> Runner:
        value = node.value

        def constant(env, tables):
            return value

        return constant

    def _Name(self, node: ast.Name) -> Runner:
        key = node.id
        lo, hi = self.lo, self.hi
        where = self.source.node_at(node)
        number = _number_checker(lo, hi, lambda: f"'{key}'", where)

        def name(env, tables):
            try:
                value = env[key]
            except KeyError:
                raise UnknownName(f"unknown name '{key}'", where) from None
            kind = type(value)
            if (kind is int or kind is float) and lo <= value <= hi or kind is bool:
                return value
            return number(value)

        return name

    def _UnaryOp(self, node: ast.UnaryOp) -> Runner:
        op = node.op
        operand_node = node.operand
        if isinstance(op, ast.USub) and id(operand_node) in self.folded:
            value = -operand_node.value  # type: ignore[attr-defined]

            def negative_constant(env, tables):
                return value

            return negative_constant
        operand = self.build(operand_node)
        if isinstance(op, ast.Not):

            def not_(env, tables):
                return not operand(env, tables)

            return not_
        if isinstance(op, ast.UAdd):

            def plus(env, tables):
                return +operand(env, tables)

            return plus
        lo, hi = self.lo, self.hi
        fail = self.out_of_range

        def minus(env, tables):
            r = -operand(env, tables)
            if lo <= r <= hi:
                return r
            raise fail(r, node)

        return minus

    def _BinOp(self, node: ast.BinOp) -> Runner:
        left = self.build(node.left)
        right = self.build(node.right)
        lo, hi = self.lo, self.hi
        fail = self.out_of_range
        op = type(node.op)
        if op is ast.Add:

            def add(env, tables):
                r = left(env, tables) + right(env, tables)
                if lo <= r <= hi:
                    return r
                raise fail(r, node)

            return add
        if op is ast.Sub:

            def sub(env, tables):
                r = left(env, tables) - right(env, tables)
                if lo <= r <= hi:
                    return r
                raise fail(r, node)

            return sub
        if op is ast.Mult:

            def mul(env, tables):
                r = left(env, tables) * right(env, tables)
                if lo <= r <= hi:
                    return r
                raise fail(r, node)

            return mul
        divide = {ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}[op]
        segment = self.source.segment(node)
        where = self.source.node_at(node)

        def division(env, tables):
            a = left(env, tables)
            b = right(env, tables)
            if not b:
                raise EvaluationError(f"division by zero in '{segment}'", where)
            r = divide(a, b)
            if lo <= r <= hi:
                return r
            raise fail(r, node)

        return division

    def _BoolOp(self, node: ast.BoolOp) -> Runner:
        parts = [self.build(v) for v in node.values]
        if len(parts) == 2:
            first, second = parts
            if isinstance(node.op, ast.And):

                def and2(env, tables):
                    return first(env, tables) and second(env, tables)

                return and2

            def or2(env, tables):
                return first(env, tables) or second(env, tables)

            return or2
        head, last = parts[:-1], parts[-1]
        if isinstance(node.op, ast.And):

            def and_(env, tables):
                for part in head:
                    value = part(env, tables)
                    if not value:
                        return value
                return last(env, tables)

            return and_

        def or_(env, tables):
            for part in head:
                value = part(env, tables)
                if value:
                    return value
            return last(env, tables)

        return or_

    def _Compare(self, node: ast.Compare) -> Runner:
        left = self.build(node.left)
        ops = [_COMPARE[type(op)] for op in node.ops]
        rights = [self.build(c) for c in node.comparators]
        if len(ops) == 1:
            compare = ops[0]
            right = rights[0]

            def compare1(env, tables):
                return compare(left(env, tables), right(env, tables))

            return compare1
        steps = list(zip(ops, rights))

        def chain(env, tables):
            a = left(env, tables)
            for compare, right in steps:
                b = right(env, tables)
                if not compare(a, b):
                    return False
                a = b
            return True

        return chain

    def _IfExp(self, node: ast.IfExp) -> Runner:
        test = self.build(node.test)
        body = self.build(node.body)
        orelse = self.build(node.orelse)

        def conditional(env, tables):
            return body(env, tables) if test(env, tables) else orelse(env, tables)

        return conditional

    def _Call(self, node: ast.Call) -> Runner:
        name = node.func.id  # type: ignore[attr-defined]
        args = tuple(self.build(a) for a in node.args)
        where = self.source.node_at(node)
        lo, hi = self.lo, self.hi
        number = _number_checker(lo, hi, lambda: f"the result of {name}()", where)
        builtin = ALLOWED_FUNCTIONS.get(name)
        fail = self.out_of_range
        if builtin is not None:
            if len(args) == 1:
                (arg,) = args

                def call1(env, tables):
                    try:
                        r = builtin(arg(env, tables))
                    except RulesError as err:
                        raise err.located(where)
                    if type(r) is int and lo <= r <= hi:
                        return r
                    if type(r) is int:
                        raise fail(r, node)
                    return number(r)

                return call1

            def call(env, tables):
                try:
                    r = builtin(*[a(env, tables) for a in args])
                except RulesError as err:
                    raise err.located(where)
                return number(r)

            return call

        def table_call(env, tables):
            try:
                function = tables[name]  # type: ignore[index]
            except (KeyError, TypeError):
                raise UnknownName(f"unknown function '{name}'", where) from None
            values = [a(env, tables) for a in args]
            try:
                r = function(*values)
            except RulesError as err:
                raise err.located(where)
            return number(r)

        return table_call


def _number_checker(lo: int, hi: int, what: Callable[[], str], where: Location) -> Callable[[Any], Number]:
    """A function that passes a value in range through, converts int/float subclasses, or raises."""

    def number(value: Any) -> Number:
        if isinstance(value, bool):
            return bool(value)
        if isinstance(value, int):
            value = int(value)
            if lo <= value <= hi:
                return value
            raise EvaluationError(f"integer out of range in {what()}", where)
        if isinstance(value, float):
            value = float(value)
            if lo <= value <= hi:
                return value
            raise EvaluationError(f"number out of range in {what()}", where)
        raise EvaluationError(f"{what()} is not a number (it is {type(value).__name__})", where)

    return number
