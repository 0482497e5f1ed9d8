"""The examples at the end of every command's help, drawn from the bundled rulesets.

An example is written as a template: ``rules run {ruleset} {procedure} {params}``. The names are
filled in only when help is shown, from the bundled rulesets' own data (a procedure and its first
`samples:` entry), so the command line stays free of any one system's words and an example keeps
working when a ruleset is edited.

Placeholders: ``{ruleset}``, ``{procedure}``, ``{params}`` (the first bundled ruleset with a sampled
procedure), ``{ruleset2}``, ``{procedure2}``, ``{params2}`` (the next one), ``{sheet_ruleset}`` (the
first bundled ruleset with character sheets), ``{swept}`` (``{params}`` with its first whole number
swept over five values, as `rules odds` takes it).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import click

from interpreter.errors import RulesError
from interpreter.words import value_text

_PLACEHOLDER = re.compile(r"\{(ruleset2?|procedure2?|params2?|sheet_ruleset|swept)\}")


def examples(*lines: str) -> str:
    """A help epilog listing example command lines (templates, filled when help is shown)."""
    return "\b\nExamples:\n" + "\n".join(f"  {line}" for line in lines)


def _argument(name: str, value: object) -> str:
    import shlex  # only help text needs it

    return shlex.quote(f"{name}={value_text(value)}")


def _swept(sample: Any) -> str:
    """A sample's arguments with its first whole number swept over five values around it."""
    words, done = [], False
    for name, value in sample.items():
        if not done and isinstance(value, int) and not isinstance(value, bool):
            words.append(f"{name}={max(0, value - 2)}..{max(0, value - 2) + 4}")
            done = True
        else:
            words.append(_argument(name, value))
    return " ".join(words)


@cache
def _names() -> dict[str, str]:
    """What the placeholders stand for, read from the bundled rulesets."""
    from interpreter.load.bundled import bundled_ids
    from interpreter.pipeline import compile_ref

    names: dict[str, str] = {}
    sampled = 0
    for ruleset_id in bundled_ids():
        try:
            rs = compile_ref(ruleset_id)
        except RulesError:
            continue
        if rs.sheet is not None:
            names.setdefault("sheet_ruleset", ruleset_id)
        proc = next((p for p in rs.procedures.values() if p.samples), None)
        if proc is not None and sampled < 2:
            suffix = "2" if sampled else ""
            names["ruleset" + suffix] = ruleset_id
            names["procedure" + suffix] = proc.name
            names["params" + suffix] = " ".join(_argument(k, v) for k, v in proc.samples[0].items())
            if not sampled:
                names["swept"] = _swept(proc.samples[0])
            sampled += 1
    return names


def fill(text: str) -> str:
    """A template with its placeholders filled in; a placeholder with nothing to fill stays as written."""
    names = _names()
    return _PLACEHOLDER.sub(lambda m: names.get(m.group(1), m.group(0)), text)


class ExampleCommand(click.Command):
    """A command whose help examples are filled in from the bundled rulesets when shown."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        if self.epilog and "{" in self.epilog:
            self.epilog = fill(self.epilog)
        super().format_epilog(ctx, formatter)


class ExampleGroup(click.Group):
    """A group whose own help examples, and those of the commands made under it, are filled in when shown."""

    command_class = ExampleCommand

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        if self.epilog and "{" in self.epilog:
            self.epilog = fill(self.epilog)
        super().format_epilog(ctx, formatter)

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        """The command named first in args; a name that is none says the command most likely meant."""
        try:
            return super().resolve_command(ctx, args)
        except click.exceptions.NoSuchCommand as err:
            from interpreter.hints import closest

            close = closest(str(args[0]), self.list_commands(ctx))
            if close is None:
                raise
            raise click.UsageError(f"No such command '{args[0]}'. Did you mean '{close}'?", ctx) from err


__all__ = ["ExampleCommand", "ExampleGroup", "examples", "fill"]
