"""What `rules odds` prints and draws: one distribution or a sweep, as text, JSON or CSV, and a chart beside it."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from interpreter.cli import output
from interpreter.cli.arguments import parse_assignments
from interpreter.cli.guard import UsageMistake
from interpreter.cli.odds_text import View
from interpreter.cli.progress import Progress
from interpreter.errors import BadParameter
from interpreter.record import record
from interpreter.ruleset.model import CompiledRuleset

if TYPE_CHECKING:
    from interpreter.cli.chart_data import Chart
    from interpreter.cli.compare import Compared
    from interpreter.dice.expr import DiceExpr
    from interpreter.formula.compile import Formula

CHART_FORMATS = ("svg", "png", "html")
CROWDED = 50  # an expression foretold to have this many times the values a chart draws is refused before its odds


@record
class Shown:
    """How the result is to be shown: printed as JSON or CSV (else text), drawn to a file or not."""

    as_json: bool
    as_csv: bool
    plot: str | None
    chart: str | None  # the chart's format, from the file's extension
    percentiles: str | None
    force: bool = False  # --force: the chart may replace a file that is there


def odds_view(show_all: bool, at_least: bool, at_most: bool, outcomes_only: bool) -> View:
    """The view the options ask for."""
    return View(show_all=show_all, at_least=at_least, at_most=at_most, outcomes_only=outcomes_only)


def chart_format(path: str | None, force: bool = False) -> str | None:
    """The chart format a --plot file names by its extension (a usage mistake for any other).

    An existing file (or link, or anything else at that path) is refused unless `force`: a chart
    replaces only what its user said it may, as `export -o` and `sheet new -o` write only new files.
    """
    if path is None:
        return None
    suffix = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if suffix not in CHART_FORMATS:
        raise UsageMistake(f"--plot writes .svg, .png or .html, not {path!r}")
    if not force and _taken(path):
        from interpreter.hints import shown

        raise BadParameter(f"--plot: {shown(path)} already exists; nothing was written",
                           hint="give --force to replace it, or choose another name")
    return suffix


def _taken(path: str) -> bool:
    """Whether anything (a file, a link, even a broken one) is at the path."""
    import os

    try:
        os.lstat(path)
    except (OSError, ValueError):
        return False
    return True


def _percentiles(text: str | None) -> tuple[int, ...]:
    if not text:
        return ()
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit() or not 0 <= int(part) <= 100:
            raise BadParameter(f"--percentiles takes whole numbers from 0 to 100 separated by commas, not '{text}'")
        out.append(int(part))
    return tuple(dict.fromkeys(out))


def _draw(chart: Chart, shown: Shown) -> None:
    if shown.plot is None or shown.chart is None:
        return
    from interpreter.cli.charts import write_chart

    write_chart(chart, shown.plot, shown.chart, replace=shown.force)


def _foreseen_crowded(parsed: DiceExpr, plot: str) -> None:
    """Refuse a chart of an expression before its odds are worked out when its text foretells far more values
    than a chart draws (CROWDED times limits.MAX_CHART_VALUES: the odds alone would cost seconds)."""
    from interpreter import limits
    from interpreter.dice.size import LENIENT, size_of

    values = size_of(parsed.tree, {}, 0, LENIENT).values
    if values > CROWDED * limits.MAX_CHART_VALUES:
        raise BadParameter(f"--plot: {plot} would draw up to {values:,} values, more than the "
                           f"{limits.MAX_CHART_VALUES:,} a chart draws",
                           hint="give --csv (or --json) for every value, or plot fewer dice")


def _wrote(shown: Shown) -> None:
    if shown.plot is not None and not shown.as_json and not shown.as_csv:
        output.echo(f"chart written to {shown.plot}")


def expression(expr: str, view: View, as_json: bool, as_csv: bool, plot: str | None, chart: str | None,
               force: bool = False) -> None:
    """The odds of a dice expression."""
    from interpreter.cli import odds_text, render
    from interpreter.dice import expr as dice

    shown = Shown(as_json, as_csv, plot, chart, None, force)
    parsed = dice.parse(expr)
    if chart is not None and plot is not None:
        _foreseen_crowded(parsed, plot)  # told from the text, before the plotting library is even imported
        from interpreter.cli.charts import require

        require()  # before any work: a missing extra is said at once
    from interpreter.cli.rolls import show_warnings

    with Progress("rules odds", quiet=as_json):
        dist = parsed.distribution({})
    if chart is not None:
        from interpreter.cli.chart_data import expression_chart

        _draw(expression_chart(expr, dist, view), shown)
    if as_json:
        data = render.expression_odds_json(expr, dist, render.sides(view.at_least, view.at_most))
        if plot is not None:
            data["plot"] = plot
        show_warnings(parsed, data)
        output.print_json(data)
    elif as_csv:
        from interpreter.cli.sweep_text import distribution_csv

        show_warnings(parsed, None)
        output.echo(distribution_csv([("value", dict(dist.probs), False)]), nl=False)
    else:
        show_warnings(parsed, None)
        output.echo(odds_text.expression_text(expr, dist, view, output.can_show("█")))
    _wrote(shown)


def are_expressions(first: str) -> bool:
    """Whether the words of `rules odds` are dice expressions: the first names no ruleset (an id or a file)
    and reads as a dice expression naming nothing (`d20+bonus` could be a misspelt ruleset, and has no odds
    without a bonus). A ruleset always wins: a file named `3d6` is read as a ruleset."""
    from interpreter.dice import expr as dice
    from interpreter.errors import RulesError
    from interpreter.load.bundled import bundled_ids

    if first in bundled_ids():
        return False
    try:
        if dice.parse(first).names:
            return False
    except RulesError:
        return False  # neither: the ruleset's error, with its suggestion, is the one to see
    from interpreter.load.find import find  # (only now: looking for files costs a start more imports)

    try:
        find(first)
    except RulesError:
        return True
    return False


@contextlib.contextmanager
def _which(index: int, text: str) -> Iterator[None]:
    """The work on one expression of several: a mistake in it says which expression it is in."""
    from interpreter.errors import Location, RulesError
    from interpreter.hints import shown as quoted

    try:
        yield
    except RulesError as err:
        at = err.where or Location("<expr>")
        err.where = Location(at.file, at.line, at.col, f"expression {index} {quoted(text)}", at.source)
        raise


def _compared(exprs: Sequence[str], quiet: bool) -> list[tuple[Compared, DiceExpr]]:
    """Each expression parsed (all of them before any is worked out), with its distribution; `quiet`: no progress."""
    from interpreter.cli.compare import Compared
    from interpreter.dice import expr as dice

    parsed = []
    for i, text in enumerate(exprs, 1):
        with _which(i, text):
            parsed.append(dice.parse(text))
    out = []
    with Progress("rules odds", len(exprs), " expressions", quiet=quiet) as progress:
        for i, (text, p) in enumerate(zip(exprs, parsed, strict=True), 1):
            progress.step()
            with _which(i, text):
                out.append((Compared(text, p.distribution({})), p))
    return out


def expressions(exprs: Sequence[str], view: View, shown: Shown) -> None:
    """The odds of several dice expressions side by side: one table, a summary of each, one chart."""
    from interpreter.cli import render
    from interpreter.cli.compare import compare_text
    from interpreter.cli.rolls import show_warnings

    if shown.chart is not None:
        from interpreter.cli.charts import require

        require()
    pairs = _compared(exprs, shown.as_json)
    compared, parsed = [c for c, _ in pairs], [p for _, p in pairs]
    if shown.chart is not None:
        from interpreter.cli.chart_data import comparison_chart

        _draw(comparison_chart(compared, view), shown)
    if shown.as_json:
        each = []
        for c, p in zip(compared, parsed, strict=True):
            item = render.expression_odds_json(c.expr, c.dist, render.sides(view.at_least, view.at_most))
            show_warnings(p, item)
            each.append(item)
        data: dict[str, object] = {"expressions": each}
        if shown.plot is not None:
            data["plot"] = shown.plot
        output.print_json(data)
        return
    for p in parsed:
        show_warnings(p, None)
    if shown.as_csv:
        from interpreter.cli.sweep_text import distribution_csv

        output.echo(distribution_csv([(c.expr, c.probs, False) for c in compared]), nl=False)
    else:
        output.echo(compare_text(compared, view))
    _wrote(shown)


def procedure(rs: CompiledRuleset, name: str, params: Sequence[str], sheet: str | None, view: View, shown: Shown,
              where: str | None = None) -> None:
    """The odds of a procedure, or of a sweep of it when a parameter names several values; with `where`, the
    chance of that condition too."""
    from interpreter.cli.ranges import parse_sweep
    from interpreter.ruleset.params import find_procedure

    pools = frozenset(p.name for p in find_procedure(rs, name).params if p.type == "dice")
    fixed, axes = parse_sweep(params, pools)
    condition = _condition(rs, name, where, bool(axes))
    percentiles = _percentiles(shown.percentiles)
    if percentiles and not axes:
        raise UsageMistake("--percentiles is for a sweep (a parameter given as A..B or a,b,c)")
    if shown.chart is not None:
        from interpreter.cli.charts import require

        require()
    bound = None
    if sheet is not None:
        from interpreter.sheet import session
        from interpreter.sheet.file import SheetFile

        handle = SheetFile.read(sheet)
        bound = session.bound(rs, handle.data, handle.doc, name)
        note = session.kin(rs, handle.data, handle.doc)
        if note is not None:
            output.echo(note, err=True)
    if axes:
        _sweep(rs, name, fixed, axes, bound, view, shown, percentiles)
        return
    from interpreter.cli import odds_text, render
    from interpreter.procedure.odds import odds

    with Progress("rules odds", quiet=shown.as_json):
        result = odds(rs, name, parse_assignments(params), bound, condition)
    if shown.chart is not None:
        from interpreter.cli.chart_data import odds_chart

        _draw(odds_chart(result, view), shown)
    if shown.as_json:
        out = render.odds_json(result, render.sides(view.at_least, view.at_most))
        if view.outcomes_only:
            out.pop("values")
        if shown.plot is not None:
            out["plot"] = shown.plot
        if where is not None:
            out["where"] = render.where_json(where, result.where)
        output.print_json(out)
    elif shown.as_csv:
        from interpreter.cli.sweep_text import distribution_csv

        parts = [("outcome", result.outcomes, True)]
        if not view.outcomes_only:
            parts += [(value, dist, False) for value, dist in result.values.items()]
        output.echo(distribution_csv(parts), nl=False)
    else:
        output.echo(odds_text.procedure_text(result, view, output.can_show("█")))
        if where is not None and result.where is not None:
            output.echo(odds_text.where_text(where, result.where, output.can_show("█")))
    _wrote(shown)


def _condition(rs: CompiledRuleset, name: str, where: str | None, swept: bool) -> Formula | None:
    """The condition `--where` asks about, compiled (a located error for a mistake in it)."""
    if where is None:
        return None
    if swept:
        raise UsageMistake("--where gives one chance: give each parameter one value, not a sweep")
    from interpreter.procedure.events import compile_where
    from interpreter.ruleset.params import find_procedure

    return compile_where(rs, find_procedure(rs, name), where)


def _sweep(rs: CompiledRuleset, name: str, fixed: dict[str, str], axes: Any, bound: Any, view: View, shown: Shown,
           percentiles: tuple[int, ...]) -> None:
    from interpreter.cli import sweep_text
    from interpreter.procedure.sweep import sweep

    total = math.prod(len(values) for _, values in axes)
    with Progress("rules odds", total, " points", quiet=shown.as_json) as progress:
        result = sweep(rs, name, fixed, axes, bound, progress.step)
    if shown.chart is not None:
        from interpreter.cli.chart_data import sweep_chart

        _draw(sweep_chart(result, view), shown)
    if shown.as_json:
        data = sweep_text.sweep_json(result, fixed, view)
        if shown.plot is not None:
            data["plot"] = shown.plot
        output.print_json(data)
    elif shown.as_csv:
        output.echo(sweep_text.sweep_csv(result, view, percentiles), nl=False)
    else:
        output.echo(sweep_text.sweep_text(result, view, percentiles))
    _wrote(shown)


__all__ = ["CHART_FORMATS", "Shown", "are_expressions", "chart_format", "expression", "expressions", "odds_view", "procedure"]
