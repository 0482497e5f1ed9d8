"""The `rules` command: a thin click group over the library."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import random
import sys
from collections.abc import Sequence
from typing import Any, cast

import click

from interpreter import limits
from interpreter.cli import describe as describe_mod
from interpreter.cli import render
from interpreter.cli.caret import error_lines, is_terminal
from interpreter.dice import expr as dice
from interpreter.errors import BadParameter, RulesError
from interpreter.hints import shown
from interpreter.load.bundled import bundled_ids
from interpreter.pipeline import compile_ref, problems, resolve
from interpreter.procedure import runner


class RulesCommandError(click.ClickException):
    """A user's mistake, shown as one line per problem, with exit code 1.

    On a terminal (and without --json) each located problem is followed by its source
    line and a caret under the column.
    """

    exit_code = 1

    def __init__(self, message: str, error: RulesError | None = None, carets: bool = False):
        super().__init__(message)
        self.error = error
        self.carets = carets

    def show(self, file: Any = None) -> None:
        if self.error is not None and self.carets and is_terminal():
            click.echo("\n".join(error_lines(self.error, terminal=True)), err=True)
        else:
            click.echo(self.message, err=True)


def echo_problem(problem: RulesError) -> None:
    """Print one problem on stderr: its line, and on a terminal its source line and caret."""
    click.echo("\n".join(error_lines(problem, terminal=is_terminal())), err=True)


class InternalError(RulesCommandError):
    """A bug: an exception no input should cause, shown as one line with exit code 3."""

    exit_code = 3


# Output that cannot be written (a closed pipe, a full disk) ends the command with one line.
_OUTPUT_ERRNOS = frozenset({errno.EPIPE, errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


class Group(click.Group):
    """The one guard of the command line.

    A RulesError (the user's mistake) becomes its one line and exit code 1; output that cannot be
    written becomes one line and exit code 1; anything else is a bug: one line asking for a report,
    exit code 3, and the traceback only with RULESMITH_DEBUG=1.
    """

    def invoke(self, ctx: click.Context) -> Any:
        as_json = "--json" in ctx.args  # read now: invoking the command consumes the arguments
        try:
            result = super().invoke(ctx)
            sys.stdout.flush()  # so that an output error is reported here, not after exit
            return result
        except RulesError as err:
            raise RulesCommandError(str(err), err, carets=not as_json) from None
        except RecursionError:
            raise RulesCommandError("input nested too deeply") from None
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except OSError as err:
            if err.errno not in _OUTPUT_ERRNOS:
                raise _internal(err) from None
            _discard_output()
            raise RulesCommandError(f"cannot write the output: {err.strerror or err}") from None
        except Exception as err:  # noqa: BLE001  (the guard is there to catch what nothing else did)
            raise _internal(err) from None


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


@click.group(cls=Group)
@click.version_option(package_name="rulesmith")
def main() -> None:
    """Rules as data: validate rulesets, roll dice, run procedures and get exact odds."""


@main.command("list")
def list_cmd() -> None:
    """List the rulesets: the bundled ones, then those in your ruleset folders, with where each came from."""
    from interpreter.load.find import user_rulesets

    bad = 0
    users = user_rulesets()
    bundled = bundled_ids()
    for ruleset_id in bundled + sorted(set(users) - set(bundled)):
        origin = str(users[ruleset_id][0]) if ruleset_id in users else "bundled"
        try:
            rs = compile_ref(ruleset_id)
        except RulesError as err:
            if ruleset_id in users:  # a file of the user's, or two files claiming one id
                bad += 1
                echo_problem(err)
            else:
                click.echo(f"{ruleset_id:<12} (invalid: run `rules validate {ruleset_id}`)")
            continue
        base = f"extends {rs.extends}; " if rs.extends else ""
        click.echo(f"{rs.id:<12} {rs.title} — {rs.description} ({base}{origin})")
    if bad:
        sys.exit(1)


@main.command()
@click.argument("rulesets", nargs=-1)
def validate(rulesets: Sequence[str]) -> None:
    """Check rulesets (all bundled ones when none is named); print every problem."""
    bad = 0
    for ref in rulesets or bundled_ids():
        found = problems(ref)
        if found:
            bad += 1
            for problem in found:
                echo_problem(problem)
        else:
            shown = resolve(ref)[1]
            click.echo(f"{shown}: valid")
            _warn_defaults(ref, shown)
    if bad:
        sys.exit(1)


def _warn_defaults(ref: str, shown: str) -> None:
    """A warning line for each way the trait and field defaults break the ruleset's own creation rules."""
    from interpreter.sheet.spread import default_problems

    for message in default_problems(compile_ref(ref)):
        click.echo(f"warning: {shown}: a sheet at the defaults breaks a creation rule: {message}", err=True)


def parse_assignments(items: Sequence[str]) -> dict[str, str]:
    """NAME=VALUE arguments as a mapping."""
    args = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise BadParameter(f"expected NAME=VALUE, got '{item}'")
        args[name.strip()] = value
    return args


def parse_dice_list(text: str | None) -> list[int] | None:
    """The values of --dice as integers."""
    if text is None:
        return None
    values = []
    for part in text.replace(" ", "").split(","):
        try:
            value = limits.whole_number(part) if part else None
        except OverflowError:
            raise BadParameter(f"--dice: {shown(part)} is out of range: {limits.OUT_OF_RANGE}") from None
        if part and value is None:
            raise BadParameter(f"--dice takes whole numbers separated by commas, not {shown(text)}")
        if value is not None:
            values.append(value)
    return values


@main.command()
@click.argument("ruleset")
@click.argument("procedure")
@click.argument("params", nargs=-1)
@click.option("--sheet", type=click.Path(dir_okay=False), help="A character sheet to read traits from.")
@click.option("--seed", type=int, help="Seed the dice for a repeatable run.")
@click.option("--dice", "given", help="Use exactly these dice, in roll order: 1,3,5,7,10,8")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--dry-run", is_flag=True, help="Show what would change on the sheet and write nothing.")
def run(ruleset: str, procedure: str, params: Sequence[str], sheet: str | None, seed: int | None,
        given: str | None, as_json: bool, dry_run: bool) -> None:
    """Run one procedure of a ruleset; with --sheet, read traits from a sheet and write changes back."""
    rs = compile_ref(ruleset)
    values = parse_dice_list(given)
    source = dice.GivenSource(values) if values is not None else dice.RandomSource(random.Random(seed))
    args = parse_assignments(params)
    if sheet is None:
        result = runner.run(rs, procedure, args, source)
        if values is not None:
            cast(dice.GivenSource, source).check_exhausted()  # given values make a GivenSource
        click.echo(json.dumps(render.result_json(result)) if as_json else render.result_text(result))
        return
    from interpreter.sheet.file import transaction

    with transaction(sheet) as handle:
        result = runner.run(rs, procedure, args, source, handle.data, handle.doc)
        if values is not None:
            cast(dice.GivenSource, source).check_exhausted()  # given values make a GivenSource
        for path, _old, new in result.changes:
            handle.set(path, new)
        if result.changes and not dry_run:
            handle.write()
    if as_json:
        data = render.result_json(result)
        data["changes"] = [{"path": render.sheet_path(p), "old": old, "new": new} for p, old, new in result.changes]
        data["written"] = bool(result.changes) and not dry_run
        click.echo(json.dumps(data))
        return
    click.echo(render.result_text(result))
    if result.changes:
        verb = "would change" if dry_run else "changed"
        click.echo(f"{sheet} {verb}:")
        for path, old, new in result.changes:
            click.echo(f"  {render.sheet_path(path)}: {render.plain(old)} -> {render.plain(new)}")
        if dry_run:
            click.echo(handle.diff(), nl=False)


@main.command()
@click.argument("target")
@click.argument("procedure", required=False)
@click.argument("params", nargs=-1)
@click.option("--sheet", type=click.Path(dir_okay=False), help="A character sheet to read traits from.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def odds(target: str, procedure: str | None, params: Sequence[str], sheet: str | None, as_json: bool) -> None:
    """Exact odds of a procedure (RULESET PROCEDURE [NAME=VALUE...]) or of a dice expression."""
    if procedure is None:
        from interpreter.cli.dice import odds_of_expression
        click.echo(odds_of_expression(target, as_json))
        return
    rs = compile_ref(target)
    data = doc = None
    if sheet is not None:
        from interpreter.sheet.file import SheetFile

        handle = SheetFile.read(sheet)
        data, doc = handle.data, handle.doc
    result = runner.odds(rs, procedure, parse_assignments(params), data, doc)
    click.echo(json.dumps(render.odds_json(result)) if as_json else render.odds_text(result))


@main.command()
@click.argument("ruleset")
def describe(ruleset: str) -> None:
    """Print a Markdown reference of a ruleset."""
    click.echo(describe_mod.describe(compile_ref(ruleset)), nl=False)


@main.group()
def sheet() -> None:
    """Character sheets: create, check and show them."""


@sheet.command("new")
@click.argument("ruleset")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="The sheet file to write.")
@click.option("--name", default="New character", help="The character's name.")
def sheet_new(ruleset: str, output: str, name: str) -> None:
    """Write a commented starting sheet that passes `rules sheet check --creation`."""
    from interpreter.load.find import find
    from interpreter.sheet.file import new_sheet
    from interpreter.sheet.spread import new_sheet as new_sheet_text

    ref = None
    found = find(ruleset)
    if found.origin == "path":  # an id is written as it is; a path relative to the sheet
        ref = os.path.relpath(os.path.abspath(found.path), os.path.dirname(os.path.abspath(output)))
    text = new_sheet_text(compile_ref(ruleset), name, ref, output)
    new_sheet(output, text)
    click.echo(f"wrote {output}")


@sheet.command("check")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--creation", is_flag=True, help="Also apply the creation rules (budgets, priorities, counts).")
def sheet_check(file: str, creation: bool) -> None:
    """Check a sheet against its ruleset's standing rules (ranges, fields, tracks, resources)."""
    from interpreter.sheet.creation import check
    from interpreter.sheet.open import open_sheet

    handle, rs = open_sheet(file)
    found = check(rs, handle.data, handle.doc, creation=creation)
    for problem in found:
        echo_problem(problem)
    if found:
        sys.exit(1)
    click.echo(f"{file}: valid")


@sheet.command("show")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def sheet_show(file: str, as_json: bool) -> None:
    """Show a sheet: traits, derived values, tracks, resources and status."""
    from interpreter.sheet import view as sheet_view
    from interpreter.sheet.open import open_sheet

    handle, rs = open_sheet(file)
    view = sheet_view.view(rs, handle.data, handle.doc)
    click.echo(json.dumps(view) if as_json else sheet_view.text(rs, view))


def _register_dice() -> None:
    from interpreter.cli.dice import roll
    from interpreter.cli.diff import diff
    from interpreter.cli.export import export

    main.add_command(roll)
    main.add_command(diff)
    main.add_command(export)


_register_dice()
__all__ = ["main"]
