"""`rules diff BASE HOUSE [PROCEDURE [NAME=VALUE...]]`: what a house ruleset changes, and what that does to the odds."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import click

from interpreter.cli import output
from interpreter.cli.arguments import parse_assignments
from interpreter.cli.examples import ExampleCommand, examples
from interpreter.cli.help import json_option
from interpreter.errors import RulesError
from interpreter.pipeline import compile_ref, document
from interpreter.procedure.compare import Comparison, Pair, Sheet, compare
from interpreter.ruleset.changes import MISSING, Change, affected, changes
from interpreter.ruleset.model import Ruleset
from interpreter.ruleset.params import find_procedure
from interpreter.ruleset.samples import as_arguments, shown

ARROW = "→"


def _typed(args: Mapping[str, str]) -> dict[str, Any]:
    """Parameters as JSON shows them: whole numbers as numbers, the rest as typed."""
    out: dict[str, Any] = {}
    for name, text in args.items():
        try:
            out[name] = int(text)
        except ValueError:
            out[name] = {"true": True, "false": False}.get(text, text)
    return out


def _cases(base: Ruleset, house: Ruleset, names: list[str], given: dict[str, str] | None
           ) -> tuple[list[tuple[str, dict[str, str]]], list[dict[str, Any]]]:
    """(procedure, arguments) to compare, and the procedures left out with the reason."""
    cases, skipped = [], []
    for name in names:
        if name not in base.procedures or name not in house.procedures:
            skipped.append({"procedure": name, "reason": "only in " + (house.id if name in house.procedures
                                                                        else base.id)})
            continue
        if given:
            cases.append((name, given))
            continue
        proc = house.procedures[name]
        samples = proc.samples or base.procedures[name].samples
        if samples:
            cases += [(name, as_arguments(s)) for s in samples]
        elif any(p.required for p in proc.params):
            skipped.append({"procedure": name, "reason": "no samples: name it with parameters"})
        else:
            cases.append((name, {}))
    return cases, skipped


def _fresh_sheet(rs: Ruleset) -> Sheet | None:
    """A new character of a ruleset, as `rules sheet new` writes it; None when it cannot be made."""
    from interpreter.load.yaml import load_text
    from interpreter.sheet.session import bound
    from interpreter.sheet.spread import new_sheet

    try:
        doc = load_text(new_sheet(rs, "New character", None, rs.file), rs.file)
        return bound(rs, doc.data, doc)
    except RulesError:
        return None


def compare_all(base_ref: str, house_ref: str, procedure: str | None, params: Sequence[str]
                ) -> tuple[Ruleset, Ruleset, list[Change], list[Comparison], list[dict[str, Any]]]:
    """Both rulesets, the changed values, the odds of every case, and what was left out."""
    base, house = compile_ref(base_ref), compile_ref(house_ref)
    before, after = document(base_ref).data, document(house_ref).data
    found = changes(before, after)
    if procedure is not None:
        for rs in (base, house):
            find_procedure(rs, procedure)  # raises with a suggestion when it has none
        names = [procedure]
    else:
        names = affected(before, after)
    cases, skipped = _cases(base, house, names, parse_assignments(params) if params else None)
    sheets: tuple[Sheet | None, Sheet | None] | None = None
    odds = []
    for name, args in cases:
        if house.procedures[name].sheet == "required" and sheets is None:
            sheets = (_fresh_sheet(base), _fresh_sheet(house))
        try:
            odds.append(compare(base, house, name, args, sheets or (None, None)))
        except RulesError as err:
            if procedure is not None:
                raise
            skipped.append({"procedure": name, "params": _typed(args), "reason": err.message})
    return base, house, found, odds, skipped


def _number(value: Any) -> Any:
    if value is MISSING:
        return None
    return value


def _pairs(pairs: Mapping[str, Pair]) -> dict[str, dict[str, Any]]:
    return {k: {"before": None if p.before is None else float(p.before),
                "after": None if p.after is None else float(p.after), "difference": p.difference}
            for k, p in pairs.items()}


def _fraction(value: Fraction | float | None) -> str | None:
    if value is None:
        return None
    f = Fraction(value)
    return f"{f.numerator}/{f.denominator}"


def to_json(base: Ruleset, house: Ruleset, found: list[Change], odds: list[Comparison],
            skipped: list[dict[str, Any]]) -> dict[str, Any]:
    """The contract's object: base, house, changes, odds (and what was skipped)."""
    out_odds = []
    for c in odds:
        entry: dict[str, Any] = {"procedure": c.procedure, "params": _typed(c.params),
                                 "outcomes": _pairs(c.outcomes), "values": _pairs(c.values)}
        if c.exact:
            entry["exact"] = {
                part: {k: {"before": _fraction(p.before), "after": _fraction(p.after)} for k, p in pairs.items()}
                for part, pairs in (("outcomes", c.outcomes), ("values", c.values))}
        out_odds.append(entry)
    return {"base": base.id, "house": house.id,
            "changes": [{"path": ch.path, "before": _number(ch.before), "after": _number(ch.after), "kind": ch.kind}
                        for ch in found],
            "odds": out_odds, "skipped": skipped}


