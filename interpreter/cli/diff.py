"""`rules diff BASE HOUSE [PROCEDURE [NAME=VALUE...]]`: what a house ruleset changes, and what that does to the odds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import click

from interpreter import budget, limits
from interpreter.cli import complete, output
from interpreter.cli.arguments import parse_assignments
from interpreter.cli.diff_cases import (
    Characters,
    Diff,
    bind_to,
    compare_case,
    new_character,
    probes,
    reached,
    sheet_changes,
    thresholds,
)
from interpreter.cli.examples import ExampleCommand, examples
from interpreter.cli.help import json_option
from interpreter.cli.progress import Progress
from interpreter.errors import RulesError
from interpreter.pipeline import compile_ref, document
from interpreter.procedure.compare import Comparison, Pair
from interpreter.ruleset.changes import MISSING, affected, changes, touched_effects
from interpreter.ruleset.model import CompiledRuleset
from interpreter.ruleset.params import find_procedure
from interpreter.ruleset.samples import as_arguments
from interpreter.words import value_text


def _samples(base: CompiledRuleset, house: CompiledRuleset, name: str, given: dict[str, str] | None
             ) -> tuple[list[dict[str, str]], str | None]:
    """The parameter sets a procedure is compared at first (its samples, or those given), or why it is left out."""
    if given:
        return [given], None
    proc = house.procedures.get(name) or base.procedures[name]
    samples = proc.samples or (base.procedures[name].samples if name in base.procedures else ())
    if samples:
        return [as_arguments(s) for s in samples], None
    if any(p.required for p in proc.params):
        return [], "no samples: name it with parameters"
    return [{}], None


def _people(base: CompiledRuleset, house: CompiledRuleset, sheet: str | None) -> Characters:
    if sheet is None:
        made = [new_character(rs) for rs in (base, house)]
        bound = [bind_to(rs, *m) if m is not None else None for rs, m in zip((base, house), made, strict=True)]
        return Characters(bound[0], bound[1], False)
    from interpreter.cli.diff_fit import fitted
    from interpreter.sheet.file import SheetFile

    handle = SheetFile.read(sheet)
    # a side the sheet no longer fits reads it adapted (diff_fit); what cannot be adapted is refused, at its place
    (old, old_data, old_unfit), (new, new_data, new_unfit) = (fitted(rs, handle.data, handle.doc) for rs in (base, house))
    return Characters(old, new, True, (old_data, new_data), handle.doc, (old_unfit, new_unfit))


def compare_all(base_ref: str, house_ref: str, procedure: str | None, params: Sequence[str],
                sheet: str | None = None, progress: Progress | None = None) -> Diff:
    """Both rulesets, the changed values, the odds of every case, and what was left out; `progress` counts the cases."""
    base, house = compile_ref(base_ref), compile_ref(house_ref)
    before, after = document(base_ref).data, document(house_ref).data
    found = changes(before, after)
    touched = touched_effects(before, after)
    if procedure is not None:
        if procedure not in base.procedures and procedure not in house.procedures:
            find_procedure(house, procedure)  # raises with a suggestion
        names = [procedure]
    else:
        names = affected(before, after, reached(base, house))
    given = parse_assignments(params) if params else None
    job = _Job(base, house, procedure is not None, _people(base, house, sheet), progress)
    plan = []  # (procedure, samples, probes, probes at the comparisons, tried only where nothing else differs)
    for name in names:
        samples, why = _samples(base, house, name, given)
        if why is not None:
            job.skipped.append({"procedure": name, "reason": why})
        more = given is None and bool(samples)
        plan.append((name, samples, probes(before, after, found, touched, base, house, name, samples[0]) if more else [],
                     thresholds(after, found, house, name, samples[0]) if more else []))
    if progress is not None:
        progress.total = min(limits.MAX_DIFF_CASES, sum(len(a) + len(b) + len(c) for _, a, b, c in plan))
    job.total = min(limits.MAX_DIFF_CASES, sum(len(a) + len(b) for _, a, b, _ in plan))  # the cases sure to run
    for order, (name, samples, tried, _) in enumerate(plan):
        job.order = order
        for args in samples:
            job.case(name, args, True)
        job.probe(name, tried)
    # then the comparisons' probes, of the procedures nothing else showed a difference in
    job.total = min(limits.MAX_DIFF_CASES, job.count + sum(len(c) for n, _, _, c in plan if not job.changed(n)))
    for order, (name, _, _, at_comparisons) in enumerate(plan):
        job.order = order
        job.probe(name, at_comparisons if not job.changed(name) else [], stop_at_first=True, planned=len(at_comparisons))
    odds, notes = job.in_order()
    character = sheet_changes(base, house, job.people) if sheet is not None else []
    effects = {e: sorted(n for n in names if any(e in (rs.procedures[n].effects if n in rs.procedures else ())
                                                 for rs in (base, house))) for e in touched}
    return Diff(base, house, found, odds, job.skipped, notes, job.people, character, sheet,
                _warned(house, house_ref), effects, job.cut)


class _Job:
    """The cases compared so far, within limits.MAX_DIFF_CASES: what they found and what was left out."""

    def __init__(self, base: CompiledRuleset, house: CompiledRuleset, named: bool, people: Characters,
                 progress: Progress | None) -> None:
        self.base, self.house, self.named, self.people, self.progress = base, house, named, people, progress
        self.odds: list[Comparison] = []
        self.kept: list[tuple[int, str | None]] = []  # beside each comparison: its procedure's place, and its note
        self.skipped: list[dict[str, Any]] = []
        self.seen: set[tuple[str, str]] = set()  # (procedure, what its comparison found): a probe that repeats one is left out
        self.count = 0  # cases compared, of the `total` foreseen (the budget counts them)
        self.total = 0
        self.order = 0  # the place of the procedure being compared, among those compared
        self.cut: list[str] = []  # procedures whose cases beyond the samples the limit left out

    def changed(self, name: str) -> bool:
        return any(c.procedure == name and c.changed for c in self.odds)

    def case(self, name: str, args: dict[str, str], sample: bool) -> bool:
        """Compare one case; whether it was kept. A probe (not a sample) is kept only where it shows something new."""
        if self.count >= limits.MAX_DIFF_CASES:
            if sample:
                self.skipped.append({"procedure": name, "params": output.typed_params(args), "reason":
                                     f"the diff compares at most {limits.MAX_DIFF_CASES} cases (MAX_DIFF_CASES): "
                                     "name the procedure to compare it alone"})
            elif name not in self.cut and any(c.procedure == name for c in self.odds):
                self.cut.append(name)  # (one whose samples were left out too is listed with them)
            return False
        budget.foresee(self.count, max(self.total, self.count + 1))  # the whole diff has one budget (see diff below)
        self.count += 1
        if self.progress is not None:
            self.progress.step()
        try:
            compared, note = compare_case(self.base, self.house, name, args, self.people)
        except RulesError as err:
            if self.named and sample:
                raise
            if sample:
                self.skipped.append({"procedure": name, "params": output.typed_params(args), "reason": err.message})
            return False
        found_there = (name, repr((compared.outcomes, compared.distributions)))
        if not sample and (not compared.changed or found_there in self.seen):
            return False  # a case added to reach the change that shows none, or nothing new
        self.seen.add(found_there)
        self.odds.append(compared)
        self.kept.append((self.order, note))
        return True

    def in_order(self) -> tuple[list[Comparison], dict[int, str]]:
        """The comparisons procedure by procedure (a probe at a comparison comes after every other case), and
        their notes by place."""
        ranked = sorted(range(len(self.odds)), key=lambda i: self.kept[i][0])
        notes = {place: note for place, i in enumerate(ranked) if (note := self.kept[i][1]) is not None}
        return [self.odds[i] for i in ranked], notes

    def probe(self, name: str, cases: list[dict[str, str]], stop_at_first: bool = False, planned: int = 0) -> None:
        """Compare the cases (until the first kept, with `stop_at_first`); `planned`: the cases the progress counted."""
        done = 0
        for args in cases:
            done += 1
            if self.case(name, args, False) and stop_at_first:
                break
        if self.progress is not None and planned > done:
            self.progress.step(planned - done)


def _warned(house: CompiledRuleset, house_ref: str) -> dict[str, str]:
    """The changes `rules validate` warns about (a constant nothing reads), by path: the warning, hint included."""
    from interpreter.ruleset.unread import unread_constants

    if house.extends is None:
        return {}
    doc = document(house_ref)
    return {w.where.path: f"{w.message}; {w.hint}" if w.hint else w.message
            for w in unread_constants(house, doc.data, doc) if w.where is not None and w.where.path}


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
        "changes": [{"path": ch.path, "before": _number(ch.before), "after": _number(ch.after), "kind": ch.kind,
                     **({"warning": d.warned[ch.path]} if ch.path in d.warned else {})} for ch in d.found],
        "odds": out_odds, "skipped": d.skipped,
        "effects": [{"name": name, "procedures": reached} for name, reached in d.effects.items()], "cut": d.cut}
    if d.sheet is not None:
        out["sheet"] = {"file": d.sheet, "changes": [{"name": n, "before": old, "after": new}
                                                      for n, old, new in d.character],
                        "unfit": [{"ruleset": rs.id, "message": unfit}
                                  for rs, unfit in zip((d.base, d.house), d.people.unfit, strict=True) if unfit]}
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
