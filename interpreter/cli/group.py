"""The one guard of the command line: one line per mistake, exit 1 for bad input and 2 for usage.

A group named without a subcommand (bare `rules`, `rules sheet`) is not a mistake: it prints its
help, as `-h` does, on stdout with exit code 0.

With `--json` anywhere on the command line, the same mistake is one JSON object on stdout
(`{"error": {"message", "file", "line", "column", "path"}}`) with the same exit code. Output that
cannot be written (closed pipe, full disk) is one line with exit 1; anything else is a bug,
reported as one line asking for a report, with exit 3 (and its traceback only under
RULESMITH_DEBUG=1).  Exit 1 means that nothing changed: when a command had already written a file
(a sheet, an exported file, a chart) before its output or a later step failed, it exits 4 instead,
and stderr says which files were changed all the same, so that a caller that retries on 1 does not
apply a change twice.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import click

from interpreter.cli import output
from interpreter.cli.examples import ExampleGroup
from interpreter.errors import RulesError
from interpreter.sheet.changes import counted, written

USER_ERROR = 1
USAGE_ERROR = 2
INTERNAL_ERROR = 3
CHANGED_BUT_FAILED = 4  # a file was written, then the command failed (its output could not be written)

# Output that cannot be written (a closed pipe, a full disk) ends the command with one line.
_OUTPUT_ERRNOS = frozenset({errno.EPIPE, errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


class InternalError(click.ClickException):
    """A bug: an exception no input should cause, shown as one line with exit code 3."""

    exit_code = INTERNAL_ERROR


def _internal(err: Exception) -> Exception:
    """The one-line report of a bug, or the exception itself (with its traceback) under RULESMITH_DEBUG=1."""
    if os.environ.get("RULESMITH_DEBUG") == "1":
        return err
    text = " ".join(f"{type(err).__name__}: {err}".split())
    return InternalError(f"internal error: {text[:300]}; please report")


def _discard_output() -> None:
    """Point stdout at the null device, so that Python's flush at exit does not fail a second time."""
    with contextlib.suppress(OSError, ValueError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)


def _usage_line(err: click.UsageError) -> str:
    """A usage mistake as one line that says where to look for help."""
    message = " ".join(line.strip() for line in err.format_message().splitlines() if line.strip())
    path = err.ctx.command_path if err.ctx is not None else "rules"
    return f"{path}: {message.rstrip('.')}; see '{path} -h'"


def _after_changes(code: int) -> int:
    """The exit code of a failure: 4, with a line on stderr naming the files changed, when any were."""
    changed = written()
    if code != USER_ERROR or not changed:
        return code
    more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
    names = ", ".join(name.replace("\n", "\\n") for name in changed[:3]) + more
    with contextlib.suppress(OSError):
        output.echo(f"rules: the change was made all the same: {names} written", err=True)
    return CHANGED_BUT_FAILED


def _trusting_the_working_folder(argv: list[str]) -> contextlib.AbstractContextManager[None]:
    """Let the files a command reads name files anywhere under the folder it runs in (a GM's campaign folder),
    not only beside themselves; the language server, whose documents come from an editor, trusts no folder."""
    from interpreter.load.find import trusting

    try:
        here = os.getcwd()
    except OSError:  # (the folder was removed meanwhile)
        return contextlib.nullcontext()
    command = next((arg for arg in argv if not arg.startswith("-")), None)
    return contextlib.nullcontext() if command == "lsp" else trusting(here)


def _claimed_ids_warned(shown: bool = True) -> None:
    """After a command that ended well: one warning per ruleset-folder file that claimed a bundled id."""
    claims = sys.modules.get("interpreter.load.claims")  # (a command that looked nothing up never imported it)
    if claims is not None:
        for line in claims.take():
            if shown:
                output.echo(f"warning: {line}", err=True)


def _one_look() -> contextlib.AbstractContextManager[None]:
    from interpreter.load.find import one_look

    return one_look()


def _fail(as_json: bool, code: int, text: str, data: dict[str, Any]) -> NoReturn:
    try:
        if as_json:
            output.print_json(data)
        else:
            output.echo(text, err=True)
    except OSError:  # stdout is the broken pipe itself: the exit code is all that can be said
        _discard_output()
    sys.exit(code)


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
        try:
            _claimed_ids_warned(shown=False)  # (a command run before in this process may have left some)
            result = super().invoke(ctx)
            sys.stdout.flush()  # so that an output error is reported here, not after exit
            _claimed_ids_warned()
            return result
        except (RulesError, RecursionError, click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except OSError as err:
            if err.errno not in _OUTPUT_ERRNOS:
                raise _internal(err) from None
            _discard_output()
            raise RulesError(f"cannot write the output: {err.strerror or err}") from None
        except Exception as err:  # noqa: BLE001  (the guard is there to catch what nothing else did)
            raise _internal(err) from None

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True, **extra: Any) -> Any:
        """Run the command line, turning every user and usage mistake into one line and an exit code.

        The cycle collector is paused meanwhile.  A command imports most of its code as it runs and
        makes tens of thousands of long-lived objects and almost no cyclic garbage; collecting would
        scan them all again and again (a fifth of a cold start's own time) and free nothing.  When
        the command line is the process's own (no ``args`` given), the objects are frozen at the end
        too, so that the collection Python makes as it exits does not scan them once more.
        """
        if any(key.endswith("_COMPLETE") and value.endswith(("_complete", "_source"))
               for key, value in os.environ.items()):  # Tab was pressed: complete as the shells split words
            from interpreter.cli.shells import register

            register()
        collecting = gc.isenabled()
        gc.disable()
        argv = list(sys.argv[1:] if args is None else args)
        try:
            with counted(), _trusting_the_working_folder(argv), _one_look():  # (the files written; the folder
                # trusted; the ruleset folders read once)
                return self._main(args, prog_name, complete_var, standalone_mode, **extra)
        finally:
            if args is None:
                gc.freeze()
            if collecting:
                gc.enable()

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
            line = _usage_line(err)
            _fail(as_json, USAGE_ERROR, line, output.usage_json(line))
        except RulesError as err:
            if not as_json:
                output.echo_problem(err)
                sys.exit(_after_changes(USER_ERROR))
            _fail(as_json, _after_changes(USER_ERROR), str(err), output.error_json(err))
        except RecursionError:
            deep = RulesError("input nested too deeply")
            _fail(as_json, _after_changes(USER_ERROR), str(deep), output.error_json(deep))
        except click.ClickException as err:
            _fail(as_json, err.exit_code, err.format_message(), output.usage_json(err.format_message()))
        except click.Abort:
            _fail(False, _after_changes(USER_ERROR), "aborted", {})
        sys.exit(code if isinstance(code, int) else 0)


__all__ = ["CHANGED_BUT_FAILED", "INTERNAL_ERROR", "USAGE_ERROR", "USER_ERROR", "Group", "InternalError"]
