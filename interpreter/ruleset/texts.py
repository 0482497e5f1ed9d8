"""Texts a ruleset writes with names in braces, filled in with the names' values."""

from __future__ import annotations

import re
from collections.abc import Mapping

from interpreter.words import value_text


def fill(message: str, env: Mapping[str, object]) -> str:
    """A message with each {name} replaced by that name's value ({{ and }} for braces)."""
    def value(match: re.Match[str]) -> str:
        return value_text(env.get(match.group(1)))
    text = re.sub(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})", value, message)
    return text.replace("{{", "{").replace("}}", "}")


# (patterns kept as text: `re` compiles one when it is first used, not at every start)
_NAMED = r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})"


def prose(text: str, constants: Mapping[str, object]) -> str:
    """A description (help, a summary, an outcome's words) with each {constant} replaced by its value as loaded.

    Only the names of constants are filled in; any other text in braces stays as written, so a
    description that quotes braces for another reason is left alone. An overlay that changes a
    constant so changes every text that names it.
    """
    if "{" not in text:
        return text

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in constants:
            return str(match.group(0))
        return value_text(constants[name])
    return re.sub(_NAMED, value, text)
