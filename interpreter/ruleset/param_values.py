"""A parameter's value as a program gives it: a Python number, flag or parsed dice, checked for its type.

What each type takes (text goes through ``params.convert`` instead):

* a whole number (``int``): an ``int``, or a ``float`` that is whole (``3.0`` is 3; ``3.5`` is
  refused, never rounded), or any integer type (``operator.index``); a ``bool`` is refused, since
  ``True`` given for a number is a mistake more often than a 1;
* a flag: ``True``/``False``, or the numbers 0 and 1;
* dice: a parsed expression (``interpreter.dice.expr.DiceExpr``, or an object holding one as
  ``.expr``) or a whole number;
* a choice: one of its words (text), or the number a word stands for.

``None`` never gets here: it means "not given" (see ``params.bind``).
"""

from __future__ import annotations

import math
import operator
from typing import Any

from interpreter import limits
from interpreter.dice.expr import DiceExpr
from interpreter.errors import BadParameter
from interpreter.ruleset.model import Param

__all__ = ["param_value"]


def _kind(value: object) -> str:
    """A value's type as a message names it."""
    if isinstance(value, bool):
        return f"the flag {value}"
    if isinstance(value, (int, float)):
        return repr(value)
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _whole(param: Param, value: Any, *, flag_ok: bool = False) -> int:
    if isinstance(value, bool) and not flag_ok:
        raise BadParameter(f"parameter '{param.name}' is a whole number, not {_kind(value)}",
                           hint=f"give {int(value)} if that is the number meant")
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise BadParameter(f"parameter '{param.name}' must be a whole number, not {value!r}",
                               hint="round it first (a rule says which way)")
        number = int(value)
    else:
        try:
            number = operator.index(value)
        except TypeError:
            raise BadParameter(f"parameter '{param.name}' must be a whole number, not {_kind(value)}") from None
    if not limits.INT_MIN <= number <= limits.INT_MAX:
        raise BadParameter(f"parameter '{param.name}' is {number}: {limits.OUT_OF_RANGE}")
    return number


def param_value(param: Param, value: object) -> object:
    """A program's value for a parameter, as the procedure reads it; an error names what was wrong."""
    if param.type == "flag":
        if isinstance(value, bool):
            return value
        if not isinstance(value, float) and isinstance(value, int) and value in (0, 1):
            return bool(value)
        raise BadParameter(f"parameter '{param.name}' is a flag: give True or False, not {_kind(value)}")
    if param.type == "dice":
        expr = value if isinstance(value, DiceExpr) else getattr(value, "expr", None)
        if isinstance(expr, DiceExpr):
            return expr
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return _whole(param, value)
        raise BadParameter(f"parameter '{param.name}' takes dice (text such as '1d8', or a parsed expression) or a "
                           f"whole number, not {_kind(value)}")
    if param.type == "trait":
        raise BadParameter(f"parameter '{param.name}' names a trait: give its name as text, not {_kind(value)}")
    number = _whole(param, value)
    if param.type == "choice" and number not in param.options.values():
        raise BadParameter(f"parameter '{param.name}' must be one of {', '.join(param.options)}, not {number}")
    return number
