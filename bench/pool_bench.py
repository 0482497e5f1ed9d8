"""Pool statistics: exact odds of one pool read several ways, against icepool, same process.

Shadowrun: 30d6, hits (5 or 6) and ones read from the same roll; glitch = more than 15 ones.
Blades: 6d6, the highest die and the number of sixes of the same roll.
Both sides compute the joint distribution cold (caches cleared) and must agree exactly.

Then growth: the exact odds of nwod `pool dice=N target=8` (N d10 counting 8+, 10-again, the chance
die below 1 die) for N = 10, 20, 40, 80, 160, CPU time, beside icepool computing the successes of N
ten-again d10s (`N @ die`, explosions followed 20 deep); the exponent is the slope of log time
against log N, fitted by least squares.

Then the questions of docs/cookbook-pools.md's five systems (the rulesets as the page gives them)
and nwod's 200-dice questions, each cold (dice caches cleared) and warm (asked again in the same
process), CPU time, with whether its outcomes are exact.

Last, the acceptance cases of narrative dice (six kinds in one pool) and of roll and keep that keeps
all or all but one die, each side's first call in a fresh process (in-process CPU time), beside
icepool asked the same question (a sum of net-symbol vectors; a pool of capped exploding d10s); alone
with `python bench/pool_bench.py acceptance`.

Run as `python bench/pool_bench.py` after `pip install .[bench]`.
"""

from __future__ import annotations

import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import icepool

from interpreter.dice.expr import clear_caches, parse
from interpreter.dice.pool import RESULT, parse_statistic, pool_odds
from interpreter.pipeline import compile_ref
from interpreter.procedure.odds import odds as procedure_odds

REPEATS = 9
Joint = dict[tuple[int, int], Fraction]


def ours_shadowrun() -> Joint:
    joint, den = pool_odds(parse("30d6cs>=5").pool_spec({}), [RESULT, parse_statistic("count == 1")])
    return {k: Fraction(x, den) for k, x in joint.items()}  # type: ignore[misc]


def ours_blades() -> Joint:
    joint, den = pool_odds(parse("6d6").pool_spec({}), [parse_statistic("highest"), parse_statistic("count == 6")])
    return {k: Fraction(x, den) for k, x in joint.items()}  # type: ignore[misc]


class _HitsAndOnes(icepool.MultisetEvaluator):
    """(hits, ones) of one pool, evaluated by icepool's multiset machinery."""

    def next_state(self, state, order, outcome, count):  # type: ignore[no-untyped-def]
        hits, ones = state or (0, 0)
        return (hits + count if outcome >= 5 else hits, ones + count if outcome == 1 else ones)


class _HighestAndSixes(icepool.MultisetEvaluator):
    """(highest, sixes) of one pool."""

    def next_state(self, state, order, outcome, count):  # type: ignore[no-untyped-def]
        best, sixes = state or (0, 0)
        if count:
            best = max(best, outcome)
        return (best, sixes + count if outcome == 6 else sixes)


def theirs(evaluator: icepool.MultisetEvaluator, dice: int) -> Joint:
    die = evaluator.evaluate(icepool.d6.pool(dice))
    return {k: Fraction(die.probability(k)) for k in die.outcomes()}


def timed(fn: Callable[[], object], cold: Callable[[], None]) -> tuple[float, float]:
    """Min and median seconds of fn, each run after `cold` cleared caches."""
    times = []
    for _ in range(REPEATS):
        cold()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def icepool_cold() -> None:
    """icepool keeps evaluation caches on its objects; fresh evaluators and pools each time are cold enough."""


def main() -> None:
    cases = [
        ("Shadowrun 30d6 hits+ones", ours_shadowrun, lambda: theirs(_HitsAndOnes(), 30)),
        ("Blades 6d6 highest+sixes", ours_blades, lambda: theirs(_HighestAndSixes(), 6)),
    ]
    print(f"{'case':28} {'ours min/median':>18} {'icepool min/median':>20} {'ratio':>7}  same numbers")
    for label, ours, peer in cases:
        a, b = ours(), peer()
        same = a == b
        o_min, o_med = timed(ours, clear_caches)
        t_min, t_med = timed(peer, icepool_cold)
        print(f"{label:28} {o_min * 1e3:7.2f}/{o_med * 1e3:7.2f} ms {t_min * 1e3:8.2f}/{t_med * 1e3:7.2f} ms "
              f"{t_med / o_med:6.1f}x  {same}")
        glitch = sum((p for (h, o), p in a.items() if o > 15), Fraction(0)) if "Shadowrun" in label else None
        if glitch is not None:
            print(f"{'':28} P(glitch) = {float(glitch):.3e}")


