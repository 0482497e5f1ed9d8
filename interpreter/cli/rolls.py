"""What `rules roll` does, given its parameters (the one body the click command and ``quick`` call), and the
warnings of a dice expression, which `rules odds EXPR` prints too."""

from __future__ import annotations

import random
from collections.abc import Sequence

from interpreter import limits
from interpreter.cli import output
from interpreter.cli.guard import UsageMistake
from interpreter.dice import expr as dice
from interpreter.errors import BadParameter
from interpreter.hints import shown


def _parse_given(text: str) -> list[int]:
    """Comma-separated die results, e.g. '1,3,5,7,10,8'."""
    values = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            value = limits.whole_number(part)
        except OverflowError:
            raise BadParameter(f"--dice: {shown(part)} is out of range: {limits.OUT_OF_RANGE}") from None
        if value is None:
            raise UsageMistake(f"Invalid value for --dice: {shown(part)} is not a whole number")
        values.append(value)
    return values


def warning_lines(parsed: dice.DiceExpr) -> list[str]:
    """Each warning about an expression as one located line, `<expr>:1:COL: message`."""
    return [f"{w.where()}: {w.message}" for w in parsed.warnings]


def show_warnings(parsed: dice.DiceExpr, out: dict[str, object] | None) -> None:
    """Warnings on stderr, or under "warnings" in a JSON answer."""
    lines = warning_lines(parsed)
    if out is not None:
        if lines:
            out["warnings"] = lines
        return
    for line in lines:
        output.echo(f"warning: {line}", err=True)


def _parse_setting(item: str) -> tuple[str, object]:
    """NAME=VALUE where VALUE is a whole number or a dice expression."""
    name, sep, value = item.partition("=")
    if not sep or not name.strip():
        raise UsageMistake(f"Invalid value for --set: '{item}' is not NAME=VALUE")
    value = value.strip()
    try:
        number = limits.whole_number(value)
    except OverflowError:
        raise BadParameter(f"--set {name.strip()}: {shown(value)} is out of range: {limits.OUT_OF_RANGE}") from None
    return name.strip(), number if number is not None else dice.parse(value)


def roll(expr: str, seed: int | None = None, given: str | None = None, settings: Sequence[str] = (),
         as_json: bool = False) -> None:
    """`rules roll`: roll a dice expression and show every die."""
    if seed is not None and given is not None:
        raise UsageMistake("use either --seed or --dice, not both")
    # a RulesError here reaches the main group, which prints it as one line with exit code 1
    env = dict(_parse_setting(item) for item in settings)
    parsed = dice.parse(expr)
    if given is not None:
        source: dice.GivenSource | dice.RandomSource = dice.GivenSource(_parse_given(given))
    else:
        from interpreter.api.arguments import drawn_seed

        seed = drawn_seed() if seed is None else seed  # told under --json: `--seed` of it rolls the same
        source = dice.RandomSource(random.Random(seed))
    try:
        result = parsed.roll(env, source)
    except BadParameter as err:
        from interpreter.api.given import shortfall

        raise shortfall(err, source, "--dice", expr) from None
    if isinstance(source, dice.GivenSource):
        source.check_exhausted()
    if as_json:
        out = {**dice.roll_json(parsed, result), "seed": seed}
        show_warnings(parsed, out)
        output.print_json(out)
    else:
        show_warnings(parsed, None)
        output.echo(dice.render_roll(parsed, result))


__all__ = ["roll", "show_warnings", "warning_lines"]
