"""A sweep beside the runs it replaces: `rules odds nwod action pool=1..10 --json` against ten `rules odds ... --json`.

Run as `python bench/sweep_bench.py` after `pip install ".[bench]"`. Both sides are whole processes
of the installed `rules`, measured as the CPU time of the children (user + system), interleaved,
several times each; the line prints min and median of both and the ratio of the medians (under 1:
the sweep is cheaper). A second line does the same for a two-parameter sweep (pool 1..10 by again
8, 9, 10: thirty points) against thirty runs. Both sides print the same numbers (the test suite
checks it); the sweep loads and compiles the ruleset once and its dice caches serve every point.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

REPEATS = 5


def children_cpu(commands: list[list[str]]) -> float:
    """CPU seconds the commands' processes took, run one after another."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for argv in commands:
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def line(label: str, sweep: list[float], runs: list[float]) -> None:
    a, b = statistics.median(sweep), statistics.median(runs)
    print(f"{label}: sweep min {min(sweep) * 1000:.0f} ms median {a * 1000:.0f} ms; "
          f"separate runs min {min(runs) * 1000:.0f} ms median {b * 1000:.0f} ms; ratio {a / b:.2f}x")


def measure(label: str, sweep: list[str], singles: list[list[str]]) -> None:
    children_cpu([sweep])  # the first run fills the parse cache every later command reads
    a, b = [], []
    for _ in range(REPEATS):
        a.append(children_cpu([sweep]))
        b.append(children_cpu(singles))
    line(label, a, b)


def main() -> None:
    rules = shutil.which("rules") or str(Path(sys.executable).parent / "rules")
    if not os.path.exists(rules):
        sys.exit("the `rules` command is not installed: pip install .")
    base = [rules, "odds", "nwod", "action"]
    measure("nwod action pool=1..10 --json (10 points) vs 10 runs",
            [*base, "pool=1..10", "--json"], [[*base, f"pool={n}", "--json"] for n in range(1, 11)])
    measure("nwod action pool=1..10 again=8,9,10 --json (30 points) vs 30 runs",
            [*base, "pool=1..10", "again=8,9,10", "--json"],
            [[*base, f"pool={n}", f"again={a}", "--json"] for n in range(1, 11) for a in (8, 9, 10)])


if __name__ == "__main__":
    main()
