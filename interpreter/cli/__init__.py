"""The `rules` command line: click commands and the renderers of their output."""

from interpreter.cli.commands import main

__all__ = ["main"]
