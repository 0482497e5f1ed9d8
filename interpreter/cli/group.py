"""The click group of the command line, guarded: one line per mistake, exit 1 for bad input and 2 for usage.

A group named without a subcommand (bare `rules`, `rules sheet`) is not a mistake: it prints its
help, as `-h` does, on stdout with exit code 0.  The exit codes, the JSON form of a mistake and the
rest of the guard are in ``guard``, which the direct reading of `rules run` and `rules odds`
(``quick``) shares.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

import click

from interpreter.cli import output
from interpreter.cli.examples import ExampleGroup
from interpreter.cli.guard import (
    CHANGED_BUT_FAILED,
    INTERNAL_ERROR,
    USAGE_ERROR,
    USER_ERROR,
    InternalError,
    aborted,
    fail,
    failed,
    invoked,
    process,
    usage_line,
)
from interpreter.errors import RulesError


class Group(ExampleGroup):
    """A click group whose every failure is one line (or one JSON object) and a documented exit code.

    A command added with `add_lazy` is imported only when it is asked for (to run it, or to
    list it in the help), so a start does not pay for the commands it does not run.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy: dict[str, Callable[[], click.Command]] = {}
        self.summaries: dict[str, str] = {}

    def add_lazy(self, name: str, load: Callable[[], click.Command], summary: str) -> None:
        """Add the command `load()` returns, under `name`, loading it when first asked for; `summary` is the first
        sentence of its help, listed in the group's help without loading it (a test holds the two equal)."""
        self.lazy[name] = load
        self.summaries[name] = summary

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The list of commands in the help, a command not loaded yet by its summary (click's own layout)."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max((len(name) for name in names), default=0)
        rows = []
        for name in names:
            if name in self.lazy:
                rows.append((name, click.Command(name, help=self.summaries[name]).get_short_help_str(limit)))
                continue
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        load = self.lazy.pop(cmd_name, None)
        if load is not None:
            self.add_command(load(), cmd_name)
        return super().get_command(ctx, cmd_name)

    def _main_shell_completion(self, ctx_args: Any, prog_name: str, complete_var: str | None = None) -> None:
        from interpreter.cli.complete import guarded

        guarded(lambda: super(Group, self)._main_shell_completion(ctx_args, prog_name, complete_var))

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; an output failure becomes a user-facing line, anything unexpected a bug report."""
        return invoked(lambda: super(Group, self).invoke(ctx),
                       (click.ClickException, click.exceptions.Exit, click.Abort))

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True, **extra: Any) -> Any:
        """Run the command line, turning every user and usage mistake into one line and an exit code
        (within ``guard.process``: the cycle collector paused, the files written counted)."""
        if any(key.endswith("_COMPLETE") and value.endswith(("_complete", "_source"))
               for key, value in os.environ.items()):  # Tab was pressed: complete as the shells split words
            from interpreter.cli.shells import register

            register()
        argv = list(sys.argv[1:] if args is None else args)
        with process(argv, own=args is None):
            return self._main(args, prog_name, complete_var, standalone_mode, **extra)

    def _main(self, args: Sequence[str] | None, prog_name: str | None, complete_var: str | None,
              standalone_mode: bool, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        argv = list(sys.argv[1:] if args is None else args)
        as_json = "--json" in argv
        try:
            code = super().main(argv, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as err:  # a bare group: its help, as -h shows it
            output.echo(err.ctx.get_help() if err.ctx is not None else err.format_message())
            sys.exit(0)
        except click.UsageError as err:
            path = err.ctx.command_path if err.ctx is not None else "rules"
            line = usage_line(path, err.format_message())
            fail(as_json, USAGE_ERROR, line, output.usage_json(line))
        except (RulesError, RecursionError, InternalError) as err:
            failed(err, as_json)
        except click.ClickException as err:
            fail(as_json, err.exit_code, err.format_message(), output.usage_json(err.format_message()))
        except click.Abort:
            aborted()
        sys.exit(code if isinstance(code, int) else 0)


__all__ = ["CHANGED_BUT_FAILED", "INTERNAL_ERROR", "USAGE_ERROR", "USER_ERROR", "Group", "InternalError"]
