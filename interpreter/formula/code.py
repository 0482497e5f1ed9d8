"""The one evaluator of formulas: a checked formula tree written out as Python statements.

A formula is written as straight-line statements over temporaries (one per operation), each
arithmetic result checked against the 64-bit range and each divisor against zero, then the
name of the temporary holding the value. The statements read names from the dict `e` and
call table functions from the mapping `F`. Procedure steps put the statements inside the
code written for the step (procedure.program); `Formula.evaluate` runs them as a function of
their own. Both are this writer's output, so every formula has the same range checks and the
same located messages wherever it runs.

Nothing of the formula's text reaches the source except through its checked tree: names
become string literals (`repr` of an identifier), numbers and flags `repr` of an int or a
bool, and every other object (the location of an error, a function) is kept under a made-up
identifier by the caller's `keep`. Short-circuits (`and`, `or`, `x if c else y`, chained
comparisons) become `if` statements one level deep per operand, never nested by the number
of operands, so no formula allowed by the checker writes code too deep for Python.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from interpreter import limits
from interpreter.absent import Absent
from interpreter.errors import EvaluationError, Location, RulesError, UnknownName
from interpreter.formula.functions import ALLOWED_FUNCTIONS, Partial
from interpreter.formula.source import Source

_COMPARE = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_ARITH = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%"}
_DIVIDING = (ast.Div, ast.FloorDiv, ast.Mod)
MISSING = object()  # what `e.get` gives for a name the env does not hold


# -- what written formulas call ------------------------------------------------------------------
def read(value: Any, name: str, where: Location) -> Any:
    """A name's value that is not a whole number in range: a flag, a float, a partial number, or an error."""
    kind = type(value)
    if kind is bool or (kind is float and limits.INT_MIN <= value <= limits.INT_MAX) or isinstance(value, Partial):
        return value
    if value is MISSING:
        raise UnknownName(f"unknown name '{name}'", where)
    if kind is Absent:
        raise value.error(name, where)
    return number(value, f"'{name}'", where)


def number(value: object, what: str, where: Location) -> object:
    """A value as a number: flags and numbers in range pass (subclasses made plain), anything else is an error."""
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, Partial):
        return value
    if isinstance(value, int):
        if limits.INT_MIN <= value <= limits.INT_MAX:
            return int(value)
        raise EvaluationError(f"integer out of range in {what}", where)
    if isinstance(value, float):
        if limits.INT_MIN <= value <= limits.INT_MAX:
            return float(value)
        raise EvaluationError(f"number out of range in {what}", where)
    raise EvaluationError(f"{what} is not a number (it is {type(value).__name__})", where)


def out_of_range(value: object, info: tuple[str, Location]) -> object:
    """The error for an operation whose result leaves 64 bits (`info`: the operation's text and place)."""
    kind = "integer" if isinstance(value, int) else "number"
    raise EvaluationError(f"{kind} out of range in '{info[0]}'", info[1])


def division_by_zero(info: tuple[str, Location]) -> object:
    raise EvaluationError(f"division by zero in '{info[0]}'", info[1])


def result(value: object, info: tuple[str, Location]) -> object:
    """A function's result that is not a whole number in range: a flag or a float passes, anything else is an error."""
    if isinstance(value, int) and not isinstance(value, bool) and not isinstance(value, Partial):
        if limits.INT_MIN <= value <= limits.INT_MAX:
            return int(value)
        return out_of_range(value, info)
    return number(value, f"the result of {info[0].partition('(')[0]}()", info[1])


def table_function(tables: Any, name: str, where: Location) -> Callable[..., Any]:
    """A table function by name, from the mapping the formula is evaluated with."""
    function = tables.get(name) if tables is not None else None
    if function is None:
        raise UnknownName(f"unknown function '{name}'", where)
    return function  # type: ignore[no-any-return]


def called(function: Callable[..., object], args: tuple[object, ...], where: Location) -> object:
    """A function's result, its own errors placed at the call."""
    try:
        return function(*args)
    except RulesError as err:
        raise err.located(where) from None


HELPERS: dict[str, object] = {
    "_M": MISSING, "_read": read, "_oor": out_of_range, "_zero": division_by_zero, "_result": result,
    "_table": table_function, "_called": called, "_number": number,
}
"""What written formulas call, by the names they use."""

