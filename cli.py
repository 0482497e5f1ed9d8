"""Run the `rules` command from a source checkout: `python cli.py ...`; the code lives in interpreter.cli."""

from __future__ import annotations

from typing import TYPE_CHECKING

from interpreter.cli import console

if TYPE_CHECKING:
    import click

__all__ = ["console"]  # (and `main`, through __getattr__)


def __getattr__(name: str) -> click.Group:
    """`main`, the click group, imported when first asked for (a plain `rules run` line never needs it)."""
    if name == "main":
        from interpreter.cli.commands import main

        return main
    raise AttributeError(f"module 'cli' has no attribute '{name}'")


if __name__ == "__main__":
    console()
