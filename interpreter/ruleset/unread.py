"""House rules that change nothing: a constant an overlay adds that its base lacks and nothing reads.

`critwn: 18` under `constants:` validates (any name may be a constant), and the table's critical
range stays as it was; a warning names the constant the overlay most likely meant.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from interpreter.errors import RulesError
from interpreter.hints import suggest
from interpreter.ruleset.model import CompiledRuleset

if TYPE_CHECKING:
    from interpreter.load.document import Document

__all__ = ["unread_constants"]

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _texts(node: object, skip: tuple[str, ...] = ()) -> Iterator[str]:
    """Every text value under a node (formulas, dice, references), leaving out the top-level keys in `skip`."""
    todo = [node]
    first = True
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            todo.extend(v for k, v in item.items() if not (first and k in skip))
        elif isinstance(item, list):
            todo.extend(item)
        elif isinstance(item, str):
            yield item
        first = False


def unread_constants(ruleset: CompiledRuleset, data: object, doc: Document) -> list[RulesError]:
    """A warning for each constant an overlay adds that its base does not have and no text of the ruleset reads."""
    added = [path.removeprefix("$.constants.") for path, what in ruleset.changes
             if what == "added" and path.startswith("$.constants.") and path.count(".") == 2]
    if not added or not isinstance(data, dict):
        return []
    read = {word for text in _texts(data, skip=("constants",)) for word in _WORD.findall(text)}
    known = [name for name in ruleset.constants if name not in added]
    out = []
    for name in added:
        if name in read or name not in ruleset.constants:
            continue
        hint = suggest(name, known) or f"`rules describe {ruleset.extends}` lists its constants"
        out.append(RulesError(f"constant '{name}' is not one of {ruleset.extends}'s and nothing reads it, so it "
                              "changes nothing", doc.where(("constants", name), key=True), hint))
    return out
