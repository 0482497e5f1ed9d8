"""A Markdown reference of a ruleset, generated from its compiled form."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

from interpreter.cli.effects_text import procedure_effects, ruleset_effects
from interpreter.cli.prose import step_lines
from interpreter.ruleset import samples
from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset, Param
from interpreter.ruleset.texts import prose

Constants: TypeAlias = Mapping[str, object]  # a ruleset's constants as loaded: what {name} in a description stands for

TYPE_WORDS = {"int": "whole number", "flag": "flag (true/false)", "dice": "dice expression",
              "choice": "one of the words"}

def _refs(refs: tuple[str, ...]) -> str:
    return f" ({', '.join(refs)})" if refs else ""


def _default(p: Param) -> object:
    if p.type == "dice" and p.default is not None:
        return p.default.text
    return str(p.default).lower() if isinstance(p.default, bool) else p.default


def _range(p: Param) -> str:
    if p.minimum is not None and p.maximum is not None:
        return f"{p.minimum} to {p.maximum}"
    if p.minimum is not None:
        return f"at least {p.minimum}"
    if p.maximum is not None:
        return f"at most {p.maximum}"
    return ""


def _param_line(p: Param, c: Constants) -> str:
    parts = [TYPE_WORDS.get(p.type, p.type)]
    if _range(p):
        parts.append(_range(p))
    parts.append(f"default {_default(p)}" if not p.required else "required")
    if p.sheet_value is not None:  # the sheet wins: with --sheet the parameter is the sheet's value
        parts[-1] = f"{parts[-1]} without --sheet; with it the sheet's `{p.sheet_value}` (another value is refused)"
    if p.options:
        parts.append("words: " + ", ".join(f"{k}={v}" for k, v in p.options.items()))
    if p.one_of is not None:
        parts.append("one of " + ", ".join(map(str, p.one_of)))
    return f"- `{p.name}`: {', '.join(parts)}{' — ' + prose(p.help, c) if p.help else ''}"


def _words(proc: CompiledProcedure, value: str) -> str:
    words = proc.value_words.get(value)
    return " [" + ", ".join(f"{w}={n}" for n, w in words.items()) + "]" if words else ""


def _procedure(proc: CompiledProcedure, c: Constants, heading: str = "###", ruleset: CompiledRuleset | None = None) -> list[str]:
    lines = [f"{heading} `{proc.name}`{_refs(proc.refs)}", ""]
    if proc.summary:
        lines += [prose(proc.summary, c), ""]
    if proc.acts_on_final:
        lines += ["Acts on a sheet in a final state: " + ", ".join(f"`{s}`" for s in proc.acts_on_final), ""]
    if proc.params:
        lines.append("Parameters:")
        lines += [_param_line(p, c) for p in proc.params]
        lines.append("")
    if proc.samples:
        lines += ["Samples: " + ", ".join(f"`{samples.shown(s) or '(defaults)'}`" for s in proc.samples), ""]
    lines.append("Outcomes, best first: " + ", ".join(
        f"`{o}`" + (f" ({prose(proc.outcome_help[o], c)})" if proc.outcome_help.get(o) else "") for o in proc.outcomes))
    if proc.values:
        lines.append("")
        lines.append("Values: " + ", ".join(
            f"`{v}`" + (f" ({prose(proc.value_help[v], c)})" if proc.value_help.get(v) else "") + _words(proc, v)
            for v in proc.values))
    lines += ["", "Steps:", ""] + step_lines(proc.steps) + [""]
    return lines + (procedure_effects(ruleset, proc) if ruleset is not None else [])


def usage(ruleset: CompiledRuleset, proc: CompiledProcedure) -> str:
    """How to run a procedure from the command line."""
    words = []
    for p in proc.params:
        shown = f"{p.name}={'true' if p.type == 'flag' else p.name.upper()}"
        words.append(shown if p.required else f"[{shown}]")
    sheet = " --sheet FILE" if proc.sheet == "required" else " [--sheet FILE]" if proc.sheet != "none" else ""
    return " ".join(["rules run", ruleset.id, proc.name, *words]) + sheet


def procedure_text(ruleset: CompiledRuleset, proc: CompiledProcedure) -> str:
    """One procedure: how to run it, its parameters, outcomes, values and steps."""
    lines = [f"Usage: {usage(ruleset, proc)}", ""] + _procedure(proc, ruleset.constants, "#", ruleset)
    return "\n".join(lines).rstrip() + "\n"


def procedure_json(proc: CompiledProcedure, c: Constants | None = None) -> dict[str, object]:
    """One procedure as a JSON-ready object; `c` are the constants its descriptions may name."""
    c = c or {}
    return {
        "name": proc.name, "summary": prose(proc.summary, c), "refs": list(proc.refs), "sheet": proc.sheet,
        "acts_on_final": list(proc.acts_on_final),
        "params": [{"name": p.name, "type": p.type, "required": p.required,
                    "default": None if p.required else _default(p), "min": p.minimum, "max": p.maximum,
                    "words": dict(p.options), "help": prose(p.help, c), "sheet_value": p.sheet_value}
                   for p in proc.params],
        "outcomes": [{"name": o, "help": prose(proc.outcome_help.get(o, ""), c)} for o in proc.outcomes],
        "values": [{"name": v, "help": prose(proc.value_help.get(v, ""), c)} for v in proc.values],
        "steps": [line.strip().removeprefix("- ")
                  for line in step_lines(proc.steps)],
        "effects": list(proc.effects),
    }


def ruleset_json(ruleset: CompiledRuleset) -> dict[str, object]:
    """A ruleset's reference as a JSON-ready object: what `describe` prints, as data."""
    return {
        "ruleset": ruleset.id, "title": ruleset.title, "description": ruleset.description,
        "constants": dict(ruleset.constants), "dice": {k: v.text for k, v in ruleset.dice.items()},
        "traits": [{"name": t.name, "label": t.label, "group": t.group, "min": t.minimum, "max": t.maximum}
                   for t in ruleset.traits.values()],
        "procedures": [procedure_json(p, ruleset.constants) for p in ruleset.procedures.values()],
        "tables": [{"name": t.name, "die": t.die.text if t.die is not None else None,
                    "rows": [{"low": r.low, "high": r.high, "text": r.text} for r in t.rows]}
                   for t in ruleset.tables.values()],
        "effects": [{"name": e.name, "summary": e.summary, "refs": list(e.refs), "param": e.param,
                     "reaches": e.selector(), "change": e.change()} for e in ruleset.effects.values()],
    }


