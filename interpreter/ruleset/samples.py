"""A procedure's sample parameter sets: checked at load, used by `rules diff` and `rules describe`."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from interpreter.errors import RulesError, SchemaViolation, UnknownName
from interpreter.hints import suggest
from interpreter.load.document import Path
from interpreter.ruleset.context import CompileContext
from interpreter.ruleset.model import Param
from interpreter.ruleset.params import convert
from interpreter.words import value_text

P = Path


def compile_samples(c: CompileContext, specs: list[Any], path: P, params: tuple[Param, ...]) -> tuple[Mapping[str, Any], ...]:
    """Each sample as written, after checking it names real parameters with acceptable values.

    Problems are recorded on the compiler `c`, each at the sample value (or sample) it is about.
    """
    by_name = {p.name: p for p in params}
    out = []
    for i, sample in enumerate(specs):
        at = path + (i,)
        for name, value in sample.items():
            param = by_name.get(name)
            if param is None:
                c.problem(UnknownName(f"sample {i + 1} names no parameter of this procedure: '{name}'",
                                      c.where(at + (name,), key=True), suggest(name, list(by_name))))
            elif param.type != "trait":
                try:
                    convert(param, value_text(value))
                except RulesError as err:
                    c.problem(err.located(c.where(at + (name,))))
        for param in params:
            if param.required and param.name not in sample:
                c.problem(SchemaViolation(f"sample {i + 1} does not give '{param.name}', which has no default",
                                          c.where(at), f"add {param.name}: VALUE"))
        out.append(MappingProxyType(dict(sample)))
    return tuple(out)


def as_arguments(sample: Mapping[str, object]) -> dict[str, str]:
    """A sample as command-line style arguments (NAME -> text)."""
    return {k: value_text(v) for k, v in sample.items()}


def shown(sample: Mapping[str, object]) -> str:
    """A sample as it is typed after a procedure name: `pool=5 again=9` (empty for none)."""
    return " ".join(f"{k}={v}" for k, v in as_arguments(sample).items())
