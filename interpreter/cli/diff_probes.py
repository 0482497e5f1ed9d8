"""Where a house rule shows that a procedure's samples miss: its switches turned on, and parameter values
at which a comparison of its formulas comes out the other way.

- An effect the change adds or touches is turned on (its flag) in every procedure it reaches; an
  effect that reaches the rolls of some traits is also run on such a trait (the procedure's first
  number parameter given the trait's name, read from the character).
- A flag parameter written in a text the change touches (a changed formula, or one that reads a
  changed constant, die or table) is turned on.
- When none of those cases shows a difference, the comparisons of the procedure's formulas are
  read: a number parameter compared with another parameter, a constant or a number is set just
  below, at and just above the other side (`ac <= shock_ac` at ac=14, shock_ac=13 tries ac=12 and
  ac=13, shock_ac=14 and 15), those in the changed texts first.

The caller keeps a probe only where the odds differ; every probe is one case of
`limits.MAX_DIFF_CASES`.
"""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from interpreter import limits
from interpreter.errors import RulesError
from interpreter.ruleset.changes import Change
from interpreter.ruleset.samples import as_arguments

if TYPE_CHECKING:
    from interpreter.ruleset.effects import Effect
    from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset, Param

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PROSE = {"summary", "help", "label", "refs", "title", "text", "description", "message", "outcomes", "values",
          "samples"}
Args = dict[str, str]


def _texts(node: object) -> Iterator[str]:
    """Every text under a procedure's definition but its prose (its formulas, dice and references)."""
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key not in _PROSE:
                yield from _texts(value)
    elif isinstance(node, list):
        for item in node:
            yield from _texts(item)
    elif isinstance(node, str):
        yield node


def hot_words(found: list[Change]) -> set[str]:
    """The names the change touches: each changed entry's own name (a constant, die, table, derived value)."""
    out = set()
    for change in found:
        parts = [p for p in re.split(r"[.\[\]]", change.path) if p and p != "$"]
        if len(parts) >= 2:
            out.add(parts[1])
    return out


def changed_texts(found: list[Change]) -> set[str]:
    """The texts the house ruleset wrote where the base had something else."""
    return {t for change in found for t in _texts(change.after)}


def param_value(param: Param, key: int) -> str | None:
    """A number as this parameter takes it (a word for a choice), or None when the parameter cannot take it."""
    if param.type == "choice":
        words = [w for w, n in param.options.items() if n == key]
        return words[0] if words else None
    if param.type != "int":
        return None
    if (param.minimum is not None and key < param.minimum) or (param.maximum is not None and key > param.maximum):
        return None
    if param.one_of is not None and key not in param.one_of:
        return None
    return str(key)


def _declared(spec: object) -> bool:
    """Whether a procedure (as written) has a number parameter that always is one trait (`trait: PER`)."""
    params = spec.get("params") if isinstance(spec, Mapping) else None
    return isinstance(params, Mapping) and any(isinstance(p, Mapping) and "trait" in p for p in params.values())


def effect_cases(house: CompiledRuleset, proc: CompiledProcedure, spec: object, effect: Effect,
                 sample: Mapping[str, object]) -> list[Args]:
    """The sample with the effect's flag on; with a trait selector, also run on such a trait (its first number
    parameter given the trait's name), unless a parameter always is one trait."""
    takes = {p.name: p for p in proc.params}
    if effect.param is None or effect.param not in takes:
        return []
    on = {**as_arguments(sample), effect.param: "true"}
    out = [on]
    traits = [t.name for t in house.traits.values()  # (an effect may name a trait by its label)
              if t.name in (effect.traits or ()) or t.label in (effect.traits or ()) or t.group in (effect.groups or ())]
    named = [p.name for p in proc.params if p.type in ("int", "trait")][:1]  # the trait a procedure is run on
    if traits and named and not _declared(spec):
        out.append({**on, named[0]: traits[0]})
    return out


def flag_cases(proc: CompiledProcedure, spec: object, hot: set[str], texts: set[str], sample: Mapping[str, object]
               ) -> list[Args]:
    """The sample with each flag turned on that a touched text of the procedure writes."""
    flags = {p.name for p in proc.params if p.type == "flag"}
    out = []
    for text in _texts(spec):
        words = set(_WORD.findall(text))
        if text in texts or words & hot:
            for flag in sorted(words & flags):
                if str(sample.get(flag, "")).lower() != "true":
                    out.append({**as_arguments(sample), flag: "true"})
    return out


def _comparisons(text: str) -> Iterator[tuple[ast.expr, ast.expr]]:
    """The pairs of sides compared in a formula (none for a text that is not one)."""
    from interpreter.formula.source import Source, parse, prescan

    if len(text) > limits.MAX_FORMULA_CHARS or not any(op in text for op in "<>=!"):
        return
    try:
        source = Source(text, None)
        prescan(source)
        tree = parse(source)
    except (RulesError, RecursionError):
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            yield from itertools.pairwise(sides)


def _number(value: object) -> int | None:
    """A parameter's value as a number (a sample's value may be written as text)."""
    if type(value) is int:
        return value
    return limits.whole_number(value) if isinstance(value, str) and len(value) < 20 else None


def _known(node: ast.expr, numbers: Mapping[str, int]) -> int | None:
    """A side's number when it is one: a number written, a constant, or a parameter's value in the sample."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _known(node.operand, numbers)
        return None if inner is None else -inner
    if isinstance(node, ast.Name):
        return numbers.get(node.id)
    return None


def threshold_cases(house: CompiledRuleset, proc: CompiledProcedure, spec: object, texts: set[str],
                    sample: Mapping[str, object]) -> list[Args]:
    """The sample with one number parameter moved to either side of each comparison it takes part in."""
    params = {p.name: p for p in proc.params if p.type == "int"}
    given = {p.name: p.default for p in proc.params if p.default is not None} | dict(sample)
    numbers = {k: v for k, v in house.constants.items() if type(v) is int}
    numbers |= {k: n for k, v in given.items() if k in params and (n := _number(v)) is not None}
    every = list(dict.fromkeys(_texts(spec)))
    ordered = [t for t in every if t in texts] + [t for t in every if t not in texts]
    out = []
    for text in ordered:
        for left, right in _comparisons(text):
            for mine, other in ((left, right), (right, left)):
                if not (isinstance(mine, ast.Name) and mine.id in params):
                    continue
                value = _known(other, {k: v for k, v in numbers.items() if k != mine.id})
                if value is None:
                    continue
                for moved in (value, value - 1, value + 1):
                    shown = param_value(params[mine.id], moved)
                    if shown is not None and str(given.get(mine.id)) != shown:
                        out.append({**as_arguments(sample), mine.id: shown})
    return out


def unique(cases: list[Args]) -> list[Args]:
    """The cases without repeats, in order."""
    return list({tuple(sorted(args.items())): args for args in cases}.values())


__all__ = ["changed_texts", "effect_cases", "flag_cases", "hot_words", "param_value", "threshold_cases", "unique"]
