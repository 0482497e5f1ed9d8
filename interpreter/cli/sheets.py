"""The `rules sheet` commands: create, check and show character sheets."""

from __future__ import annotations

import sys

import click

from interpreter.cli import complete, output
from interpreter.cli.examples import ExampleGroup, examples
from interpreter.cli.help import json_option


@click.group(cls=ExampleGroup, epilog=examples("rules sheet new {sheet_ruleset} -o marco.yaml --name Marco", "rules sheet check marco.yaml",
                             "rules sheet show marco.yaml --json"))
def sheet() -> None:
    """Character sheets: create, check and show them."""


@sheet.command("new", epilog=examples("rules sheet new {sheet_ruleset} -o ada.yaml --name Ada",
                                      "rules sheet new {sheet_ruleset} -o wren.yaml --json"))
@click.argument("ruleset", shell_complete=complete.rulesets)
@click.option("-o", "--output", "out", required=True, type=click.Path(dir_okay=False), help="The sheet file to write.")
@click.option("--name", default="New character", help="The character's name.")
@json_option
def sheet_new(ruleset: str, out: str, name: str, as_json: bool) -> None:
    """Write a commented starting sheet that passes `rules sheet check --creation`; never overwrites a file."""
    from interpreter.sheet.open import create_sheet

    rs = create_sheet(ruleset, out, name)
    if as_json:
        output.print_json({"ruleset": rs.id, "file": out, "name": name, "written": True})
    else:
        output.echo(f"wrote {out}")


@sheet.command("check", epilog=examples("rules sheet check marco.yaml", "rules sheet check marco.yaml --creation",
                                        "rules sheet check marco.yaml --json"))
@click.argument("file", type=click.Path(dir_okay=False), shell_complete=complete.sheets)
@click.option("--creation", is_flag=True, help="Also apply the creation rules (budgets, priorities, counts).")
@json_option
def sheet_check(file: str, creation: bool, as_json: bool) -> None:
    """Check a sheet against its ruleset's standing rules (ranges, fields, tracks, resources).

    It only reads the sheet: nothing is written, not even a lock file.
    """
    from interpreter.ruleset.derived import final_states
    from interpreter.sheet.bind import bind
    from interpreter.sheet.creation import check
    from interpreter.sheet.open import open_sheet

    handle, rs = open_sheet(file)
    found = check(rs, handle.data, handle.doc, creation=creation)
    final = [] if found else final_states(rs, bind(rs, handle.data, handle.doc))
    if as_json:
        output.print_json({"file": file, "ruleset": rs.id, "valid": not found,
                           "problems": [output.error_json(p)["error"] for p in found], "final": final})
    else:
        for problem in found:
            output.echo_problem(problem)
        if not found:
            output.echo(f"{file}: valid")
        for name in final:
            output.echo(f"{file}: final state '{name}': no procedure acts on the sheet unless it lists "
                        f"acts_on_final: [{name}]")
    if found:
        sys.exit(1)


@sheet.command("show", epilog=examples("rules sheet show marco.yaml", "rules sheet show marco.yaml --json"))
@click.argument("file", type=click.Path(dir_okay=False), shell_complete=complete.sheets)
@json_option
def sheet_show(file: str, as_json: bool) -> None:
    """Show a sheet: traits, derived values, tracks, resources and status."""
    from interpreter.sheet import view as sheet_view
    from interpreter.sheet.open import open_sheet

    handle, rs = open_sheet(file)
    view = sheet_view.view(rs, handle.data, handle.doc)
    if as_json:
        output.print_json(view)
    else:
        output.echo(sheet_view.text(rs, view))


__all__ = ["sheet"]
