"""The `rules` command line: click commands and the renderers of their output.

``main`` is the click group (imported when first asked for); ``console`` is the console entry
point, the one place that tunes the garbage collector.

- ``guard``, ``group``, ``commands``: the guard (one line per mistake), the click group and the commands over
  the library; ``quick``: the everyday `rules run`, `rules odds` and `rules roll` lines read without
  click, and ``run_odds`` and ``rolls``: the one body of each of those three commands;
- ``arguments``, ``ranges``: `NAME=VALUE` parameters, and swept ones (`A..B`, `a,b,c`);
- ``dice``: the `rules roll` command; ``sheets``: `rules sheet ...`; ``export``,
  ``diff`` (with ``diff_cases``, ``diff_text``, ``diff_chart``), ``describe`` (with ``prose`` and
  ``effects_text``), ``lsp``;
- ``render``, ``odds_output``, ``odds_text``, ``sweep_text``, ``cumulative``: results as text, JSON and CSV;
  ``compare``: several dice expressions side by side; ``summary``: mean, deviation, min and max;
  ``progress``: how far a long command is, on a terminal;
- ``chart_data``, ``charts``, ``chart_page``: charts of the odds (PNG, SVG, one HTML page);
- ``output``, ``caret``: text any terminal shows as it is, and errors with a caret under the column;
- ``help``, ``examples``: help where you stand, with examples from the bundled rulesets;
- ``complete``, ``shells``: shell completion.

How this package fits with the others, and the files a new step kind, dice modifier or pool statistic
touches: docs/internals.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import click

__all__ = ["console", "main"]


def console() -> None:
    """Run `rules` as a command: an everyday `rules run`, `rules odds` or `rules roll` line is read without
    click (``quick``), any other by the click commands, imported with the cycle collector paused.

    Importing the command line makes thousands of objects and no garbage; the cycle collector would
    only slow the start (by milliseconds), so it is paused meanwhile.  The objects made are then
    frozen (they live as long as the process): else the first collection after the pause would scan
    them all, for nothing.  A library that imports ``interpreter`` keeps its collector as it was.
    """
    import gc
    import sys

    from interpreter.cli import quick

    quick.main(sys.argv[1:])  # (it exits when the line was its to read)
    collecting = gc.isenabled()
    gc.disable()
    try:
        from interpreter.cli.commands import main as command
    finally:
        if collecting:
            gc.freeze()
            gc.enable()
    command()


def __getattr__(name: str) -> click.Group:
    if name == "main":
        from interpreter.cli.commands import main

        return main
    raise AttributeError(f"module 'interpreter.cli' has no attribute '{name}'")