_WIDE = 72  # a value wider than this is summarised in text; --json keeps it whole


def _value(value: Any) -> str:
    if value is MISSING:
        return "(none)"
    text = json.dumps(value, ensure_ascii=False)
    if len(text) <= _WIDE:
        return text
    if isinstance(value, dict):  # its keys, as far as they fit
        keys = ", ".join(value)
        return "{" + (keys if len(keys) <= _WIDE else keys[: _WIDE - 3] + "...") + "}"
    if isinstance(value, list):
        return f"[{len(value)} items]"
    return text[: _WIDE - 3] + "..."


_TINY = 1e-12  # differences below this are rounding, not a change


def _signed(value: float, places: int) -> str:
    """A difference with its sign; rounding noise shows as 0."""
    return f"{0.0 if abs(value) < _TINY else value:+.{places}f}"


def _percent(p: Fraction | float | None) -> str:
    return "-" if p is None else f"{float(p) * 100:.2f}%"


def to_text(base: Ruleset, house: Ruleset, found: list[Change], odds: list[Comparison],
            skipped: list[dict[str, Any]]) -> str:
    """The diff for a reader: changed values, then each case's outcomes and means."""
    lines = [f"{base.id} {ARROW} {house.id}", "", "Changed values:"]
    lines += [f"  {ch.path}: {_value(ch.before)} {ARROW} {_value(ch.after)}" for ch in found] or ["  (none)"]
    lines += ["", "Odds:"]
    if not odds:
        lines.append("  (no procedure behaves differently)")
    for c in odds:
        label = f"{c.procedure} {shown(c.params)}".rstrip()
        if all(abs(p.difference) < _TINY for p in [*c.outcomes.values(), *c.values.values()]):
            lines.append(f"  {label}: the same odds")
            continue
        outcomes = {k: p for k, p in c.outcomes.items() if p.before or p.after}
        values = {f"{k} (mean)": p for k, p in c.values.items() if p.before or p.after}
        width = max(len(k) for k in [*outcomes, *values, "outcome"])
        lines.append(f"  {label}")
        lines.append(f"    {'outcome':<{width}}  {'before':>8}  {'after':>8}  {'change':>8}")
        for name, p in outcomes.items():
            lines.append(f"    {name:<{width}}  {_percent(p.before):>8}  {_percent(p.after):>8}  "
                         f"{_signed(p.difference * 100, 2):>8}")
        for name, p in values.items():
            old = "-" if p.before is None else f"{float(p.before):.3f}"
            new = "-" if p.after is None else f"{float(p.after):.3f}"
            lines.append(f"    {name:<{width}}  {old:>8}  {new:>8}  {_signed(p.difference, 3):>8}")
    for s in skipped:
        label = f"{s['procedure']} {shown(s.get('params', {}))}".rstrip()
        lines.append(f"  {label}: not compared ({s['reason']})")
    if any(house.procedures[c.procedure].sheet == "required" for c in odds):
        lines += ["", ("Procedures that work on a character sheet ran on a new character of each ruleset "
                       "(as `rules sheet new` writes it).")]
    return "\n".join(lines)


@click.command("diff", cls=ExampleCommand, epilog=examples("rules diff {ruleset} my-{ruleset}.yaml",
                                      "rules diff {ruleset} my-{ruleset}.yaml {procedure} {params} --json"))
@click.argument("base")
@click.argument("house")
@click.argument("procedure", required=False)
@click.argument("params", nargs=-1)
@json_option
def diff(base: str, house: str, procedure: str | None, params: Sequence[str], as_json: bool) -> None:
    """Compare two rulesets (ids or paths): every changed value, and the odds of every procedure
    whose behaviour may differ, at its samples (or at NAME=VALUE for the PROCEDURE named)."""
    base_rs, house_rs, found, odds, skipped = compare_all(base, house, procedure, params)
    if as_json:
        output.print_json(to_json(base_rs, house_rs, found, odds, skipped))
    else:
        output.echo(to_text(base_rs, house_rs, found, odds, skipped))


__all__ = ["compare_all", "diff", "to_json", "to_text"]
