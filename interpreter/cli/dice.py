"""The `roll` command and the expression form of the `odds` command."""

from __future__ import annotations

import random

import click

from interpreter import limits
from interpreter.cli import output
from interpreter.cli.examples import ExampleCommand, examples
from interpreter.cli.help import json_option
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
            raise click.BadParameter(f"{shown(part)} is not a whole number", param_hint="--dice")
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
        raise click.BadParameter(f"'{item}' is not NAME=VALUE", param_hint="--set")
    value = value.strip()
    try:
        number = limits.whole_number(value)
    except OverflowError:
        raise BadParameter(f"--set {name.strip()}: {shown(value)} is out of range: {limits.OUT_OF_RANGE}") from None
    return name.strip(), number if number is not None else dice.parse(value)


@click.command("roll", cls=ExampleCommand, epilog=examples("rules roll '5d10x10cs>=8' --dice 1,3,5,7,10,8", "rules roll 4d6kh3 --seed 7 --json",
                                      "rules roll 'd20+bonus' --set bonus=5"))
@click.argument("expr")
@click.option("--seed", type=int, default=None, help="Seed for the random dice, to repeat a roll.")
@click.option("--dice", "given", default=None, metavar="LIST",
              help="Use these die results in order instead of random ones, e.g. 1,3,5,7,10,8.")
@click.option("--set", "settings", multiple=True, metavar="NAME=VALUE",
              help="Give a name used in the expression a number or a dice expression.")
@json_option
def roll(expr: str, seed: int | None, given: str | None, settings: tuple[str, ...], as_json: bool) -> None:
    """Roll the dice expression EXPR and show every die (docs/dice.md has the notation).

    Quote an expression that holds > < or ! so the shell leaves it alone.
    """
    if seed is not None and given is not None:
        raise click.UsageError("use either --seed or --dice, not both")
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
