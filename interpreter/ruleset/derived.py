"""The values that follow from a character's: derived values, box-track numbers, resource maxima, statuses.

A sheet bound for a procedure is a set of names (see sheet.bind); these functions recompute
what follows from them, in place, whenever a step changes one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from interpreter import limits
from interpreter.errors import LimitExceeded
from interpreter.ruleset.model import CompiledRuleset
from interpreter.ruleset.tables import table_functions
from interpreter.ruleset.tracks import MARKS, box_numbers, sorted_marks

if TYPE_CHECKING:
    from interpreter.load.document import Document


def evaluate_derived(ruleset: CompiledRuleset, env: dict[str, object], with_state: bool = True) -> None:
    """Compute every derived value from the traits (and state values) in env, in dependency order.

    Without ``with_state`` the derived values that read sheet state are left out (the state
    values are not bound yet: their defaults may use the other derived values).
    """
    pending = {name: d for name, d in ruleset.derived.items() if with_state or not d.state}
    functions = table_functions(ruleset)
    for _ in range(len(pending) + 1):
        if not pending:
            return
        waiting = set(pending)
        for name, derived in list(pending.items()):
            if derived.formula is not None and not derived.formula.names.isdisjoint(waiting - {name}):
                continue
            env[name] = derived.formula.evaluate(env, functions) if derived.formula is not None else 0
            del pending[name]
            waiting.discard(name)


def refresh(ruleset: CompiledRuleset, env: dict[str, Any], doc: Document | None = None) -> None:
    """Recompute what follows from the sheet's values: derived values, box tracks, resource maxima.

    A box track's size is refused past ``limits.MAX_TRACK_BOXES`` (at the sheet's trait that makes
    it so, when ``doc`` is the sheet's document), before any box is made.
    """
    spec = ruleset.sheet
    assert spec is not None, "only a ruleset with a sheet section binds sheets"
    evaluate_derived(ruleset, env)
    functions = table_functions(ruleset)
    for track in spec.tracks.values():
        if track.kind == "boxes":
            assert track.size is not None, "a box track has a size"
            size = max(0, int(track.size.evaluate(env, functions)))
            if size > limits.MAX_TRACK_BOXES:
                cause = next((("traits", n) for n in ruleset.traits if n in track.size.names), ("state", track.name))
                raise LimitExceeded(f"track '{track.name}' would have {size} boxes ({track.size.text}); "
                                    f"a track has at most {limits.MAX_TRACK_BOXES}",
                                    doc.where(cause) if doc is not None else track.size.where)
            marks = sorted_marks(list(env.get(MARKS + track.name, ())), size)
            env[MARKS + track.name] = marks
            env.update(box_numbers(track, marks))
        else:
            env[f"{track.name}_max"] = max(0, env[f"{track.name}_max"])
            env[f"{track.name}_current"] = max(0, min(env[f"{track.name}_current"], env[f"{track.name}_max"]))
    for resource in spec.resources.values():
        top = resource.max.evaluate(env, functions)
        env[f"{resource.name}_max"] = top
        env[resource.name] = max(0, min(env[resource.name], top))
    for name, value in spec.state.items():
        if value.minimum is not None and env[name] < value.minimum:
            env[name] = value.minimum
        if value.maximum is not None and env[name] > value.maximum:
            env[name] = value.maximum


def statuses(ruleset: CompiledRuleset, env: Mapping[str, object]) -> list[str]:
    """The names of the status conditions that hold."""
    spec = ruleset.sheet
    if spec is None:
        return []
    functions = table_functions(ruleset)
    return [name for name, f in spec.status.items() if f.evaluate(env, functions)]


def final_states(ruleset: CompiledRuleset, env: Mapping[str, object]) -> list[str]:
    """The names of the final states (states that end play, such as dead) that hold."""
    spec = ruleset.sheet
    if spec is None or not spec.final:
        return []
    functions = table_functions(ruleset)
    return [name for name, state in spec.final.items() if state.when.evaluate(env, functions)]