def describe(ruleset: CompiledRuleset) -> str:
    """The whole ruleset as Markdown."""
    lines = [f"# {ruleset.title} (`{ruleset.id}`)", ""]
    if ruleset.description:
        lines += [prose(ruleset.description, ruleset.constants), ""]
    lines += _extends(ruleset) + _names(ruleset) + _traits(ruleset) + _derived(ruleset) + ruleset_effects(ruleset)
    if ruleset.procedures:
        lines += ["## Procedures", ""]
        for proc in ruleset.procedures.values():
            lines += _procedure(proc, ruleset.constants, ruleset=ruleset)
    lines += _tables(ruleset)
    if ruleset.sheet is not None:
        lines += _sheet(ruleset.sheet, ruleset.constants)
    lines += _notes(ruleset)
    return "\n".join(lines).rstrip() + "\n"


def _extends(ruleset: CompiledRuleset) -> list[str]:
    if ruleset.extends is None:
        return []
    return [f"This ruleset extends {ruleset.extends}: it is that ruleset with the changes below.", "",
            f"## Changes to `{ruleset.extends}`", "",
            *([f"- `{path}` ({what})" for path, what in ruleset.changes] or ["- none"]), ""]


def _names(ruleset: CompiledRuleset) -> list[str]:
    """The constants and named dice."""
    lines: list[str] = []
    if ruleset.constants:
        lines += ["## Constants", ""] + [f"- `{k}` = {v}" for k, v in ruleset.constants.items()] + [""]
    if ruleset.dice:
        lines += ["## Named dice", ""] + [f"- `{k}` = `{v.text}`" for k, v in ruleset.dice.items()] + [""]
    return lines


