"""The `rules roll` command: its options and help; what it does is ``rolls.roll``."""

from __future__ import annotations

import click

from interpreter.cli.examples import ExampleCommand, examples
from interpreter.cli.help import json_option


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
    from interpreter.cli import rolls

    rolls.roll(expr, seed, given, settings, as_json)
