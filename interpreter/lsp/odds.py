"""A procedure's exact odds at one set of parameters, as a hover shows them (the one place the server asks for odds)."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from interpreter.errors import LimitExceeded, RulesError
from interpreter.procedure.odds import odds
from interpreter.ruleset.model import CompiledRuleset

__all__ = ["TOO_BIG", "odds_line"]

TOO_BIG = "too big to compute here"


def _chance(p: Fraction | float) -> str:
    if isinstance(p, Fraction):
        return f"{p.numerator}/{p.denominator} ({float(p):.2%})"
    return f"{p:.2%}"


def odds_line(ruleset: CompiledRuleset, procedure: str, args: Mapping[str, Any]) -> str:
    """Every outcome's chance at these parameters (exact fractions where exact), within the work budget,
    or why they cannot be given: "too big to compute here" when the budget runs out, or at once when a roll
    of the procedure is too large to build here (told from its text, see ``estimate``)."""
    from interpreter.lsp.estimate import roll_too_big

    proc = ruleset.procedures.get(procedure)
    big = roll_too_big(ruleset, proc, args) if proc is not None else None
    if big is not None:
        return f"{TOO_BIG} (a roll of up to {big.values:,} values)"
    try:
        found = odds(ruleset, procedure, dict(args))
    except LimitExceeded:
        return TOO_BIG
    except RulesError as err:
        return f"cannot be computed: {err.message}"
    return ", ".join(f"{outcome} {_chance(p)}" for outcome, p in found.outcomes.items())
