"""`rules lsp`: the language server for editors, over standard input and output."""

from __future__ import annotations

import click

from interpreter.cli.examples import ExampleCommand, examples

__all__ = ["lsp"]


@click.command(cls=ExampleCommand, epilog=examples("rules lsp", "rules lsp --stdio"))
@click.option("--stdio", is_flag=True, help="Talk over standard input and output (the default; editors may pass it).")
def lsp(stdio: bool) -> None:
    """Run the language server: errors as you type, hovers with exact odds, completion (see docs/editors.md)."""
    from interpreter.lsp.server import serve

    serve()
