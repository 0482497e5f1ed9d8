"""The `rules` command: a thin click group over the library."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from interpreter.cli import complete, output
from interpreter.cli.examples import examples
from interpreter.cli.group import Group
from interpreter.cli.help import ProcedureCommand, json_option, version_option
from interpreter.errors import reported
from interpreter.hints import printable
from interpreter.load.bundled import bundled_ids, schema_path

# Each command imports what it uses when it runs: a start pays only for the command given.


@click.group(cls=Group, name="rules", context_settings={"help_option_names": ["-h", "--help"]},
             epilog=examples("rules list", "rules run {ruleset} {procedure} {params}",
                             "rules odds '2d20kh1+5>=15'"))
@version_option(package_name="rulesmith-rpg")
@click.pass_context
def main(ctx: click.Context) -> None:
    """Rules as data: validate rulesets, roll dice, run procedures and get exact odds.

    Exit codes: 0 done, 1 bad input (one line on stderr), 2 a command-line usage mistake.
    """
    if ctx.invoked_subcommand != "lsp":  # (an editor shows the warnings where they are)
        from interpreter.cli.file_warnings import telling

        ctx.with_resource(telling())


@main.command("list", epilog=examples("rules list", "rules list --json"))
@json_option
def list_cmd(as_json: bool) -> None:
    """List the rulesets: the bundled ones, then those in your ruleset folders, with where each came from."""
    from interpreter.cli.listing import listed

    rows, bad = listed()
    if as_json:
        output.print_json({"rulesets": rows})
    else:
        width = max([12, *(len(str(row["id"])) for row in rows)])  # one column of ids, however long the longest
        for row in rows:
            if row["valid"]:
                base = f"extends {row['extends']}; " if row["extends"] else ""
                title, about = printable(str(row["title"])), printable(str(row["description"]).strip().split("\n")[0])
                output.echo(f"{row['id']:<{width}} {title} — {about} ({base}{printable(str(row['origin']))})")
            elif row["origin"] == "bundled":
                output.echo(f"{row['id']:<{width}} (invalid: run `rules validate {row['id']}`)")
        for problem in bad:
            output.echo_problem(problem)
    if bad:
        sys.exit(1)


@main.command(epilog=examples("rules validate", "rules validate {ruleset} {ruleset2} --json"))
@click.argument("rulesets", nargs=-1, shell_complete=complete.rulesets)
@json_option
def validate(rulesets: Sequence[str], as_json: bool) -> None:
    """Check rulesets (when none is named: the bundled ones and those in your ruleset folders); print every problem.

    Each problem is one line, FILE:LINE:COL: $.json.path: message; the exit code is 1 when any
    ruleset has a problem. A warning (on stderr) is something that is valid but likely not meant.
    """
    from interpreter.cli.file_warnings import told_elsewhere

    with told_elsewhere():  # (each ruleset's warnings are in its report)
        _validate(rulesets, as_json)


def _validate(rulesets: Sequence[str], as_json: bool) -> None:
    from interpreter.cli.file_warnings import warnings_of_ref
    from interpreter.load.find import user_rulesets
    from interpreter.pipeline import problems, resolve

    reports = []
    every = bundled_ids() + sorted(set(user_rulesets()) - set(bundled_ids()))
    for ref in rulesets or every:
        found = reported(problems(ref))
        shown = resolve(ref)[1] if not found else (found[0].where.file if found[0].where else ref)
        warnings = [] if found else warnings_of_ref(ref)
        reports.append({"ruleset": ref, "file": shown, "valid": not found,
                        "problems": [output.error_json(p)["error"] for p in found], "warnings": warnings})
        if as_json:
            continue
        for problem in found:
            output.echo_problem(problem)
        if not found:
            output.echo(f"{shown}: valid")
        for warning in warnings:
            output.echo(f"warning: {warning}", err=True)
    if as_json:
        output.print_json({"valid": all(r["valid"] for r in reports), "rulesets": reports})
    if not all(r["valid"] for r in reports):
        sys.exit(1)


@main.command(cls=ProcedureCommand, epilog=examples(
    "rules run {ruleset} {procedure} {params}",
    "rules run {ruleset2} {procedure2} {params2} --seed 7 --json",
    "rules run {ruleset} {procedure} -h"))
@click.argument("ruleset", shell_complete=complete.rulesets)
@click.argument("procedure", shell_complete=complete.procedures)
@click.argument("params", nargs=-1, shell_complete=complete.parameters)
@click.option("--sheet", type=click.Path(dir_okay=False), shell_complete=complete.sheets,
              help="A character sheet to read traits from.")
@click.option("--seed", type=int, help="Seed the dice for a repeatable run (--json tells the seed of every run).")
@click.option("--dice", "given", metavar="LIST", help="Use exactly these dice, in roll order: 1,3,5,7,10,8")
@click.option("--times", type=click.IntRange(min=1), metavar="N",
              help="Run it N times and count the outcomes and values (no trace; not with --sheet or --dice).")
@json_option
@click.option("--dry-run", is_flag=True, help="Show what would change on the sheet and write nothing.")
@click.option("--no-backup", is_flag=True, help="Do not keep the sheet's previous text in FILE.bak.")
def run(ruleset: str, procedure: str, params: Sequence[str], sheet: str | None, seed: int | None,
        given: str | None, times: int | None, as_json: bool, dry_run: bool, no_backup: bool) -> None:
    """Run one procedure of a ruleset, with NAME=VALUE parameters.

    With --sheet, traits are read from the sheet and any change is written back (the previous
    text kept in FILE.bak unless --no-backup). `rules run RULESET PROCEDURE -h` describes one
    procedure.
    """
    from interpreter.cli import run_odds

    run_odds.run(ruleset, procedure, params, sheet, seed, given, times, as_json, dry_run, no_backup)


@main.command(cls=ProcedureCommand, epilog=examples(
    "rules odds {ruleset} {procedure} {params} --at-least",
    "rules odds 3d6 4d6kh3 2d10",
    "rules odds {ruleset} {procedure} {swept} --csv"))
@click.argument("target", metavar="RULESET|EXPR", shell_complete=complete.rulesets)
@click.argument("procedure", required=False, shell_complete=complete.procedures)
@click.argument("params", nargs=-1, shell_complete=complete.parameters)
@click.option("--sheet", type=click.Path(dir_okay=False), shell_complete=complete.sheets,
              help="A character sheet to read traits from.")
@json_option
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV: a sweep's table, or one row per outcome and value.")
@click.option("--plot", type=click.Path(dir_okay=False), metavar="FILE",
              help="Also draw the odds as a chart in FILE: .svg, .png or .html (pip install \".[charts]\").")
@click.option("--force", is_flag=True, help="Let --plot replace a file that exists.")
@click.option("--all", "show_all", is_flag=True, help="Show every row, also values that never vary and tiny chances.")
@click.option("--at-least", is_flag=True, help="Add a column: the chance of this value or more (this outcome or better).")
@click.option("--at-most", is_flag=True, help="Add a column: the chance of this value or less (this outcome or worse).")
@click.option("--outcomes", "outcomes_only", is_flag=True, help="Show the outcomes only, not the values.")
@click.option("--percentiles", metavar="LIST", help="In a sweep, add these percentiles of each value: 10,50,90.")
@click.option("--where", metavar="FORMULA",
              help="Also give the chance of a condition on the run's values and outcome: 'successes >= 3'.")
def odds(target: str, procedure: str | None, params: Sequence[str], sheet: str | None, as_json: bool,
         as_csv: bool, plot: str | None, force: bool, show_all: bool, at_least: bool, at_most: bool,
         outcomes_only: bool, percentiles: str | None, where: str | None) -> None:
    """Exact odds of a procedure (RULESET PROCEDURE [NAME=VALUE...]) or of dice expressions (EXPR [EXPR...]).

    A parameter given as A..B, A..B/STEP or a,b,c is swept (one or two of them): one row per value.
    Several expressions are compared on one table and one chart. The first word is a ruleset when it
    names one (an id or a file); else, when it is a dice expression, every word is an expression.
    Quote an expression that holds > < or ! so the shell leaves it alone: rules odds '1d20>=15'.
    """
    from interpreter.cli import run_odds

    run_odds.odds(target, procedure, params, sheet, as_json, as_csv, plot, force, show_all, at_least, at_most,
                  outcomes_only, percentiles, where)


@main.command(epilog=examples("rules describe {ruleset}", "rules describe {ruleset2} {procedure2}",
                              "rules describe {ruleset} {procedure} --json"))
@click.argument("ruleset", shell_complete=complete.rulesets)
@click.argument("procedure", required=False, shell_complete=complete.procedures)
@click.option("--code", type=click.Choice(["run", "exact"]), is_flag=False, flag_value="run", default=None,
              help="Print the Python code the procedure is written as: `run` (the default) the function of a "
                   "traced or sampled run, `exact` the blocks of exact odds; each step under its YAML line.")
@json_option
def describe(ruleset: str, procedure: str | None, code: str | None, as_json: bool) -> None:
    """Print a Markdown reference of a ruleset, or of one of its procedures (or, with --code, its code)."""
    from interpreter.cli import describe as describe_mod
    from interpreter.pipeline import compile_ref
    from interpreter.ruleset.params import find_procedure

    rs = compile_ref(ruleset)
    if code is not None:
        if procedure is None or as_json:
            raise click.UsageError("--code prints one procedure's code: give a PROCEDURE, and no --json")
        from interpreter.procedure.listing import listing

        output.echo(listing(rs, find_procedure(rs, procedure), code))
        return
    if procedure is not None:
        proc = find_procedure(rs, procedure)
        if as_json:
            output.print_json({"ruleset": rs.id, "procedure": describe_mod.procedure_json(proc, rs.constants)})
        else:
            output.echo(describe_mod.procedure_text(rs, proc), nl=False)
        return
    if as_json:
        output.print_json(describe_mod.ruleset_json(rs))
    else:
        output.echo(describe_mod.describe(rs), nl=False)


@main.command(epilog=examples("rules schema > ruleset.schema.json", "rules schema overlay --path", "rules schema --json"))
@click.argument("kind", type=click.Choice(["ruleset", "overlay", "sheet"]), default="ruleset")
@click.option("--path", "as_path", is_flag=True, help="Print where the installed schema file is instead.")
@json_option
def schema(kind: str, as_path: bool, as_json: bool) -> None:
    """Print the JSON Schema of a ruleset (the default), an overlay or a sheet, for editors (docs/editors.md)."""
    path = schema_path(f"{kind}.schema.json")
    if as_path:
        output.echo(str(path.resolve()))
        return
    output.echo(path.read_text(encoding="utf-8"), nl=False)


def _roll() -> click.Command:
    from interpreter.cli.dice import roll

    return roll


def _sheet() -> click.Command:
    from interpreter.cli.sheets import sheet

    return sheet


def _diff() -> click.Command:
    from interpreter.cli.diff import diff

    return diff


def _export() -> click.Command:
    from interpreter.cli.export import export

    return export


def _lsp() -> click.Command:
    from interpreter.cli.lsp import lsp

    return lsp


for _name, _load, _summary in (
        ("roll", _roll, "Roll the dice expression EXPR and show every die (docs/dice.md has the notation)."),
        ("sheet", _sheet, "Character sheets: create, check and show them."),
        ("diff", _diff, ("Compare two rulesets (ids or paths): every changed value, and the odds of every procedure "
                        "whose behaviour may differ, at its samples (or at NAME=VALUE for the PROCEDURE named).")),
        ("export", _export, "Write a ruleset's YAML as it ships, or with --overlay an overlay file that extends it."),
        ("lsp", _lsp, ("Run the language server: errors as you type, hovers with exact odds, completion "
                      "(see docs/editors.md)."))):
    main.add_lazy(_name, _load, _summary)
__all__ = ["main"]
