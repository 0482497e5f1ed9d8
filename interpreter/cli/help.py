"""Help where you stand: examples at the end of every command's help, and help for one procedure.

`rules run RULESET PROCEDURE -h` (and `rules odds RULESET PROCEDURE -h`) print what
`rules describe RULESET PROCEDURE` prints, instead of the command's generic help.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from interpreter.cli import output
from interpreter.cli.examples import ExampleCommand
from interpreter.errors import RulesError

HELP_FLAGS = ("-h", "--help")
F = TypeVar("F", bound=Callable[..., object])


def json_option(f: Any) -> Any:
    """The `--json` flag every command has."""
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON object (see docs/json.md).")(f)


def version_option(package_name: str) -> Callable[[F], F]:
    """`--version`: the installed version of the package, or `checkout` when it runs from a source checkout.

    (click's own option looks its help text up in the translations as the command line is built, which
    imports `locale` and searches for catalogues on every start.)
    """
    def show(ctx: click.Context, param: click.Parameter, value: bool) -> None:
        if not value or ctx.resilient_parsing:
            return
        from importlib import metadata

        try:
            version = metadata.version(package_name)
        except metadata.PackageNotFoundError:
            version = "checkout"
        click.echo(f"{ctx.find_root().info_name}, version {version}")
        ctx.exit()

    return click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=show,
                        help="Show the version and exit.")


def procedure_help(ruleset: str, procedure: str) -> str | None:
    """The description of one procedure, or None when the names do not lead to one."""
    from interpreter.cli import describe
    from interpreter.pipeline import compile_ref

    try:
        rs = compile_ref(ruleset)
    except RulesError:
        return None
    proc = rs.procedures.get(procedure)
    return describe.procedure_text(rs, proc) if proc is not None else None


class ProcedureCommand(ExampleCommand):
    """A command taking RULESET PROCEDURE whose help, given both, describes that procedure."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Answer `-h` after a ruleset and a procedure with the procedure's own help."""
        if len(args) >= 2 and any(a in HELP_FLAGS for a in args) and not any(
                a.startswith("-") for a in args[:2]):
            text = procedure_help(args[0], args[1])
            if text is not None:
                output.echo(text, nl=False)
                ctx.exit()
        return super().parse_args(ctx, args)


__all__ = ["ProcedureCommand", "json_option", "procedure_help"]
