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
from collections.abc import Iterator
from typing import Any

import click

from interpreter.errors import RulesError
from interpreter.words import value_text

# (patterns kept as text: `re` compiles one when it is first used, not at every start)
_PLACEHOLDER = r"\{(ruleset2?|procedure2?|params2?|sheet_ruleset|swept)\}"


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


class _Names:
    """What the placeholders stand for, read from the bundled rulesets one at a time, only as far as a help
    text needs (the group's help names one ruleset: compiling every bundled one would double its start)."""

    def __init__(self) -> None:
        self.found: dict[str, str] = {}
        self.sampled = 0
        self.rest: Iterator[str] | None = None

    def covering(self, wanted: set[str]) -> dict[str, str]:
        """The names found so far, after reading rulesets until every wanted one is found (or none is left)."""
        from interpreter.load.bundled import bundled_ids

        if self.rest is None:
            self.rest = iter(bundled_ids())
        while not wanted <= self.found.keys():
            ruleset_id = next(self.rest, None)
            if ruleset_id is None:
                break
            self.read(ruleset_id)
        return self.found

    def read(self, ruleset_id: str) -> None:
        """Take the names a ruleset gives from its checked document (help needs no compiled procedure)."""
        from interpreter.load.checked import load_checked
        from interpreter.load.find import find

        try:
            data = load_checked(find(ruleset_id)).doc.data
        except RulesError:
            return
        names = self.found
        if not isinstance(data, dict):
            return
        if data.get("sheet") is not None:
            names.setdefault("sheet_ruleset", ruleset_id)
        if self.sampled >= 2:
            return
        found = next(((name, spec["samples"][0]) for name, spec in (data.get("procedures") or {}).items()
                      if isinstance(spec, dict) and spec.get("samples")), None)
        if found is not None:
            name, sample = found
            suffix = "2" if self.sampled else ""
            names["ruleset" + suffix] = ruleset_id
            names["procedure" + suffix] = name
            names["params" + suffix] = " ".join(_argument(k, v) for k, v in sample.items())
            if not self.sampled:
                names["swept"] = _swept(sample)
            self.sampled += 1


_NAMES = _Names()


def fill(text: str) -> str:
    """A template with its placeholders filled in; a placeholder with nothing to fill stays as written."""
    names = _NAMES.covering({m.group(1) for m in re.finditer(_PLACEHOLDER, text)})
    return re.sub(_PLACEHOLDER, lambda m: names.get(m.group(1), m.group(0)), text)


class ExampleCommand(click.Command):
    """A command whose help examples are filled in from the bundled rulesets when shown.

    Its body may find a usage mistake in its options (``guard.UsageMistake``, which code that runs
    without click raises too): it is told as click's own kind, with the command's path.
    """

    def invoke(self, ctx: click.Context) -> Any:
        from interpreter.cli.guard import UsageMistake

        try:
            return super().invoke(ctx)
        except UsageMistake as err:
            raise click.UsageError(err.message, ctx) from None

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
