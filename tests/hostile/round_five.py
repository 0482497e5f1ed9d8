"""Hostile cases of the fifth round: ruleset folders a bot fills, whole commands, and sections ten times larger.

Ten flow-style 685 KB files in a ruleset folder never read before, and a bundled id looked up among
them: only files whose text could declare the id are parsed.  A file claiming a bundled id is one
warning.  Where a case may take longer than the corpus's 1 s, it says why.
"""

from __future__ import annotations

from collections.abc import Callable

from hostile.case import Case


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
        Case("folders", ["list"], _shelf(1000), exit=(0,), env=shelf, own_cache=True, warm=[["list"]], cpu=4.0,
             out="r999", note="1,000 rulesets listed: each compiled, the folder read once (it was read once per id)"),
        Case("folders", ["run", "r500", "nothing"], _shelf(1000), env=shelf, own_cache=True, warm=[["list"]],
             names_file=False, note="1,000 rulesets in the folder, a command after the first"),
    ]


def cases() -> list[Case]:
    """Every case of the fifth round."""
    return [*folder_cases()]
