"""`rules diff BASE HOUSE [PROCEDURE [NAME=VALUE...]]`: what a house ruleset changes, and what that does to the odds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import click

from interpreter import budget
from interpreter.cli import complete, output
from interpreter.cli.arguments import parse_assignments
from interpreter.cli.diff_cases import (
    Characters,
    Diff,
    bind_to,
    compare_case,
    extra_cases,
    new_character,
    sheet_changes,
)
from interpreter.cli.examples import ExampleCommand, examples
from interpreter.cli.help import json_option
from interpreter.cli.progress import Progress
from interpreter.errors import RulesError
from interpreter.pipeline import compile_ref, document
from interpreter.procedure.compare import Comparison, Pair
from interpreter.ruleset.changes import MISSING, affected, changes
from interpreter.ruleset.model import CompiledRuleset
from interpreter.ruleset.params import find_procedure
from interpreter.ruleset.samples import as_arguments
from interpreter.words import value_text


def _cases(base: CompiledRuleset, house: CompiledRuleset, names: list[str], given: dict[str, str] | None
           ) -> tuple[list[tuple[str, dict[str, str], bool]], list[dict[str, Any]]]:
    """(procedure, arguments, whether it is a sample) to compare, and the procedures left out with the reason."""
    cases, skipped = [], []
    for name in names:
        if given:
            cases.append((name, given, True))
            continue
        proc = house.procedures.get(name) or base.procedures[name]
        samples = proc.samples or (base.procedures[name].samples if name in base.procedures else ())
        if samples:
            cases += [(name, as_arguments(s), True) for s in samples]
        elif any(p.required for p in proc.params):
            skipped.append({"procedure": name, "reason": "no samples: name it with parameters"})
        else:
            cases.append((name, {}, True))
    return cases, skipped


def _people(base: CompiledRuleset, house: CompiledRuleset, sheet: str | None) -> Characters:
    if sheet is None:
        made = [new_character(rs) for rs in (base, house)]
        bound = [bind_to(rs, *m) if m is not None else None for rs, m in zip((base, house), made, strict=True)]
        return Characters(bound[0], bound[1], False)
    from interpreter.sheet.file import SheetFile
    from interpreter.sheet.session import bound as bind_sheet

    handle = SheetFile.read(sheet)
    # the sheet must suit both rulesets: a refusal is the user's to see, with its place in the file
    return Characters(bind_sheet(base, handle.data, handle.doc), bind_sheet(house, handle.data, handle.doc), True,
                      handle.data, handle.doc)


def compare_all(base_ref: str, house_ref: str, procedure: str | None, params: Sequence[str],
                sheet: str | None = None, progress: Progress | None = None) -> Diff:
    """Both rulesets, the changed values, the odds of every case, and what was left out; `progress` counts the cases."""
    base, house = compile_ref(base_ref), compile_ref(house_ref)
    before, after = document(base_ref).data, document(house_ref).data
    found = changes(before, after)
    if procedure is not None:
        if procedure not in base.procedures and procedure not in house.procedures:
            find_procedure(house, procedure)  # raises with a suggestion
        names = [procedure]
    else:
        names = affected(before, after)
    cases, skipped = _cases(base, house, names, parse_assignments(params) if params else None)
    if not params:
        cases = [extra for name, args, sample in cases
                 for extra in [(name, args, sample)] + [(name, more, False) for more in
                                                        extra_cases(before, after, base, house, name, args)]]
    people = _people(base, house, sheet)
    if progress is not None:
        progress.total = len(cases)
    odds: list[Comparison] = []
    notes: dict[int, str] = {}
    seen: set[tuple[str, str]] = set()  # (procedure, what its comparison found): an extra case that repeats one is left out
    for done, (name, args, sample) in enumerate(cases):
        budget.foresee(done, len(cases))  # the whole diff has one budget (see diff below)
        if progress is not None:
            progress.step()
        try:
            compared, note = compare_case(base, house, name, args, people)
        except RulesError as err:
            if procedure is not None:
                raise
            if sample:
                skipped.append({"procedure": name, "params": output.typed_params(args), "reason": err.message})
            continue
        found_there = (name, repr((compared.outcomes, compared.distributions)))
        if not sample and (not compared.changed or found_there in seen):
            continue  # a case added to reach the change that shows none, or nothing new
        seen.add(found_there)
        if note is not None:
            notes[len(odds)] = note
        odds.append(compared)
    character = sheet_changes(base, house, people) if sheet is not None else []
    return Diff(base, house, found, odds, skipped, notes, people, character, sheet)


def _number(value: object) -> object:
    if value is MISSING:
        return None
    return value


def _pairs(pairs: Mapping[str, Pair]) -> dict[str, dict[str, object]]:
    return {k: {"before": None if p.before is None else float(p.before),
                "after": None if p.after is None else float(p.after), "difference": p.difference}
            for k, p in pairs.items()}


def _fraction(value: Fraction | float | None) -> str | None:
    if value is None:
        return None
    f = Fraction(value)
    return f"{f.numerator}/{f.denominator}"


def _side(dist: Mapping[object, Fraction | float] | None) -> dict[str, float] | None:
    return None if dist is None else {value_text(v): float(p) for v, p in dist.items()}


def to_json(d: Diff) -> dict[str, object]:
    """The contract's object: base, house, changes, odds (and what was skipped, and what it did to a sheet)."""
    out_odds = []
    for i, c in enumerate(d.odds):
        entry: dict[str, object] = {"procedure": c.procedure, "params": output.typed_params(c.params),
                                 "outcomes": _pairs(c.outcomes), "values": _pairs(c.values),
                                 "distributions": {v: {"before": _side(old), "after": _side(new)}
                                                   for v, (old, new) in c.distributions.items()},
                                 "only": c.only, "changed": c.changed}
        if i in d.notes:
            entry["note"] = d.notes[i]
        if c.exact:
            entry["exact"] = {
                part: {k: {"before": _fraction(p.before), "after": _fraction(p.after)} for k, p in pairs.items()}
                for part, pairs in (("outcomes", c.outcomes), ("values", c.values))}
        out_odds.append(entry)
    out: dict[str, object] = {
        "base": d.base.id, "house": d.house.id,
        "changes": [{"path": ch.path, "before": _number(ch.before), "after": _number(ch.after), "kind": ch.kind}
                    for ch in d.found],
        "odds": out_odds, "skipped": d.skipped}
    if d.sheet is not None:
        out["sheet"] = {"file": d.sheet, "changes": [{"name": n, "before": old, "after": new}
                                                      for n, old, new in d.character]}
    return out


