"""What `rules run` and `rules odds` do, given their parameters: the one body of each.

The click commands (``commands``) and the direct reading of an everyday command line (``quick``)
both call these, so a command does the same whichever way its line was read. A usage mistake
found here (two options that exclude each other) is a ``guard.UsageMistake``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from interpreter import limits
from interpreter.cli import output
from interpreter.cli.arguments import parse_assignments
from interpreter.cli.guard import UsageMistake
from interpreter.errors import BadParameter, RulesError
from interpreter.hints import shown

if TYPE_CHECKING:
    from interpreter.ruleset.model import CompiledRuleset


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


def run(ruleset: str, procedure: str, params: Sequence[str], sheet: str | None = None, seed: int | None = None,
        given: str | None = None, times: int | None = None, as_json: bool = False, dry_run: bool = False,
        no_backup: bool = False) -> None:
    """`rules run`: one procedure run (traced), or counted over `times` runs, or run on a sheet."""
    if seed is not None and given is not None:
        raise UsageMistake("use either --seed or --dice, not both")
    if times is not None and (sheet is not None or given is not None):
        raise UsageMistake("--times counts runs without a sheet or given dice")
    from interpreter.api.arguments import drawn_seed
    from interpreter.cli import render
    from interpreter.dice import sources as dice
    from interpreter.pipeline import compile_ref

    rs = compile_ref(ruleset)
    if seed is None and given is None:  # a seed of our own, told under --json: `--seed` of it replays the run
        seed = drawn_seed()
    if times is not None:
        _count_runs(rs, procedure, params, times, seed, as_json)
        return
    values = parse_dice_list(given)
    source = dice.GivenSource(values) if values is not None else dice.RandomSource.seeded(seed)
    args = parse_assignments(params)

    def all_dice_used() -> None:
        if isinstance(source, dice.GivenSource):
            source.check_exhausted()

    def ran_out(err: RulesError) -> RulesError:
        from interpreter.api.given import shortfall

        return shortfall(err, source, "--dice")

    if sheet is None:
        from interpreter.procedure.run import run as run_once

        try:
            result = run_once(rs, procedure, args, source)
        except BadParameter as err:
            raise ran_out(err) from None
        all_dice_used()
        if as_json:
            output.print_json({**render.result_json(result), "seed": seed})
        else:
            output.echo(render.result_text(result))
        return
    from interpreter.sheet.session import run_on_file

    try:
        result, handle = run_on_file(rs, procedure, args, source, sheet, write=not dry_run, backup=not no_backup,
                                     after=all_dice_used, told=lambda note: output.echo(note, err=True))
    except BadParameter as err:
        raise ran_out(err) from None
    if as_json:
        data = render.result_json(result)
        data["changes"] = [{"path": render.sheet_path(p), "old": old, "new": new} for p, old, new in result.changes]
        data["written"] = bool(result.changes) and not dry_run
        data["seed"] = seed
        output.print_json(data)
        return
    output.echo(render.result_text(result))
    if result.changes:
        _sheet_changes_text(sheet, result.changes, handle.diff() if dry_run else None)

def _count_runs(rs: CompiledRuleset, procedure: str, params: Sequence[str], times: int, seed: int | None,
                as_json: bool) -> None:
    """`rules run ... --times N`: N runs counted, outcomes and values."""
    from interpreter.cli import render
    from interpreter.cli.progress import Progress
    from interpreter.procedure.sampler import sample

    with Progress(f"rules run: {times} runs", quiet=as_json):
        counted = sample(rs, procedure, parse_assignments(params), times, seed)
    if as_json:
        output.print_json(render.samples_json(counted))
    else:
        output.echo(render.samples_text(counted, output.can_show("█")))


def _sheet_changes_text(sheet: str, changes: Sequence[tuple[tuple[object, ...], object, object]], diff: str | None) -> None:
    """What a run changed on a sheet (or, with `diff`, a dry run would change, and the text's diff)."""
    from interpreter.cli import render

    output.echo(f"{sheet} {'would change' if diff is not None else 'changed'}:")
    for path, old, new in changes:
        output.echo(f"  {render.sheet_path(path)}: {render.plain(old)} -> {render.plain(new)}")
    if diff is not None:
        output.echo(diff, nl=False)


def odds(target: str, procedure: str | None = None, params: Sequence[str] = (), sheet: str | None = None,
         as_json: bool = False, as_csv: bool = False, plot: str | None = None, force: bool = False,
         show_all: bool = False, at_least: bool = False, at_most: bool = False, outcomes_only: bool = False,
         percentiles: str | None = None, where: str | None = None) -> None:
    """`rules odds`: exact odds of a procedure (or a sweep of it), or of dice expressions."""
    from interpreter.cli import odds_output

    if as_json and as_csv:
        raise UsageMistake("use either --json or --csv, not both")
    view = odds_output.odds_view(show_all, at_least, at_most, outcomes_only)
    chart = odds_output.chart_format(plot, force)
    expressions = procedure is not None and odds_output.are_expressions(target)  # (asked once: it looks for files)
    if where is not None and (procedure is None or as_csv or expressions):
        raise UsageMistake("--where asks about a procedure's runs (RULESET PROCEDURE), printed as text or --json")
    if procedure is not None and expressions:
        if sheet is not None or percentiles:
            raise UsageMistake("dice expressions take no --sheet and no --percentiles")
        odds_output.expressions([target, procedure, *params], view,
                                odds_output.Shown(as_json, as_csv, plot, chart, None, force))
        return
    if procedure is None:
        if sheet is not None or params or percentiles:
            raise UsageMistake("a dice expression takes no --sheet, no NAME=VALUE and no --percentiles")
        odds_output.expression(target, view, as_json, as_csv, plot, chart, force)
        return
    from interpreter.pipeline import compile_ref  # (the odds of dice expressions compile no ruleset)

    odds_output.procedure(compile_ref(target), procedure, params, sheet, view,
                          odds_output.Shown(as_json, as_csv, plot, chart, percentiles, force), where)


__all__ = ["odds", "parse_dice_list", "run"]