_DIRECT = frozenset({"min", "max", "abs", "floor", "ceil"})  # allowed functions that raise no error of ours


Reader = Callable[[str, str], tuple[list[str], str]]  # (name, its place's identifier) -> (lines, expression)


class FormulaWriter:
    """Writes formulas as statements; `keep(obj)` gives the identifier under which the caller keeps an object.

    `read(name, where)` writes the reading of a name; by default it is read from the dict `e` and
    checked to be a number in range. A procedure's code holds names its own way, and knows every
    whole number in them is in range already: the values a run starts with are checked when they
    are given (parameters, a sheet, constants) and every value it computes is checked when it is
    computed, so only the kind of a value is checked when it is read there.
    """

    def __init__(self, keep: Callable[[object], str], temp: Callable[[], str], read: Reader | None = None):
        self.keep = keep
        self.temp = temp  # a new local variable's name
        self.range = f"{limits.INT_MIN} <= {{}} <= {limits.INT_MAX}"  # the 64-bit range when written
        self.read = read or self.from_env

    def from_env(self, name: str, where: str) -> tuple[list[str], str]:
        """A name read from the dict `e`, checked to be a number in range."""
        t = self.temp()
        return [f"{t} = e.get({name!r}, _M)",
                f"if type({t}) is not int or not {self.range.format(t)}: {t} = _read({t}, {name!r}, {where})"], t

    def write(self, source: Source, body: ast.expr, folded: frozenset[int],
              names: dict[str, str] | None = None) -> tuple[list[str], str]:
        """The statements computing a formula and the expression (a temporary or a literal) holding its value.

        `names` maps a name already read (by an earlier part of the same code) to its temporary.
        """
        lines: list[str] = []
        code = _Node(self, source, folded, lines, {} if names is None else names).go(body, 0)
        return lines, code