def _traits(ruleset: CompiledRuleset) -> list[str]:
    if not ruleset.traits:
        return []
    lines = ["## Traits", "", "| trait | name | group | range |", "|---|---|---|---|"]
    for t in ruleset.traits.values():
        span = f"{t.minimum if t.minimum is not None else ''}–{t.maximum if t.maximum is not None else ''}"
        lines.append(f"| `{t.name}` | {t.label} | {t.group} | {span} |")
    return [*lines, ""]


def _derived(ruleset: CompiledRuleset) -> list[str]:
    if not ruleset.derived:
        return []
    lines = ["## Derived values", ""]
    for d in ruleset.derived.values():
        lines.append(f"- `{d.name}` ({d.label}) = `{d.formula.text if d.formula else ''}`{_refs(d.refs)}")
    return [*lines, ""]


def _tables(ruleset: CompiledRuleset) -> list[str]:
    c = ruleset.constants
    lines = ["## Tables", ""] if ruleset.tables else []
    for table in ruleset.tables.values():
        key = f"roll `{table.die.text}`" if table.die is not None else "keyed by number"
        lines += [f"### `{table.name}` ({key}){_refs(table.refs)}", ""]
        if table.summary:
            lines += [prose(table.summary, c), ""]
        lines += ["| key | result |", "|---|---|"]
        for row in table.rows:
            span = str(row.low) if row.low == row.high else f"{row.low}–{row.high}"
            extra = "".join(f", {n} = `{e.text}`" for n, e in row.values)
            lines.append(f"| {span} | {prose(row.text, c)}{extra} |")
        lines.append("")
    return lines


def _notes(ruleset: CompiledRuleset) -> list[str]:
    lines = ["## Other rules", ""] if ruleset.notes else []
    for note in ruleset.notes.values():
        lines += [f"### {note.title}{_refs(note.refs)}", "", prose(note.text, ruleset.constants), ""]
        lines += [f"- {k}: {_plain(v)}" for k, v in note.data.items()] + ([""] if note.data else [])
    return lines


def _sheet(spec: Any, c: Constants) -> list[str]:
    lines = ["## Character sheets", ""]
    if spec.fields:
        lines.append("Choices: " + "; ".join(
            f"`{f.name}` ({f.kind}{f', {f.count} needed' if f.count else ''}{', no repeats' if f.unique else ''})"
            + (f" — {prose(f.help, c)}" if f.help else "") for f in spec.fields.values()))
        lines.append("")
    for track in spec.tracks.values():
        if track.kind == "boxes":
            lines.append(f"- track `{track.name}`: `{track.size.text}` boxes of {', '.join(track.types)} (worst first)"
                         + (f", penalties {list(track.penalties)}" if track.penalties else ""))
        else:
            lines.append(f"- track `{track.name}`: current under a maximum starting at `{track.max.text}`")
    for res in spec.resources.values():
        lines.append(f"- resource `{res.name}`: at most `{res.max.text}`" + (f" — {prose(res.help, c)}" if res.help else ""))
    for value in spec.state.values():
        lines.append(f"- state `{value.name}` ({value.type}, starts at `{value.default.text}`)"
                     + (f" — {prose(value.help, c)}" if value.help else ""))
    for rule in spec.creation:
        if rule.kind == "budget":
            lines.append(f"- creation `{rule.name}`: {', '.join(rule.spec['traits'])} cost `{rule.spec['total'].text}` points")
        elif rule.kind == "priorities":
            budgets = "/".join(b.text for b in rule.spec["budgets"])
            lines.append(f"- creation `{rule.name}`: groups {', '.join(rule.spec['groups'])} get {budgets} by priority")
        else:
            lines.append(f"- creation `{rule.name}`: `{rule.spec['check'].text}` ({rule.spec['message']})")
    for name, f in spec.status.items():
        if name in spec.final:
            lines.append(f"- final state `{name}` when `{f.text}`: every procedure refuses the sheet unless it "
                         "lists the state under `acts_on_final`")
        else:
            lines.append(f"- status `{name}` when `{f.text}`")
    return lines + [""]


def _plain(value: object) -> str:
    if isinstance(value, list):
        return ", ".join(_plain(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_plain(v)}" for k, v in value.items())
    return str(value)
