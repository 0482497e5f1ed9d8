"""What a hover shows: a procedure (summary, parameters, outcomes, exact odds at its samples), a trait,
a constant (its value, what it overrides, where it is used), a derived value, a table, a dice expression."""

from __future__ import annotations

import re
from collections.abc import Callable

from interpreter.lsp.context import Place, words_in
from interpreter.ruleset.kind import naming
from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset, Param

__all__ = ["MAX_SAMPLES", "hover_text", "person_text"]

_DICE = re.compile(r"\d*d(\d+|F|\{)")
MAX_SAMPLES = 12  # samples a procedure's hover computes odds for (the rest are counted)


def person_text(text: str, ruleset: CompiledRuleset) -> str:
    """A text of the ruleset as a person reads it: where its `{name}` placeholders are to be filled.

    Every summary and help a hover or a completion shows passes through here; today it is shown as written.
    """
    del ruleset
    return text


def _default(p: Param) -> str:
    """A parameter's default as it is written: a choice's word, not the number it stands for."""
    if p.type == "choice":
        word = next((w for w, n in p.options.items() if n == p.default), None)
        if word is not None:
            return str(word)
    return str(p.default)


def _procedure(ruleset: CompiledRuleset, proc: CompiledProcedure, odds: Callable[[str, dict[str, str]], str]) -> str:
    from interpreter.ruleset.samples import as_arguments, shown

    lines = [f"**{proc.name}** (procedure): {person_text(proc.summary, ruleset)}".rstrip(": "), ""]
    if proc.params:
        lines.append("Parameters:")
        for p in proc.params:
            bits = [p.type] + ([f"default {_default(p)}"] if not p.required else [])
            if p.minimum is not None or p.maximum is not None:
                bits.append(f"{'' if p.minimum is None else p.minimum}..{'' if p.maximum is None else p.maximum}")
            lines.append(f"- `{p.name}` ({', '.join(bits)})" + (f": {person_text(p.help, ruleset)}" if p.help else ""))
    lines.append("Outcomes, best first: " + ", ".join(
        f"`{o}`" + (f" ({person_text(proc.outcome_help[o], ruleset)})" if proc.outcome_help.get(o) else "")
        for o in proc.outcomes))
    if proc.values:
        lines.append("Values: " + ", ".join(f"`{v}`" for v in proc.values))
    samples = list(proc.samples) or ([{}] if all(not p.required for p in proc.params) else [])
    if samples:
        lines += ["", "Exact odds:"]
        for sample in samples[:MAX_SAMPLES]:
            call = f"{proc.name} {shown(sample)}".strip()
            lines.append(f"- `{call}`: {odds(proc.name, as_arguments(sample))}")
        if len(samples) > MAX_SAMPLES:
            lines.append(f"- and {len(samples) - MAX_SAMPLES} more samples (`rules odds {proc.name}` gives any)")
    else:
        lines += ["", "No samples: add `samples:` to see its odds here."]
    return "\n".join(lines)


def _uses(lines: list[str], name: str) -> int:
    return sum(1 for line in lines for word, _ in words_in(line) if word == name)


def _constant(ruleset: CompiledRuleset, name: str, base: CompiledRuleset | None, files: list[tuple[str, list[str]]]) -> str:
    value = ruleset.constants[name]
    text = [f"**{name}** (constant) = `{value}`"]
    if base is not None and name in base.constants and base.constants[name] != value:
        text.append(f"overrides `{base.constants[name]}` of {base.id}")
    elif base is not None and name in base.constants:
        text.append(f"as in {base.id}")
    counts = [(shown, _uses(lines, name)) for shown, lines in files]
    text.append("used " + ", ".join(f"{n} time{'s' if n != 1 else ''} in {shown}" for shown, n in counts))
    return "\n\n".join(text)


def _dice(text: str, ruleset: CompiledRuleset | None) -> str | None:
    """A dice expression's mean and range, when its distribution is small enough to build here (told first)."""
    from interpreter.dice.counted import expand_counts
    from interpreter.dice.expr import parse
    from interpreter.dice.size import size_of
    from interpreter.errors import RulesError

    env: dict[str, object] = dict(ruleset.constants) if ruleset is not None else {}
    try:
        expr = parse(expand_counts(text, ruleset.dice) if ruleset is not None else text)
    except (RulesError, KeyError, TypeError, ValueError):
        return None
    size = size_of(expr.tree, {**(dict(ruleset.dice) if ruleset is not None else {}), **env})
    if not size.fits:
        return (f"`{text}`: up to {size.values:,} values, from {size.low} to {size.high}: too many to compute "
                "here (`rules odds` tells whether it can be computed at all)")
    try:
        dist = expr.distribution(env)
    except (RulesError, KeyError, TypeError, ValueError):
        return None
    values = dist.values
    if not values:
        return None
    return f"`{text}`: mean {dist.mean:.4g}, from {values[0]} to {values[-1]}"


def hover_text(ruleset: CompiledRuleset, word: str, place: Place, row: str, lines: list[str],
               odds: Callable[[str, dict[str, str]], str], base: CompiledRuleset | None = None,
               bases: list[tuple[str, list[str]]] | None = None) -> str | None:
    """The hover for a word at a place, or None when there is nothing to say.

    ``bases`` are the files an overlay extends, as (name, lines): a constant's uses are counted there too.
    """
    keys = place.keys
    in_procedures = keys[:1] == ("procedures",) and len(keys) == 1
    if word in ruleset.procedures and (in_procedures or place.key in naming(ruleset.kinds, "procedure")
                                       or place.key == "procedure"):
        return _procedure(ruleset, ruleset.procedures[word], odds)
    if word in ruleset.traits:
        t = ruleset.traits[word]
        span = f"{'' if t.minimum is None else t.minimum} to {'' if t.maximum is None else t.maximum}"
        return (f"**{t.name}** (trait): {person_text(t.label, ruleset)}, group `{t.group}`, {span}"
                + (f", default {t.default}" if t.default is not None else ""))
    if word in ruleset.constants:
        return _constant(ruleset, word, base, [("this file", lines), *(bases or [])])
    if word in ruleset.derived:
        d = ruleset.derived[word]
        return f"**{d.name}** (derived): {person_text(d.label, ruleset)}"
    if word in ruleset.tables:
        table = ruleset.tables[word]
        return f"**{table.name}** (table): {person_text(table.summary, ruleset)} ({len(table.rows)} rows)"
    if word in ruleset.dice:
        written = _written_dice(lines, word)
        return _dice(written, ruleset) if written else None
    value = re.sub(r"\s#.*$", "", row.split(":", 1)[1]).strip() if ":" in row else ""
    value = value.strip("{}").split(",")[0].split(":")[-1].strip() if value.startswith("{") else value
    if value and _DICE.search(value):
        return _dice(value, ruleset)
    return None


def _written_dice(lines: list[str], name: str) -> str | None:
    """The expression a name of the `dice:` section is written as."""
    in_dice = False
    for line in lines:
        if re.match(r"[A-Za-z_]", line):
            in_dice = line.startswith("dice:")
            continue
        found = re.match(rf"\s+{re.escape(name)}\s*:\s*([^#]+)", line)
        if in_dice and found:
            return found.group(1).strip().strip("'\"")
    return None
