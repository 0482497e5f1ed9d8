"""Given dice that ran out, told as what the caller did: how many dice were given and which roll
wanted more, not the place in the ruleset's file where that roll is written.

The command line says `--dice`, the library `dice`; both ask ``shortfall`` to word it.
"""

from __future__ import annotations

import re

from interpreter.dice.sources import GivenSource
from interpreter.errors import BadParameter, Location, RulesError

__all__ = ["ordinal", "shortfall"]

_RAN_OUT = "not enough given dice"
_STEP = re.compile(r"^\$\.procedures\.(?P<procedure>[^.\[]+)\.(?P<step>.*?)\.roll\.(?P<name>[^.\[]+)$")
_PART = re.compile(r"\.([^.\[]+)|\[(\d+)\]")


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st ..."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _at(data: object, path: str) -> object:
    """The value at a JSON path such as `$.procedures.x.steps[0].roll.n`, or None."""
    for key, index in _PART.findall(path[1:]):
        if index and isinstance(data, list) and int(index) < len(data):
            data = data[int(index)]
        elif not index and isinstance(data, dict) and key in data:
            data = data[key]
        else:
            return None
    return data


def _written(where: Location) -> object:
    """What the file of a place holds at its JSON path (a roll's expression), or None."""
    from interpreter.pipeline import document

    try:
        return _at(document(where.source or where.file).data, where.path)
    except (RulesError, OSError):
        return None


def shortfall(err: RulesError, source: object, option: str, expr: str | None = None) -> RulesError:
    """`err` told in the caller's words when it is given dice running out (else `err` itself).

    `option` is what the caller gave the dice as (`--dice`, `dice`); `expr` the dice expression rolled,
    when that is all there is (no procedure).
    """
    if not isinstance(source, GivenSource) or source.remaining() or not err.message.startswith(_RAN_OUT):
        return err
    count = len(source.values)
    head = f"{option}: {count} {'die' if count == 1 else 'dice'} given"
    wanted = f"wanted a {ordinal(count + 1)}"
    hint = "give one value for every die the run rolls, in the order it rolls them"
    found = _STEP.match(err.where.path) if err.where is not None else None
    if err.where is None or found is None:
        return BadParameter(f"{head}; {expr or 'the roll'} {wanted}", hint=hint)
    written = _written(err.where)
    shown = f"{written}, " if isinstance(written, str) else ""
    place = f"{found['procedure']}.{found['step']}"
    return BadParameter(f"{head}; the roll '{found['name']}' ({shown}in {place}) {wanted}", hint=hint)
