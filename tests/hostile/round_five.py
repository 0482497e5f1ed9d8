"""Hostile cases of the fifth round: ruleset folders a bot fills, whole commands, and sections ten times larger.

Ten flow-style 685 KB files in a ruleset folder never read before, and a bundled id looked up among
them: only files whose text could declare the id are parsed.  A file claiming a bundled id is one
warning.  Where a case may take longer than the corpus's 1 s, it says why.
"""

from __future__ import annotations

from collections.abc import Callable

from hostile.case import Case
from hostile.round_four import _constants, _effects


def _large(i: int, claim: str = "") -> Callable[[], bytes]:
    """A 685 KB flow-style ruleset file, its id `big{i}` (or `claim`)."""
    head = f'{{ruleset: {claim or f"big{i}"}, procedures: {{}}, title: "'
    return lambda: (head + "t" * (685_000 - len(head) - 3) + '"}\n').encode()


def _shelf(count: int) -> dict[str, bytes]:
    return {f"shelf/r{i}.yaml": f"ruleset: r{i}\ntitle: R{i}\nprocedures: {{}}\n".encode() for i in range(count)}


def folder_cases() -> list[Case]:
    shelf = {"RULESMITH_PATH": "{dir}/shelf"}
    large = {f"shelf/big{i}.yaml": _large(i) for i in range(10)}
    spoofed = dict(large, **{"shelf/spoof.yaml": _large(10, "nwod")})
    action = ["run", "nwod", "action", "pool=3", "zz=1"]
    return [
        Case("folders", action, large, env=shelf, own_cache=True, names_file=False,
             note="ten 685 KB flow-style files never read before: none could declare the id"),
        Case("folders", ["run", "big3", "nothing"], large, env=shelf, own_cache=True, names_file=False,
             note="ten 685 KB flow-style files never read before: one is parsed"),
        Case("folders", ["run", "nwod", "action", "pool=3", "--seed", "1"], spoofed, exit=(0,), env=shelf,
             own_cache=True, out="nwod action:", stderr_lines=1,
             note="a 685 KB file claiming a bundled id among ten: one warning, the bundled one runs"),
        Case("folders", ["list"], _shelf(300), exit=(0,), env=shelf, own_cache=True, warm=[["list"]],
             out="r299", note="300 rulesets listed after a first list: none compiled again, the folder read once"),
        Case("folders", ["run", "r500", "nothing"], _shelf(1000), env=shelf, own_cache=True, warm=[["list"]],
             names_file=False, note="1,000 rulesets in the folder, a command after the first"),
    ]


def _unknown_keys(count: int) -> Callable[[], bytes]:
    def make() -> bytes:
        keys = "".join(f"k{i}: 1\n" for i in range(count))
        return ("ruleset: keys\ntitle: K\nprocedures: {}\n" + keys).encode()
    return make


def corner_cases() -> list[Case]:
    """Sections ten times the size that took seconds: their time is their parse, their report at most 101 lines."""
    return [
        Case("corners", ["validate", "keys.yaml"], {"keys.yaml": _unknown_keys(40_000)}, cpu=6.0,
             note="40,000 unknown top-level keys (ten times the 4,000 that took 1.8 s): 100 reported and one line "
                  "for the rest; its time is one parse of 390 KB"),
        Case("corners", ["validate", "constants.yaml"], {"constants.yaml": _constants(49_000, False)}, cpu=8.0,
             note="49,000 constants, one invalid: its normal time is one parse of 760 KB"),
        Case("corners", ["validate", "effects.yaml"], {"effects.yaml": _effects(12_000)}, cpu=10.0,
             note="12,000 effects turning on one flag: its normal time is one parse of 745 KB"),
    ]


def command_cases() -> list[Case]:
    return [
        Case("budgets", ["run", "nwod", "action", "pool=3", "--times", "1000000", "--seed", "1"], names_file=False,
             cpu=2.0, note="a million runs within the work limit but not the command's 5 s: foreseen from the first "
                           "runs (once a twentieth of a second of them has run)"),
    ]


def cases() -> list[Case]:
    """Every case of the fifth round."""
    return [*folder_cases(), *corner_cases(), *command_cases()]
