"""Run the `rules` command from a source checkout: `python cli.py ...`; the code lives in interpreter.cli."""

from interpreter.cli import console, main

__all__ = ["console", "main"]

if __name__ == "__main__":
    console()
