"""The `rules` command; the code lives in interpreter.cli."""

from interpreter.cli import main

__all__ = ["main"]
