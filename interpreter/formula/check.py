"""The allowlist walker of formulas: every node checked, names resolved, limits counted."""

from __future__ import annotations

import ast
from collections.abc import Collection
from typing import cast

from interpreter import limits
from interpreter.errors import FormulaSyntaxError, LimitExceeded, RulesError, UnknownName
from interpreter.formula.functions import ALLOWED_FUNCTIONS, ARITY
from interpreter.formula.source import Source
from interpreter.hints import suggest

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


class Allowlist:
    """Walks the tree once, without recursion, refusing anything outside the allowlist."""

    def __init__(self, source: Source, names: Collection[str], functions: frozenset[str]):
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
            return self._unary(node, order)  # type: ignore[arg-type]
        if kind is ast.BoolOp:
            return list(node.values)  # type: ignore[attr-defined]
        if kind is ast.Compare:
            return self._compare(node, order)  # type: ignore[arg-type]
        if kind is ast.IfExp:
            return [node.body, node.test, node.orelse]  # type: ignore[attr-defined]
        if kind is ast.Call:
            return self._call(node, order)  # type: ignore[arg-type]
        self._refused_node(node, order)
        return []

    def _unary(self, node: ast.UnaryOp, order: int) -> list[ast.AST]:
        op = node.op
        if isinstance(op, ast.Invert):
            self._refuse(node, order, "'~' is not allowed")
            return []
        operand = node.operand
        if (
            isinstance(op, ast.USub)
            and type(operand) is ast.Constant
            and type(operand.value) is int
            and limits.INT_MIN <= -operand.value <= limits.INT_MAX
        ):
            self.folded.add(id(operand))
        return [operand]

    def _compare(self, node: ast.Compare, order: int) -> list[ast.AST]:
        for op in node.ops:
            refused = _COMPARE_REFUSED.get(type(op))
            if refused:
                self._refuse(node, order, refused)
                return []
        return [node.left, *node.comparators]

    def _refused_node(self, node: ast.AST, order: int) -> None:
        """A node of a kind formulas do not allow: refused, with the name a call binds when it reads like one."""
        kind = type(node)
        refused = _NODE_REFUSED.get(kind)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            # `ritual.roll`: a call's values are bound as `ritual_roll`
            joined = f"{node.value.id}_{node.attr}"
            if joined in self.names:
                error = FormulaSyntaxError(f"{refused}; did you mean '{joined}'?", self.source.node_at(node))
                self._problem(node, order, error)
                return
        self._refuse(node, order, refused or f"{kind.__name__} is not allowed")

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
            hint = suggest(name, sorted(set(self.names) | {"True", "False"}))
            error = UnknownName(f"unknown name '{name}'", where, hint=hint, name=name)
        self._problem(node, order, error)

    def _constant(self, node: ast.Constant, order: int) -> None:
        value = node.value
        kind = type(value)
        if kind is bool:
            return
        if kind is int:
            if limits.INT_MIN <= cast(int, value) <= limits.INT_MAX or id(node) in self.folded:
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
            hint = suggest(name, sorted(self.functions))
            error = FormulaSyntaxError(f"unknown function '{name}'", self.source.node_at(func), hint=hint)
            self._problem(node, order, error)
            return children
        self.calls.add(name)
        given = len(node.args)
        fewest, most = ARITY.get(name, (1, None))
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            return children  # refused above, or when the Starred child is visited
        if most is not None and fewest == most and given != fewest:
            plural = "" if fewest == 1 else "s"
            self._refuse(node, order, f"{name}() takes exactly {fewest} argument{plural} ({given} given)")
        elif given < fewest:
            plural = "" if fewest == 1 else "s"
            self._refuse(node, order, f"{name}() needs at least {fewest} argument{plural}")
        return children
