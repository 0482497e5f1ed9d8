"""What `rules sheet show` prints: a sheet's traits, derived values, tracks, resources and status."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from interpreter.hints import printable
from interpreter.ruleset.derived import statuses
from interpreter.ruleset.model import CompiledRuleset
from interpreter.ruleset.tracks import MARKS, draw
from interpreter.sheet.bind import bind
from interpreter.sheet.creation import refuse_broken
from interpreter.words import value_text

if TYPE_CHECKING:
    from interpreter.load.document import Document


def view(ruleset: CompiledRuleset, data: Mapping[str, Any], doc: Document | None = None) -> dict[str, Any]:
    """The contract's JSON object for a sheet; a sheet that breaks a standing rule is refused, as for a run."""
    refuse_broken(ruleset, data, doc)
    env = bind(ruleset, data, doc)
    out: dict[str, Any] = {
        "ruleset": ruleset.id,
        "name": data.get("name", ""),
        "traits": {name: env[name] for name in ruleset.traits},
        "derived": {name: env[name] for name in ruleset.derived},
        "tracks": {}, "resources": {}, "state": {}, "status": statuses(ruleset, env),
    }
    spec = ruleset.sheet
    if spec is None:
        return out
    for track in spec.tracks.values():
        if track.kind == "current_max":
            out["tracks"][track.name] = {"kind": "current_max", "current": env[f"{track.name}_current"],
                                         "max": env[f"{track.name}_max"]}
        else:
            marks = env[MARKS + track.name]
            out["tracks"][track.name] = {
                "kind": "boxes", "size": len(marks), "marks": [track.types[m - 1] if m else None for m in marks],
                "penalty": env[f"{track.name}_penalty"], "drawn": draw(track, marks)}
    for name in spec.resources:
        out["resources"][name] = {"value": env[name], "max": env[f"{name}_max"]}
    for name in spec.state:
        out["state"][name] = env[name]
    return out


def text(ruleset: CompiledRuleset, shown: Mapping[str, Any]) -> str:
    """The sheet as a few readable lines."""
    lines = [f"{printable(str(shown['name']))} ({printable(ruleset.title)})"]  # (one line, whatever the name holds)
    groups: dict[str, list[str]] = {}
    for name, value in shown["traits"].items():
        groups.setdefault(ruleset.traits[name].group or "traits", []).append(f"{name} {value}")
    for group, items in groups.items():
        lines.append(f"  {group}: " + ", ".join(items))
    if shown["derived"]:
        lines.append("  derived: " + ", ".join(f"{k} {v}" for k, v in shown["derived"].items()))
    for name, track in shown["tracks"].items():
        if track["kind"] == "boxes":
            extra = f"  penalty {track['penalty']}" if track["penalty"] else ""
            lines.append(f"  {name}: [{track['drawn']}]{extra}")
        else:
            lines.append(f"  {name}: {track['current']}/{track['max']}")
    for name, res in shown["resources"].items():
        lines.append(f"  {name}: {res['value']}/{res['max']}")
    if shown["state"]:
        lines.append("  " + ", ".join(f"{k} {value_text(v)}" for k, v in shown["state"].items()))
    lines.append("  status: " + (", ".join(shown["status"]) if shown["status"] else "fine"))
    return "\n".join(lines)
