"""The problems of later stages in a document the schema refused, so that one report lists every mistake.

The compiler relies on the shape the schema checks, so it is given the document without the
parts the schema refused (the key a problem is at, or a larger part around it until the schema
passes: a parameter, a procedure, an unknown top-level section): the rest is compiled, and its
problems join the schema's. Names of the entries left out count as
known, and a problem that names one of them, or stands where a schema problem stands, is not
reported twice.
"""

from __future__ import annotations

import re
from typing import Any

from interpreter.errors import Invalid, RulesError
from interpreter.load.document import Document
from interpreter.record import replace
from interpreter.ruleset.kind import Kinds

__all__ = ["beyond_schema", "json_steps"]

_STEP = re.compile(r'\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]')


def json_steps(path: str) -> tuple[str | int, ...] | None:
    """A JSON path such as `$.procedures.check.steps[1]` as its steps; None when it is not one."""
    if not path.startswith("$"):
        return None
    steps: list[str | int] = []
    at = 1
    while at < len(path):
        match = _STEP.match(path, at)
        if match is None:
            return None
        name, index, quoted = match.groups()
        if index is not None:
            steps.append(int(index))
        else:
            steps.append(name if name is not None else re.sub(r"\\(.)", r"\1", quoted))
        at = match.end()
    return tuple(steps)


def _without(node: Any, steps: tuple[str | int, ...], key: str, owned: set[int]) -> Any:
    """The data with one mapping key removed at the end of `steps`: only what is on the way is copied, and
    only once (a copy is `owned`, and later removals change it in place), so that a thousand problems in a
    section of a thousand entries do not copy it a thousand times."""
    copy = node if id(node) in owned else (list(node) if isinstance(node, list) else dict(node))
    owned.add(id(copy))
    if steps:
        copy[steps[0]] = _without(node[steps[0]], steps[1:], key, owned)  # type: ignore[index]
    elif isinstance(copy, dict):
        copy.pop(key, None)
    return copy


def _entry(data: Any, steps: tuple[str | int, ...]) -> int | None:
    """How far along a problem's path its deepest mapping key lies, below the top level (None: nothing to leave out).

    A top-level key that holds a single value (`ruleset: Demo`) is kept: the compiler reads it as it is.
    """
    node, deepest = data, None
    for i, step in enumerate(steps):
        if isinstance(node, dict) and isinstance(step, str) and step in node:
            if i >= 1 or isinstance(node[step], (dict, list)):
                deepest = i
        elif not (isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node)):
            break
        node = node[step]
    return deepest


_DEFINES = ("params", "outcomes", "values")  # a key under these names a parameter, outcome or value


def _pruned(doc: Document, problems: list[RulesError]) -> tuple[object, set[str], list[tuple[str | int, ...]]]:
    """The data without the parts the schema refused (each the deepest mapping entry a problem lies in, then the
    entries around any that are still refused), the names of the definitions left out, and their paths."""
    from interpreter.load.schema import iter_errors

    data: object = doc.data
    names: set[str] = set()
    removed: list[tuple[str | int, ...]] = []
    owned: set[int] = set()  # the copies made of the data's parts (the data's own are never changed)
    for _ in range(8):  # each round leaves out a larger part around what is still refused
        cut = False
        for problem in problems:
            steps = json_steps(problem.where.path) if problem.where is not None else None
            if steps is not None and len(steps) == 1:
                names.add(str(steps[0]))  # a top-level key out of place (`dc: 10` dedented): a name formulas mean
            at = _entry(data, steps) if steps else None
            if steps is None or at is None:
                continue
            data = _without(data, steps[:at], str(steps[at]), owned)
            removed.append(tuple(steps[:at + 1]))
            cut = True
            if at == 1 or (at >= 2 and steps[at - 1] in _DEFINES):
                names.add(str(steps[at]))
        if not cut:
            break
        problems = list(iter_errors(replace(doc, data=data)))
        if not problems:
            break
    return data, names, removed


def _names(message: str, names: set[str]) -> bool:
    """Whether the message quotes one of the names (`'name'`): each text between two of its quotes is looked up."""
    quotes = [i for i, c in enumerate(message) if c == "'"]
    if len(quotes) > 40:  # (a message quoting much: each name looked for in it)
        return any(f"'{name}'" in message for name in names)
    return any(message[a + 1:b] in names for n, a in enumerate(quotes) for b in quotes[n + 1:])


def beyond_schema(doc: Document, problems: list[RulesError], kinds: Kinds) -> list[RulesError]:
    """The compiler's problems in what the schema did not refuse (none when that cannot be compiled at all),
    its procedures' steps compiled by these kinds."""
    from interpreter.ruleset.compiler import Compiler

    if not isinstance(doc.data, dict):
        return []
    data, left_out, removed = _pruned(doc, problems)
    compiler = Compiler(replace(doc, data=data), kinds)
    compiler.broken.update(left_out)
    try:
        compiler.compile()
        found: list[RulesError] = []
    except Invalid as err:
        found = err.problems
    except RulesError as err:
        found = [err]
    except Exception:  # noqa: BLE001  # a shape the schema refused reached the compiler: its report stands alone
        return []
    taken = {(p.where.file, p.where.line, p.where.col) for p in problems if p.where is not None}
    cuts = set(removed)
    under = {cut[:k] for cut in removed for k in range(1, len(cut))}  # the parts around a part left out
    return [p for p in found if not _names(p.message, left_out) and not _around(p, cuts, under)
            and (p.where is None or (p.where.file, p.where.line, p.where.col) not in taken)]


def _around(problem: RulesError, cuts: set[tuple[str | int, ...]], under: set[tuple[str | int, ...]]) -> bool:
    """Whether a problem stands at, inside or around a part that was left out (leaving it out may be its cause):
    a part of its path was left out, or its path leads to one (`under`: the paths around those left out)."""
    steps = json_steps(problem.where.path) if problem.where is not None else None
    if not steps:
        return False
    return steps in under or any(steps[:k] in cuts for k in range(1, len(steps) + 1))