@click.command("diff", cls=ExampleCommand, epilog=examples(
    "rules diff {ruleset} my-{ruleset}.yaml",
    "rules diff {ruleset} my-{ruleset}.yaml {procedure} {params} --plot diff.svg",
    "rules diff {ruleset} my-{ruleset}.yaml {procedure} {params} --json"))
@click.argument("base", shell_complete=complete.rulesets)
@click.argument("house", shell_complete=complete.rulesets)
@click.argument("procedure", required=False, shell_complete=complete.procedures)
@click.argument("params", nargs=-1, shell_complete=complete.parameters)
@click.option("--sheet", type=click.Path(dir_okay=False),
              help="Compare for this character: its derived numbers, and every procedure run with its sheet.")
@click.option("--plot", type=click.Path(dir_okay=False), metavar="FILE",
              help="Also draw before and after side by side in FILE: .svg, .png or .html (pip install \".[charts]\").")
@click.option("--force", is_flag=True, help="Let --plot replace a file that exists.")
@json_option
def diff(base: str, house: str, procedure: str | None, params: Sequence[str], sheet: str | None, plot: str | None,
         force: bool, as_json: bool) -> None:
    """Compare two rulesets (ids or paths): every changed value, and the odds of every procedure
    whose behaviour may differ, at its samples (or at NAME=VALUE for the PROCEDURE named)."""
    from interpreter.cli.odds_output import chart_format

    fmt = chart_format(plot, force)
    if fmt is not None:
        from interpreter.cli.charts import require

        require()
    with Progress("rules diff", unit=" cases", quiet=as_json) as progress, budget.command_budget(
            "this diff", "name one PROCEDURE (with NAME=VALUE) to compare it alone"):
        found = compare_all(base, house, procedure, params, sheet, progress)
    if plot is not None and fmt is not None:
        from interpreter.cli.charts import write_chart
        from interpreter.cli.diff_chart import diff_chart

        write_chart(diff_chart(found), plot, fmt, replace=force)
    if as_json:
        data = to_json(found)
        if plot is not None:
            data["plot"] = plot
        output.print_json(data)
    else:
        from interpreter.cli.diff_text import to_text

        output.echo(to_text(found))
        if plot is not None:
            output.echo(f"chart written to {plot}")


__all__ = ["Diff", "compare_all", "diff", "to_json"]
