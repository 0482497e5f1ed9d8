"""Formulas as Python expression source, for the sampling fast path (see procedure.sampler).

A compiled formula's checked tree (only what the Checker allows: whole numbers, names,
arithmetic, comparisons, and/or/not, conditionals and calls of known functions) is written
out as one parenthesised Python expression. Nothing of the formula's text reaches the
output but through its tree: names become identifiers the caller chooses, literals are
written with repr of an int or a bool, and functions and error details are objects the
caller stores under names of its own. The semantics are the closures' (formula.build):
every operation's result is checked against the 64-bit range and division by zero is an
error, with the same messages.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

from interpreter import limits
from interpreter.errors import EvaluationError, Location
from interpreter.formula.compile import Formula, checked_tree
from interpreter.formula.functions import ALLOWED_FUNCTIONS
from interpreter.formula.source import Source

_COMPARE = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_ARITH = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}
_DIVIDE = {ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
LO, HI = limits.INT_MIN, limits.INT_MAX


class Unsupported(Exception):
    """Something the fast path does not write out; the procedure is run by the general runner instead."""


def out_of_range(value: Any, info: tuple[str, Location]) -> Any:
    """Raise the closures' error for a value outside 64 bits."""
    kind = "integer" if isinstance(value, int) else "number"
    raise EvaluationError(f"{kind} out of range in '{info[0]}'", info[1])


def divide(a: Any, b: Any, op: Callable[[Any, Any], Any], info: tuple[str, Location]) -> Any:
    """`a / b`, `a // b` or `a % b` with the closures' checks."""
    if not b:
        raise EvaluationError(f"division by zero in '{info[0]}'", info[1])
    r = op(a, b)
    if LO <= r <= HI:
        return r
    return out_of_range(r, info)


def number(value: Any, what: str, where: Location) -> Any:
    """A value read as a number, as the closures read one: bools and numbers in range pass, the rest is an error."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        value = int(value) if isinstance(value, int) else float(value)
        if LO <= value <= HI:
            return value
        kind = "integer" if isinstance(value, int) else "number"
        raise EvaluationError(f"{kind} out of range in {what}", where)
    raise EvaluationError(f"{what} is not a number (it is {type(value).__name__})", where)


class Kept:
    """What writes a module: the objects its source names by made-up identifiers, kept in its globals."""

    globals: dict[str, Any]
    kept: dict[int, str]

    def keep(self, obj: object) -> str:
        """An identifier for an object, stored in the module's globals."""
        name = self.kept.get(id(obj))
        if name is None:
            name = self.kept[id(obj)] = f"g{len(self.kept)}"
            self.globals[name] = obj
        return name


class FormulaWriter:
    """Writes formulas as expressions; `name(n)` gives the code reading name n, `keep(obj)` an identifier for obj."""

    def __init__(self, name: Callable[[str, Source, ast.AST], str], keep: Callable[[object], str],
                 function: Callable[[str], str]):
        self.name = name
        self.keep = keep
        self.function = function  # a table function's identifier

    def write(self, formula: Formula) -> str:
        tree, source, folded = checked_tree(formula)
        return self._node(tree, source, folded)

    def _checked(self, code: str, source: Source, node: ast.AST) -> str:
        info = self.keep((source.segment(node), source.node_at(node)))
        return f"(_t if {LO} <= (_t := {code}) <= {HI} else _oor(_t, {info}))"

    def _node(self, node: ast.AST, source: Source, folded: set[int]) -> str:
        go = self._node
        if isinstance(node, ast.Constant):
            if type(node.value) is bool or type(node.value) is int:
                return f"({node.value!r})"
            raise Unsupported(f"constant {type(node.value).__name__}")
        if isinstance(node, ast.Name):
            return self.name(node.id, source, node)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub) and id(node.operand) in folded:
                return f"({-node.operand.value!r})"  # type: ignore[attr-defined]
            inner = go(node.operand, source, folded)
            if isinstance(node.op, ast.Not):
                return f"(not {inner})"
            if isinstance(node.op, ast.UAdd):
                return f"(+{inner})"
            if isinstance(node.op, ast.USub):
                return self._checked(f"-{inner}", source, node)
        elif isinstance(node, ast.BinOp):
            left, right = go(node.left, source, folded), go(node.right, source, folded)
            symbol = _ARITH.get(type(node.op))
            if symbol is not None:
                return self._checked(f"{left} {symbol} {right}", source, node)
            fn = _DIVIDE.get(type(node.op))
            if fn is not None:
                info = self.keep((source.segment(node), source.node_at(node)))
                return f"_divide({left}, {right}, {self.keep(fn)}, {info})"
        elif isinstance(node, ast.BoolOp):
            word = " and " if isinstance(node.op, ast.And) else " or "
            return "(" + word.join(go(v, source, folded) for v in node.values) + ")"
        elif isinstance(node, ast.Compare):
            parts = [go(node.left, source, folded)]
            for op, operand in zip(node.ops, node.comparators, strict=True):
                compare = _COMPARE.get(type(op))
                if compare is None:
                    raise Unsupported(type(op).__name__)
                parts += [compare, go(operand, source, folded)]
            return "(" + " ".join(parts) + ")"
        elif isinstance(node, ast.IfExp):
            return (f"({go(node.body, source, folded)} if {go(node.test, source, folded)} "
                    f"else {go(node.orelse, source, folded)})")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            name = node.func.id
            builtin = ALLOWED_FUNCTIONS.get(name)
            called = self.keep(builtin) if builtin is not None else self.function(name)
            args = ", ".join(go(a, source, folded) for a in node.args)
            where = self.keep((f"the result of {name}()", source.node_at(node)))
            return (f"(_t if type(_t := {called}({args})) is int and {LO} <= _t <= {HI} "
                    f"else _number(_t, *{where}))")
        raise Unsupported(type(node).__name__)


HELPERS: dict[str, Any] = {"_oor": out_of_range, "_divide": divide, "_number": number}
"""What written formulas call, by the names they use."""
