"""A count of a named die: `(n)#ability` is n dice of the named dice expression `ability`.

A ruleset names a die once (`ability: d{blank,S,S,SS,A,A,SA,AA}`) and its procedures roll any number
of it.  `COUNT#NAME` is written out as the named term with COUNT for its count, before the expression
is parsed, so that every way of running it (rolling, exact odds, pools read many ways, traces) sees
an ordinary dice term: `(ability)#ability` is `(ability)d{blank,S,S,SS,A,A,SA,AA}`.  COUNT is digits,
a parenthesized formula, or nothing (one die).  The named expression must be one dice term of one die.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import Protocol

from interpreter.dice.scan import NAME_CHARS, NAME_START, fail
from interpreter.dice.term import walk
from interpreter.dice.tree import Dice, Name, Node, Num

EXAMPLE = "ability: d{blank,S,S,SS,A,A,SA,AA}"


class Named(Protocol):
    """What a named dice expression offers here: its text and syntax tree."""

    text: str
    tree: Node


def expand_counts(text: str, named: Mapping[str, Named]) -> str:
    """The text with every `COUNT#NAME` written out as that many dice of the named term."""
    if "#" not in text:
        return text
    out: list[str] = []
    pos = 0
    label = False
    for at, ch in enumerate(text):
        if ch == "[":
            label = True
        elif ch == "]":
            label = False
        if ch != "#" or label or at < pos:
            continue
        start = _count_start(text, at)
        end = at + 1
        while end < len(text) and (text[end] in NAME_CHARS if end > at + 1 else text[end] in NAME_START):
            end += 1
        name = text[at + 1:end]
        if not name:
            raise fail("'#' takes the name of a named die after it, as in (n)#ability", at + 1)
        count = text[start:at] or "1"
        out += [text[pos:start], count, _one_die(name, named, at)]
        pos = end
    return "".join(out) + text[pos:]


def _count_start(text: str, at: int) -> int:
    """Where the count written before the `#` at `at` starts (at `at` itself when none is written)."""
    start = at
    if start and text[start - 1] == ")":
        depth = 0
        for i in range(start - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(text[i], 0)
            if depth == 0:
                return i
        raise fail("')' before '#' is never opened", at - 1)
    while start and text[start - 1].isdigit() and text[start - 1].isascii():
        start -= 1
    return start


def _one_die(name: str, named: Mapping[str, Named], at: int) -> str:
    """The named term's text from its `d` on (its count of one left out)."""
    found = named.get(name)
    if found is None:
        known = ", ".join(sorted(named)) or "none"
        raise fail(f"'#{name}': no named die '{name}' (named dice: {known}); name the die under `dice:` first, "
                   f"as in {EXAMPLE}", at)
    tree = found.tree
    if not isinstance(tree, Dice) or not isinstance(tree.count, Num) or tree.count.value != 1 \
            or not tree.text.lstrip("1").startswith("d"):
        raise fail(f"'#{name}' counts dice of a named die of one die, as in {EXAMPLE}; '{name}' is "
                   f"'{found.text}'", at)
    return tree.text.lstrip("1")


def sides_of_named(tree: Node, named: Mapping[str, Named], shadowed: Collection[str]) -> Iterator[tuple[str, str]]:
    """(the problem, its remedy) for each term whose sides are a named die of written faces: `(n)d(ability)`
    would roll a die with as many sides as `ability` shows symbols, never n ability dice."""
    for node in walk(tree):
        if isinstance(node, Dice) and isinstance(node.sides, Name):
            name = node.sides.name
            found = named.get(name)
            if name in shadowed or found is None or not isinstance(found.tree, Dice) or found.tree.faces is None:
                continue
            problem = f"'{node.text}' rolls dice with as many sides as the named die '{name}' shows, not dice of '{name}'"
            yield problem, f"write (n)#{name} for n dice of '{name}'"
