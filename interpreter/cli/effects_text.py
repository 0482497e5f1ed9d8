"""What `rules describe` says of effects: each effect of a ruleset, and which reach a procedure and how."""

from __future__ import annotations

from typing import Any

from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset
from interpreter.ruleset.specs import RollStep, walk
from interpreter.ruleset.texts import prose


def _switched(effect: Any) -> str:
    ways = [f"`{effect.param}=true`"] if effect.param is not None else []
    if effect.when is not None:
        ways.append(f"the sheet when `{effect.when}` holds")
    ways += [f"a result of `{proc}` with `{value}` true (for the next run)" for proc, value in effect.after.items()]
    return ", ".join(ways)


def ruleset_effects(ruleset: CompiledRuleset) -> list[str]:
    """The `## Effects` section of a whole ruleset's description (nothing when it has none)."""
    if not ruleset.effects:
        return []
    lines = ["## Effects", ""]
    for effect in ruleset.effects.values():
        refs = f" ({', '.join(effect.refs)})" if effect.refs else ""
        about = prose(effect.summary, ruleset.constants) if effect.summary else effect.change()
        lines.append(f"- `{effect.name}`{refs}: {about}. Reaches {effect.selector()}; "
                     f"{effect.change()}; switched on by {_switched(effect)}"
                     + (f"; procedures with a `{effect.handled_by}` flag apply it themselves" if effect.handled_by
                        else "") + ".")
    return lines + [""]


def procedure_effects(ruleset: CompiledRuleset, proc: CompiledProcedure) -> list[str]:
    """The lines saying which effects reach a procedure, and why (nothing when none does)."""
    rolls: dict[str, dict[str, list[str]]] = {}  # effect -> what it does -> the rolls it does it to
    for step in walk(proc.steps):
        if isinstance(step.spec, RollStep):
            for r in step.spec.rolls:
                for effect, words in zip(r.effects, r.changes, strict=True):
                    rolls.setdefault(effect.name, {}).setdefault(words, []).append(r.name)
    wheres = [e.where for e in ruleset.effects.values()]
    params = {p.name for p in proc.params if p.where not in wheres}  # declared, not an effect's flag
    lines = []
    for name in proc.effects:
        effect = ruleset.effects[name]
        how = []
        for words, names in rolls.get(name, {}).items():
            how.append(f"{words} on the roll of " + ", ".join(f"`{r}`" for r in dict.fromkeys(names)))
        if effect.handled_by in params and effect.handled_by != effect.param:
            how.append(f"turns on its own `{effect.handled_by}` flag")
        elif effect.handled_by in params:
            how.append("applied by its own steps")
        how += [f"`{k}` {v:+d}" for k, v in effect.adds.items() if k in params]
        how += [f"`{k}` {v:+d} after each step that sets it (the dice as rolled)" for k, v in effect.adds.items()
                if k in proc.values and k not in params]
        how += [f"turns on `{k}`" for k in effect.flags if k in params]
        if not how:
            how.append("passed on to the procedures it calls")
        lines.append(f"- `{name}` ({_switched(effect)}): " + "; ".join(how))
    return ["Effects:", "", *lines, ""] if lines else []