class _Node:
    """Writing one formula: its source for messages, its folded literals, the lines written so far."""

    def __init__(self, writer: FormulaWriter, source: Source, folded: frozenset[int], lines: list[str],
                 names: dict[str, str]):
        self.w = writer
        self.source = source
        self.folded = folded
        self.lines = lines
        self.names = names  # name -> the temporary that read it (reads are pure: read once)

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def info(self, node: ast.AST) -> str:
        return self.w.keep((self.source.segment(node), self.source.node_at(node)))

    def checked(self, depth: int, code: str, node: ast.AST) -> str:
        t = self.w.temp()
        self.emit(depth, f"{t} = {code}")
        self.emit(depth, f"if not {self.w.range.format(t)}: _oor({t}, {self.info(node)})")
        return t

    def go(self, node: ast.AST, depth: int) -> str:
        """The lines for a node at this indentation depth, and the expression holding its value."""
        if isinstance(node, ast.Constant):
            return f"({node.value!r})"
        if isinstance(node, ast.Name):
            return self.name(node, depth)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub) and id(node.operand) in self.folded:
                return f"({-node.operand.value!r})"  # type: ignore[attr-defined]
            inner = self.go(node.operand, depth)
            if isinstance(node.op, ast.Not):
                return self.assign(depth, f"not {inner}")
            if isinstance(node.op, ast.UAdd):
                return self.assign(depth, f"+{inner}")
            return self.checked(depth, f"-{inner}", node)
        if isinstance(node, ast.BinOp):
            left = self.go(node.left, depth)
            right = self.go(node.right, depth)
            if isinstance(node.op, _DIVIDING):
                self.emit(depth, f"if not {right}: _zero({self.info(node)})")
            return self.checked(depth, f"{left} {_ARITH[type(node.op)]} {right}", node)
        if isinstance(node, ast.BoolOp):
            return self.bool_op(node, depth)
        if isinstance(node, ast.Compare):
            return self.compare(node, depth)
        if isinstance(node, ast.IfExp):
            test = self.go(node.test, depth)
            t = self.w.temp()
            self.emit(depth, f"if {test}:")
            saved = dict(self.names)  # a name read in one branch is not read in the other
            self.emit(depth + 1, f"{t} = {self.go(node.body, depth + 1)}")
            self.names = dict(saved)
            self.emit(depth, "else:")
            self.emit(depth + 1, f"{t} = {self.go(node.orelse, depth + 1)}")
            self.names = saved
            return t
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return self.call(node, depth)
        raise AssertionError(f"the checker lets no {type(node).__name__} through")

    def assign(self, depth: int, code: str) -> str:
        t = self.w.temp()
        self.emit(depth, f"{t} = {code}")
        return t

    def name(self, node: ast.Name, depth: int) -> str:
        known = self.names.get(node.id)
        if known is not None:
            return known
        lines, t = self.w.read(node.id, self.w.keep(self.source.node_at(node)))
        for line in lines:
            self.emit(depth, line)
        self.names[node.id] = t
        return t

    def bool_op(self, node: ast.BoolOp, depth: int) -> str:
        t = self.w.temp()
        self.emit(depth, f"{t} = {self.go(node.values[0], depth)}")
        test = f"if {t}:" if isinstance(node.op, ast.And) else f"if not {t}:"
        saved = dict(self.names)  # names read past the first operand may not have been read
        for value in node.values[1:]:
            self.emit(depth, test)
            self.emit(depth + 1, f"{t} = {self.go(value, depth + 1)}")
        self.names = saved
        return t

    def compare(self, node: ast.Compare, depth: int) -> str:
        t = self.w.temp()
        left = self.go(node.left, depth)
        right = self.go(node.comparators[0], depth)
        self.emit(depth, f"{t} = {left} {_COMPARE[type(node.ops[0])]} {right}")
        saved = dict(self.names)
        for op, comparator in zip(node.ops[1:], node.comparators[1:], strict=True):
            self.emit(depth, f"if {t}:")
            nxt = self.go(comparator, depth + 1)
            self.emit(depth + 1, f"{t} = {right} {_COMPARE[type(op)]} {nxt}")
            right = nxt
        self.names = saved
        return t

    def call(self, node: ast.Call, depth: int) -> str:
        name = node.func.id  # type: ignore[attr-defined]
        args = [self.go(a, depth) for a in node.args]
        t = self.w.temp()
        where = self.w.keep(self.source.node_at(node))
        listed = ", ".join(args) + ("," if len(args) == 1 else "")
        builtin = ALLOWED_FUNCTIONS.get(name)
        if builtin is not None and name in _DIRECT:
            self.emit(depth, f"{t} = {self.w.keep(builtin)}({', '.join(args)})")
        elif builtin is not None:
            self.emit(depth, f"{t} = _called({self.w.keep(builtin)}, ({listed}), {where})")
        else:  # a table's value: any number in range, or the error naming the function
            self.emit(depth, f"{t} = _called(_table(F, {name!r}, {where}), ({listed}), {where})")
            what = self.w.keep(f"the result of {name}()")
            self.emit(depth, f"if type({t}) is not int or not {self.w.range.format(t)}: {t} = _number({t}, {what}, {where})")
            return t
        self.emit(depth, f"if type({t}) is not int or not {self.w.range.format(t)}: {t} = _result({t}, {self.info(node)})")
        return t


def compiled(source: Source, body: ast.expr, folded: frozenset[int]) -> Callable[[Any, Any], Any]:
    """A formula as a function of its own, `run(env, functions) -> value`."""
    kept: dict[str, Any] = dict(HELPERS)
    by_id: dict[int, str] = {}
    count = [0]

    def keep(obj: object) -> str:
        found = by_id.get(id(obj))
        if found is None:
            found = by_id[id(obj)] = f"_k{len(by_id)}"
            kept[found] = obj
        return found

    def temp() -> str:
        count[0] += 1
        return f"t{count[0]}"

    lines, value = FormulaWriter(keep, temp).write(source, body, folded)
    text = "def run(e, F):\n" + "".join(f"    {line}\n" for line in lines) + f"    return {value}\n"
    exec(compile(text, "<formula>", "exec"), kept)  # noqa: S102  # only what the writer made from a checked tree
    run: Callable[[object, object], object] = kept["run"]
    return run


__all__ = ["HELPERS", "MISSING", "FormulaWriter", "compiled", "number"]
