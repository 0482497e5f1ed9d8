"""Sheet values named in a parameter: `stat=STR`, `stat=str`, `stat=Strength`, `pool=Dexterity+Firearms`.

A name is found as written, else in another letter case, else as a trait's label; a name that is
none of these is refused with the closest one suggested. A sum adds names and whole numbers with
`+` and `-` (`pool=Dexterity+Firearms-2`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from interpreter import limits
from interpreter.errors import BadParameter
from interpreter.hints import shown, suggest
from interpreter.ruleset.model import CompiledRuleset, Param

__all__ = ["looks_like_names", "sheet_sum", "trait_named"]

_TERM = r"(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+)"
_SUM = rf"^[+-]?\s*{_TERM}(?:\s*[+-]\s*{_TERM})*$"  # (patterns as text: `re` compiles each when first used)
_PARTS = rf"([+-]?)\s*({_TERM})"
_NAME = r"[A-Za-z_]"


def looks_like_names(text: str) -> bool:
    """Whether text is a name, or names and whole numbers added together (not a number, not dice)."""
    if not any(c.isalpha() or c == "_" for c in text):  # (a number: most parameters, told without a pattern)
        return False
    return bool(re.match(_SUM, text)) and any(re.match(_NAME, term) for _, term in re.findall(_PARTS, text))


def _unique(word: str, names: list[str]) -> str | None:
    key = word.casefold()
    found = [n for n in names if n.casefold() == key]
    return found[0] if len(found) == 1 else None


def trait_named(ruleset: CompiledRuleset, word: str) -> str | None:
    """The trait a word names: its name as written, in another letter case, or its label; else None."""
    if word in ruleset.traits:
        return word
    found = _unique(word, list(ruleset.traits))
    if found is None:
        labels = {t.label: t.name for t in ruleset.traits.values() if t.label}
        label = _unique(word, list(labels))
        found = labels[label] if label is not None else None
    return found


def _resolve(param: Param, word: str, env: Mapping[str, object], ruleset: CompiledRuleset | None) -> str:
    """The sheet name a word means, or an error with the closest name."""
    if word in env and not word.startswith("#"):
        return word
    names = [k for k in env if not k.startswith("#") and isinstance(env[k], (int, bool))]
    found = _unique(word, names)
    if found is None and ruleset is not None:
        found = trait_named(ruleset, word)
    if found is None or found not in env:
        labels = [t.label for t in ruleset.traits.values() if t.label] if ruleset is not None else []
        hint = suggest(word, names + labels) or "`rules sheet show FILE` lists them"
        raise BadParameter(f"parameter '{param.name}': {shown(word)} is not a trait or value of the sheet", hint=hint)
    return found


def sheet_sum(param: Param, text: str, env: Mapping[str, object], ruleset: CompiledRuleset | None) -> tuple[object, str | None]:
    """The value of sheet names (and whole numbers) added together, and the one name when only one is given."""
    parts = re.findall(_PARTS, text)
    if param.type == "flag":
        if len(parts) != 1 or parts[0][0]:
            raise BadParameter(f"parameter '{param.name}' is a flag: give true, false or one flag of the sheet, "
                               f"not {shown(text)}")
        name = _resolve(param, parts[0][1], env, ruleset)
        if not isinstance(env[name], bool):
            raise BadParameter(f"parameter '{param.name}' is a flag, and '{name}' is a number ({env[name]})")
        return env[name], name
    total = 0
    single: str | None = None
    for sign, term in parts:
        if re.match(_NAME, term):
            name = _resolve(param, term, env, ruleset)
            value = env[name]
            if isinstance(value, bool) or not isinstance(value, int):
                raise BadParameter(f"parameter '{param.name}' is a whole number, and '{name}' is a flag ({value})")
            single = name if len(parts) == 1 and sign != "-" else None
        else:
            try:
                value = limits.whole_number(term) or 0
            except OverflowError:
                raise BadParameter(f"parameter '{param.name}' is {shown(text)}: {limits.OUT_OF_RANGE}") from None
        total += -value if sign == "-" else value
    if not limits.INT_MIN <= total <= limits.INT_MAX:
        raise BadParameter(f"parameter '{param.name}' is {total}: {limits.OUT_OF_RANGE}")
    return total, single
