"""A character of one ruleset read by the other side of a diff that it no longer fits.

`rules diff BASE HOUSE --sheet FILE` compares a character under both rulesets. A house rule may
leave the character outside its rules: a track one box shorter than the boxes the sheet holds, a
resource over its new maximum, a trait past its new range, a state value or trait the house has
not got. The diff still compares it: that side reads the sheet adapted, the way the table would
carry the character over, and one line says what did not fit:

- a track of boxes is cut to its size (the boxes are kept worst first, so the least harm goes);
- a current value over its maximum, a resource or state value outside its range, and a trait past
  its range are brought to the nearest end of it;
- a state value or trait the ruleset does not have is left out.

Anything else the ruleset refuses (a standing rule broken) is refused as before, at its place in
the file. The file itself is never changed.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from interpreter import limits
from interpreter.errors import RulesError

if TYPE_CHECKING:
    from interpreter.load.document import Document
    from interpreter.procedure.compare import Sheet
    from interpreter.ruleset.model import CompiledRuleset

_PATH = re.compile(r"\$\.(traits|state)\.([A-Za-z_][A-Za-z0-9_]*)")


def _clamped(value: object, low: object, high: object) -> object:
    if not isinstance(value, int) or isinstance(value, bool):
        return value
    if isinstance(low, int) and value < low:
        return low
    if isinstance(high, int) and value > high:
        return high
    return value


def _learned(rs: CompiledRuleset, data: dict[str, object], doc: Document | None, key: str) -> Mapping[str, object]:
    """The sheet's names with one state entry left out: its track size or maximum as the ruleset works it out."""
    from interpreter.sheet.session import bound

    state = data.get("state")
    rest = {k: v for k, v in state.items() if k != key} if isinstance(state, dict) else {}
    return bound(rs, {**data, "state": rest}, doc)


def _fix(rs: CompiledRuleset, data: dict[str, object], doc: Document | None, section: str, key: str) -> bool:
    """Adapt the sheet's entry at traits.KEY or state.KEY to the ruleset (in place); whether anything changed."""
    part = data.get(section)
    if not isinstance(part, dict) or key not in part:
        return False
    raw = part[key]
    spec = rs.sheet
    if section == "traits":
        trait = rs.traits.get(key)
        new = _clamped(raw, trait.minimum, trait.maximum) if trait is not None else None
    elif spec is not None and key in spec.tracks and spec.tracks[key].kind == "boxes" and isinstance(raw, list):
        new = raw[: int(str(_learned(rs, data, doc, key).get(f"{key}_size", len(raw))))]
    elif spec is not None and key in spec.tracks and isinstance(raw, dict):
        new = {**raw, "current": _clamped(raw.get("current"), None, raw.get("max"))}
    elif spec is not None and key in spec.resources:
        new = _clamped(raw, 0, _learned(rs, data, doc, key).get(f"{key}_max"))
    elif spec is not None and key in spec.state:
        new = _clamped(raw, spec.state[key].minimum, spec.state[key].maximum)
    else:
        new = None  # a name this ruleset has not got
    if new == raw:
        return False
    if new is None:
        del part[key]
    else:
        part[key] = new
    return True


def fitted(rs: CompiledRuleset, data: Mapping[str, object], doc: Document | None
           ) -> tuple[Sheet, dict[str, object], str | None]:
    """The sheet bound to the ruleset, the data it was bound from (adapted where it did not fit), and
    what did not fit in words (None when it fitted as written); raise what cannot be adapted."""
    from interpreter.sheet.session import bound

    adapted: dict[str, object] = copy.deepcopy(dict(data))
    said: list[str] = []
    for _ in range(limits.MAX_SHEET_FIXES):
        try:
            return bound(rs, adapted, doc), adapted, "; ".join(said) or None
        except RulesError as err:
            place = _PATH.match(err.where.path or "") if err.where is not None else None
            if place is None or not _fix(rs, adapted, doc, place[1], place[2]):
                raise
            said.append(err.message)
    return bound(rs, adapted, doc), adapted, "; ".join(said)


__all__ = ["fitted"]
