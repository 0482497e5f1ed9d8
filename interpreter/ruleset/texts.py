"""Texts a ruleset writes with names in braces, filled in with the names' values."""

from __future__ import annotations

import re
from typing import Any


def fill(message: str, env: Any) -> str:
    """A message with each {name} replaced by that name's value ({{ and }} for braces)."""
    def value(match: Any) -> str:
        v = env.get(match.group(1))
        return str(v).lower() if isinstance(v, bool) else str(v)
    text = re.sub(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})", value, message)
    return text.replace("{{", "{").replace("}}", "}")