def cpu(fn: Callable[[], object], cold: Callable[[], None], repeats: int = 3) -> float:
    """The least CPU seconds of fn over a few cold runs."""
    best = float("inf")
    for _ in range(repeats):
        cold()
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def slope(sizes: list[int], seconds: list[float]) -> float:
    """The least-squares slope of log(seconds) against log(size)."""
    xs, ys = [math.log(n) for n in sizes], [math.log(t) for t in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def growth() -> None:
    """How the exact odds of a counting pool grow with its size, beside icepool."""
    nwod = compile_ref("nwod")
    per_die = icepool.Die([0] * 7 + [1] * 2 + [1 + icepool.Again], again_depth=20)
    sizes = [10, 20, 40, 80, 160]
    ours, theirs = [], []
    print(f"{'nwod pool target=8':22} {'ours (CPU)':>12} {'icepool':>12}")
    for n in sizes:
        ours.append(cpu(lambda n=n: procedure_odds(nwod, "pool", {"dice": str(n), "target": "8"}), clear_caches))
        theirs.append(cpu(lambda n=n: n @ per_die, icepool_cold, repeats=1 if n >= 80 else 3))
        print(f"  dice={n:<16} {ours[-1] * 1e3:9.1f} ms {theirs[-1] * 1e3:9.1f} ms")
    print(f"growth exponent (N = {sizes[0]}..{sizes[-1]}): ours N^{slope(sizes, ours):.2f}, "
          f"icepool N^{slope(sizes, theirs):.2f}")


PAGE = Path(__file__).resolve().parent.parent / "docs" / "cookbook-pools.md"
QUESTIONS = [
    ("l5r", "roll", {"dice": 10, "keep": 5, "tn": 30}), ("l5r", "roll", {"dice": 6, "keep": 3, "tn": 25}),
    ("l5r", "roll", {"dice": 7, "keep": 4, "tn": 30}), ("l5r", "roll", {"dice": 8, "keep": 3, "tn": 40}),
    ("ore", "roll", {"dice": 8}), ("ore", "height", {"dice": 8}), ("ore", "roll", {"dice": 10}),
    ("ore", "height", {"dice": 10}), ("ore", "roll", {"dice": 12}),
    ("cortex", "test", {"dice": "d10,d8,d8,d6,d4", "difficulty": 11}),
    ("genesys", "check", {"ability": 3, "difficulty": 2}),
    ("savage", "trait", {"die": 6}), ("savage", "trait", {"die": 6, "target": 8}),
    ("savage", "trait", {"die": 10}), ("savage", "trait", {"die": 10, "target": 8}),
    ("nwod", "pool", {"dice": 200, "target": 8}), ("nwod", "contested", {"actor": 200, "defender": 200}),
]


def questions() -> None:
    """Each question of the issue's list, cold and warm."""
    text = PAGE.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as folder:
        for name in ("l5r", "ore", "cortex", "genesys", "savage"):
            block = re.search(rf"Save it as\s+`{name}.yaml`.*?^```yaml\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)
            assert block is not None, name
            Path(folder, f"{name}.yaml").write_text(block.group(1), encoding="utf-8")
        print(f"{'question':52} {'cold':>9} {'warm':>9}  exact")
        for ruleset, procedure, params in QUESTIONS:
            rs = compile_ref(ruleset if ruleset == "nwod" else str(Path(folder, f"{ruleset}.yaml")))
            args = {k: str(v) for k, v in params.items()}
            ask = lambda rs=rs, procedure=procedure, args=args: procedure_odds(rs, procedure, args)
            cold = cpu(ask, clear_caches, repeats=1)
            warm = cpu(ask, lambda: None, repeats=3)
            shown = " ".join(f"{k}={v}" for k, v in params.items())
            print(f"  {ruleset} {procedure} {shown:40} {cold * 1e3:6.1f} ms {warm * 1e3:6.1f} ms  {ask().exact}")


# -- the acceptance cases, each side's first call in a fresh process --------------------------------

FACES = {
    "ability": ["", "S", "S", "SS", "A", "A", "SA", "AA"],
    "proficiency": ["", "S", "S", "SS", "SS", "A", "SA", "SA", "SA", "AA", "AA", "S!"],
    "boost": ["", "", "S", "SA", "AA", "A"],
    "difficulty": ["", "F", "FF", "T", "T", "T", "TT", "FT"],
    "challenge": ["", "F", "F", "FF", "FF", "T", "T", "FT", "FT", "TT", "TT", "F?"],
    "setback": ["", "", "F", "F", "T", "T"],
}
NARRATIVE = {
    "starwars 1a+2p+1b v 1d+1c+1s": {"ability": 1, "proficiency": 2, "boost": 1, "difficulty": 1, "challenge": 1,
                                      "setback": 1},
    "starwars 2a+1b v 1c+1s": {"ability": 2, "proficiency": 0, "boost": 1, "difficulty": 0, "challenge": 1, "setback": 1},
    "starwars 5p+3a v 4c+2d+2s": {"ability": 3, "proficiency": 5, "boost": 0, "difficulty": 2, "challenge": 4,
                                  "setback": 2},
}
KEEPS = {"l5r 10k10 tn=80": (10, 10, 80), "l5r 10k9 tn=70": (10, 9, 70)}


def _saved(folder: str, name: str) -> str:
    text = PAGE.read_text(encoding="utf-8")
    block = re.search(rf"Save it as\s+`{name}.yaml`.*?^```yaml\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)
    assert block is not None, name
    path = Path(folder, f"{name}.yaml")
    path.write_text(block.group(1), encoding="utf-8")
    return str(path)


def _ours(case: str, folder: str) -> Callable[[], dict[str, Fraction]]:
    """The question asked of the page's ruleset (compiled before the clock starts)."""
    if case in NARRATIVE:
        rs = compile_ref(_saved(folder, "starwars"))
        args = {k: str(v) for k, v in NARRATIVE[case].items()}

        def narrative() -> dict[str, Fraction]:
            found = procedure_odds(rs, "check", args)
            out = found.outcomes
            flags = {n: found.values[n].get(True, Fraction(0)) for n in ("triumph", "despair")}  # type: ignore[union-attr]
            return {"success": out["success_with_advantage"] + out["success"],  # type: ignore[dict-item]
                    "success_with_advantage": out["success_with_advantage"], **flags}  # type: ignore[dict-item]
        return narrative
    rs = compile_ref(_saved(folder, "l5r"))
    dice, keep, tn = KEEPS[case]
    return lambda: {"success": procedure_odds(rs, "roll", {"dice": str(dice), "keep": str(keep), "tn": str(tn)})
                    .outcomes["success"]}  # type: ignore[dict-item]


def _theirs(case: str) -> Callable[[], dict[str, Fraction]]:
    """The same question asked of icepool: a sum of symbol vectors, or a pool of capped exploding d10s."""
    if case in NARRATIVE:
        counts = NARRATIVE[case]

        def narrative() -> dict[str, Fraction]:
            total = None
            for kind, n in counts.items():
                if n:
                    die = icepool.Die([icepool.Vector((f.count("S") - f.count("F"), f.count("A") - f.count("T"),
                                                       int("!" in f), int("?" in f))) for f in FACES[kind]])
                    total = n @ die if total is None else total + n @ die
            assert total is not None
            p = {o: Fraction(total.probability(o)) for o in total.outcomes()}
            return {"success": sum((q for o, q in p.items() if o[0] >= 1), Fraction(0)),
                    "success_with_advantage": sum((q for o, q in p.items() if o[0] >= 1 and o[1] >= 1), Fraction(0)),
                    "triumph": sum((q for o, q in p.items() if o[2] >= 1), Fraction(0)),
                    "despair": sum((q for o, q in p.items() if o[3] >= 1), Fraction(0))}
        return narrative
    dice, keep, tn = KEEPS[case]

    def kept() -> dict[str, Fraction]:
        die = icepool.d10.explode(depth=tn // 10 + 1).map(lambda v: min(v, tn))
        total = die.pool(dice).highest(keep).sum()
        return {"success": sum((Fraction(total.probability(v)) for v in total.outcomes() if v >= tn), Fraction(0))}
    return kept


def one(case: str, side: str) -> None:
    """One side's first call of one case, in this (fresh) process: its CPU seconds and its answer."""
    with tempfile.TemporaryDirectory() as folder:
        fn = _ours(case, folder) if side == "ours" else _theirs(case)
        start = time.process_time()
        found = fn()
        print(json.dumps({"cpu": time.process_time() - start, "found": {k: str(v) for k, v in found.items()}}))


def acceptance() -> None:
    """Each acceptance case, each side in a fresh process, in-process CPU time of the first call."""
    print(f"{'acceptance case':32} {'ours':>9} {'icepool':>9} {'ratio':>6}  same numbers")
    for case in [*NARRATIVE, *KEEPS]:
        got = {}
        for side in ("ours", "icepool"):
            run = subprocess.run([sys.executable, __file__, "--one", case, side], capture_output=True, text=True,
                                 check=True, env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
            got[side] = json.loads(run.stdout)
        ours, theirs = got["ours"], got["icepool"]
        print(f"  {case:30} {ours['cpu'] * 1e3:6.0f} ms {theirs['cpu'] * 1e3:6.0f} ms {ours['cpu'] / theirs['cpu']:5.2f}x  "
              f"{ours['found'] == theirs['found']}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        one(sys.argv[2], sys.argv[3])
    elif sys.argv[1:2] == ["acceptance"]:
        acceptance()
    else:
        main()
        growth()
        questions()
        acceptance()
