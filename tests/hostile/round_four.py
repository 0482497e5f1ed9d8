"""Hostile cases of the fourth round: distributions, printing, charts and whole commands made costly.

A dice expression of 19 characters and 3 million values, in `rules odds`, as a procedure's argument and
in a chart; odds of 100,000 values printed; a sweep of 400 points each within the 1 s budget of one
computation, and a diff of 1,000 samples: each gives its answer or one line within its bound.  A
refusal foreseen from the text (the size of a distribution) or from the work done so far (a sweep's or
diff's points) comes before the work; where a case may take longer than the corpus's 1 s, it says why.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from hostile.case import Case
from hostile.round_two import GOOD

HUGE = "3d1000+1d1000*3000"  # 19 characters, 2,998,000 values

COSTLY = """\
ruleset: {id}
title: A point of about a third of a second
procedures:
  p:
    params:
      k: {{type: int}}
{samples}    outcomes: {{high: high, low: low}}
    values: {{t: the total}}
    steps:
      - roll: {{a: 2d100, b: 2d100}}
      - let: {{t: "a * b + k"}}
      - decide: [{{when: t > {line}, outcome: high}}, {{outcome: low}}]
"""


def _costly(ruleset: str, line: int, samples: int = 0) -> bytes:
    listed = f"    samples: [{', '.join(f'{{k: {i}}}' for i in range(samples))}]\n" if samples else ""
    return COSTLY.format(id=ruleset, samples=listed, line=line).encode()


def _effects(count: int) -> Callable[[], bytes]:
    """A ruleset of `count` effects, each turning on the one flag of the one procedure they all reach."""
    def make() -> bytes:
        effects = "".join(f"  e{i}: {{reaches: {{procedures: [p]}}, change: {{flags: [hit]}}}}\n" for i in range(count))
        return ("ruleset: effects\ntitle: Effects\neffects:\n" + effects + "procedures:\n  p:\n"
                "    params: {hit: {type: flag}}\n    outcomes: {high: high, low: low}\n"
                "    steps:\n      - roll: {a: 1d6}\n      - decide: [{when: a > 3, outcome: high}, {outcome: low}]\n"
                ).encode()
    return make


def distribution_cases() -> list[Case]:
    attack = ["odds", "wwn", "attack", "bonus=3", "ac=14", f"damage={HUGE}"]
    return [
        Case("distributions", ["odds", HUGE], names_file=False, note="3 million values, told from the text"),
        Case("distributions", ["odds", HUGE, "--json"], names_file=False, note="3 million values, as JSON"),
        Case("distributions", attack, names_file=False, note="a procedure's dice argument of 3 million values"),
        Case("distributions", ["odds", "1d1000*100+1d100"], exit=(0,), cpu=1.5, out="mean 50100.5",
             note="100,000 values printed in linear time: its normal time is building them"),
        Case("distributions", ["odds", "30d1000"], exit=(0,), cpu=3.0, out="max 30000",
             note="29,971 values: its normal time is one power of a 30,000-digit number"),
    ]


def chart_cases() -> list[Case]:
    config = (".config-none",)  # the plotting library's own settings folder, made when it is first imported
    return [
        Case("charts", ["odds", "1d1000*1000+1d200", "--plot", "p.svg"], names_file=False,
             note="200,000 values in a chart: refused before the odds"),
        Case("charts", ["odds", "30d1000", "--plot", "p.html"], names_file=False, cpu=4.0, may_create=config,
             note="8,823 bars: refused before drawing; its normal time is the odds and loading the plotting library"),
    ]


def command_cases() -> list[Case]:
    return [
        Case("budgets", ["odds", "sweep.yaml", "p", "k=1..400"], {"sweep.yaml": _costly("sweep", 5000)},
             names_file=False, note="400 points of a third of a second: foreseen from the first"),
        Case("budgets", ["odds", "nwod", "action", "pool=1..400"], names_file=False, cpu=2.5,
             note="400 points growing with the pool: foreseen at about half of them"),
        Case("budgets", ["diff", "base.yaml", "house.yaml"],
             {"base.yaml": _costly("base", 5000, 1000), "house.yaml": _costly("house", 6000, 1000)},
             names_file=False, cpu=2.0, note="1,000 samples of a third of a second on each side"),
        Case("budgets", ["validate", "effects.yaml"], {"effects.yaml": _effects(5000)}, cpu=4.5,
             note="5,000 effects turning on one flag: its normal time is one parse of 330 KB (2 s alone, more "
                  "beside a busy test run)"),
        # (12,000 effects: round five's corners)
    ]


def _constants(count: int, formulas: bool) -> Callable[[], bytes]:
    """`count` constants (every other one a formula of the one before, when `formulas`), the last invalid."""
    def make() -> bytes:
        lines = [f"  c{i}: c{i - 1} + 1\n" if formulas and i % 2 == 0 else f"  c{i}: {i}\n" for i in range(1, count)]
        return ("ruleset: constants\ntitle: C\nconstants:\n" + "".join(lines) + '  bad: "c1 +"\n'
                "procedures: {}\n").encode()
    return make


def corner_cases() -> list[Case]:
    """Checks once quadratic in the size of a section, at ten times the size that used to take seconds."""
    return [
        # (plain constants, one invalid, at 49,000: round five's corners)
        Case("corners", ["validate", "constants.yaml"], {"constants.yaml": _constants(8_000, True)}, cpu=3.0,
             note="8,000 constants, half formulas of the one before, one invalid"),
    ]


def _compiled_is_a_link(folder: Path) -> None:
    """The marked cache's `compiled` folder replaced by a link to a folder of 300 files named as records are."""
    target = folder / "kept"
    target.mkdir()
    for i in range(300):
        (target / f"{i:064x}").write_bytes(b"not the cache's")
    compiled = folder / "cache" / "rulesmith" / "compiled"
    shutil.rmtree(compiled)
    compiled.symlink_to(target, target_is_directory=True)


def _shelf(count: int, spoof: bool = False) -> dict[str, bytes]:
    files = {f"shelf/r{i}.yaml": f"ruleset: r{i}\ntitle: R{i}\nprocedures: {{}}\n".encode() for i in range(count)}
    if spoof:
        files["shelf/spoof.yaml"] = b"ruleset: nwod\ntitle: Not the bundled one\nprocedures: {}\n"
    return files


def folder_cases() -> list[Case]:
    shelf = {"RULESMITH_PATH": "{dir}/shelf"}
    action = ["run", "nwod", "action", "pool=3", "--seed", "1"]
    return [
        Case("folders", ["run", "good.yaml", "p"], {"good.yaml": GOOD.encode()}, exit=(0,), own_cache=True,
             warm=[["run", "good.yaml", "p"]], prepare=_compiled_is_a_link, out="good p: ok",
             note="the cache's compiled folder is a link to 300 files named as records"),
        Case("folders", action, _shelf(1000), exit=(0,), env=shelf, own_cache=True, warm=[["list"]],
             out="nwod action:", note="1,000 rulesets in the folder, their ids read once before"),
        Case("folders", action, _shelf(1000, spoof=True), exit=(0,), env=shelf, own_cache=True, warm=[["list"]],
             out="nwod action:", stderr_lines=1, note="a file claiming a bundled id among 1,000: one warning"),
    ]


def cases() -> list[Case]:
    """Every case of the fourth round."""
    return [*distribution_cases(), *chart_cases(), *command_cases(), *corner_cases(), *folder_cases()]
