"""Compiling a checked formula tree into nested closures with 64-bit and zero-divisor checks."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

from interpreter.absent import Absent
from interpreter.errors import EvaluationError, Location, RulesError, UnknownName
from interpreter.formula.functions import ALLOWED_FUNCTIONS, Env, Number, Partial, Runner, Tables
from interpreter.formula.source import Source

_COMPARE = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


class Builder:
    """Turns a checked tree into nested closures ``run(env, functions) -> value``."""

    def __init__(self, source: Source, lo: int, hi: int, folded: set[int]):
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
        method: Callable[[ast.AST], Runner] = getattr(self, "_" + type(node).__name__)
        return method(node)

    def _Constant(self, node: ast.Constant) -> Runner:
        value = node.value

        def constant(env: Env, tables: Tables) -> Any:
            return value

        return constant

    def _Name(self, node: ast.Name) -> Runner:
        key = node.id
        lo, hi = self.lo, self.hi
        where = self.source.node_at(node)
        number = _number_checker(lo, hi, lambda: f"'{key}'", where)

        def name(env: Env, tables: Tables) -> Any:
            try:
                value = env[key]
            except KeyError:
                raise UnknownName(f"unknown name '{key}'", where) from None
            kind = type(value)
            if (kind is int or kind is float) and lo <= value <= hi or kind is bool:
                return value
            if kind is Absent:
                raise value.error(key, where)
            return number(value)

        return name

    def _UnaryOp(self, node: ast.UnaryOp) -> Runner:
        op = node.op
        operand_node = node.operand
        if isinstance(op, ast.USub) and id(operand_node) in self.folded:
            value = -operand_node.value  # type: ignore[attr-defined]

            def negative_constant(env: Env, tables: Tables) -> Any:
                return value

            return negative_constant
        operand = self.build(operand_node)
        if isinstance(op, ast.Not):

            def not_(env: Env, tables: Tables) -> Any:
                return not operand(env, tables)

            return not_
        if isinstance(op, ast.UAdd):

            def plus(env: Env, tables: Tables) -> Any:
                return +operand(env, tables)

            return plus
        lo, hi = self.lo, self.hi
        fail = self.out_of_range

        def minus(env: Env, tables: Tables) -> Any:
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

            def add(env: Env, tables: Tables) -> Any:
                r = left(env, tables) + right(env, tables)
                if lo <= r <= hi:
                    return r
                raise fail(r, node)

            return add
        if op is ast.Sub:

            def sub(env: Env, tables: Tables) -> Any:
                r = left(env, tables) - right(env, tables)
                if lo <= r <= hi:
                    return r
                raise fail(r, node)

            return sub
        if op is ast.Mult:

            def mul(env: Env, tables: Tables) -> Any:
                r = left(env, tables) * right(env, tables)
                if lo <= r <= hi:
                    return r
                raise fail(r, node)

            return mul
        divide = {ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}[op]
        segment = self.source.segment(node)
        where = self.source.node_at(node)

        def division(env: Env, tables: Tables) -> Any:
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

                def and2(env: Env, tables: Tables) -> Any:
                    return first(env, tables) and second(env, tables)

                return and2

            def or2(env: Env, tables: Tables) -> Any:
                return first(env, tables) or second(env, tables)

            return or2
        head, last = parts[:-1], parts[-1]
        if isinstance(node.op, ast.And):

            def and_(env: Env, tables: Tables) -> Any:
                for part in head:
                    value = part(env, tables)
                    if not value:
                        return value
                return last(env, tables)

            return and_

        def or_(env: Env, tables: Tables) -> Any:
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

            def compare1(env: Env, tables: Tables) -> Any:
                return compare(left(env, tables), right(env, tables))

            return compare1
        steps = list(zip(ops, rights, strict=True))

        def chain(env: Env, tables: Tables) -> Any:
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

        def conditional(env: Env, tables: Tables) -> Any:
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

                def call1(env: Env, tables: Tables) -> Any:
                    try:
                        r = builtin(arg(env, tables))
                    except RulesError as err:
                        raise err.located(where) from None
                    if type(r) is int and lo <= r <= hi:
                        return r
                    if type(r) is int:
                        raise fail(r, node)
                    return number(r)

                return call1

            if len(args) == 2:
                first, second = args

                def call2(env: Env, tables: Tables) -> Any:
                    try:
                        r = builtin(first(env, tables), second(env, tables))
                    except RulesError as err:
                        raise err.located(where) from None
                    if type(r) is int and lo <= r <= hi:
                        return r
                    return number(r)

                return call2

            def call(env: Env, tables: Tables) -> Any:
                try:
                    r = builtin(*[a(env, tables) for a in args])
                except RulesError as err:
                    raise err.located(where) from None
                if type(r) is int and lo <= r <= hi:
                    return r
                return number(r)

            return call

        def table_call(env: Env, tables: Tables) -> Any:
            try:
                function = tables[name] if tables is not None else None
                if function is None:
                    raise KeyError(name)
            except KeyError:
                raise UnknownName(f"unknown function '{name}'", where) from None
            values = [a(env, tables) for a in args]
            try:
                r = function(*values)
            except RulesError as err:
                raise err.located(where) from None
            return number(r)

        return table_call


def _number_checker(lo: int, hi: int, what: Callable[[], str], where: Location) -> Callable[[Any], Number]:
    """A function that passes a value in range through, converts int/float subclasses, or raises."""

    def number(value: Any) -> Number:
        if isinstance(value, bool):
            return bool(value)
        if isinstance(value, Partial):  # a saturated exploding total: it answers what it can
            return value
        if isinstance(value, int):
            value = int(value)
            if lo <= value <= hi:
                return int(value)
            raise EvaluationError(f"integer out of range in {what()}", where)
        if isinstance(value, float):
            value = float(value)
            if lo <= value <= hi:
                return float(value)
            raise EvaluationError(f"number out of range in {what()}", where)
        raise EvaluationError(f"{what()} is not a number (it is {type(value).__name__})", where)

    return number
