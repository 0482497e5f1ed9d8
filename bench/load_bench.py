"""Loading speed: a bundled ruleset read from the parse cache against a cold parse and schema check.

Run as `python bench/load_bench.py`. The cold load is what the first command on a file
does: read it, parse it with ruamel.yaml, check it against the schema and store it in the
cache. The cached load is what every later command does: read the file, hash its bytes and
read back the stored document with its positions. Each cold run gets an empty cache
folder of its own. For comparison: the second, hand-written YAML reader this cache
replaced loaded the same files in 2-7 ms (lockwood 2.9, wwn 4.1, rollunder 3.3, nwod
12.7 ms at best, on the machine that measured both).

Then the YAML reader alone: the events of each bundled ruleset from ruamel.yaml's C parser (what
a cold load uses) beside its Python parser (the reference, used for what the C parser declines),
alternating in the same run.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial

from interpreter.load.bundled import bundled_ids, rulesets_dir
from interpreter.load.checked import load_checked
from interpreter.load.events import c_events, python_events

COLD_RUNS = 5
CACHED_RUNS = 200


def timings(fn: Callable[[], object], runs: int) -> list[float]:
    """Seconds taken by each of several calls."""
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def main() -> None:
    saved = os.environ.get("RULESMITH_CACHE_DIR")
    os.environ.pop("RULESMITH_CACHE", None)
    print(f"milliseconds per load: min / median of {COLD_RUNS} cold and {CACHED_RUNS} cached loads")
    print(f"{'ruleset':<12} {'cold (parse + schema)':>24} {'cached':>16} {'cold/cached':>12}")
    try:
        with tempfile.TemporaryDirectory(prefix="rulesmith-bench-") as base:
            for ruleset_id in bundled_ids():
                path = rulesets_dir() / f"{ruleset_id}.yaml"
                name = f"{ruleset_id} (bundled)"
                load = partial(load_checked, path, name)
                cold = []
                for run in range(COLD_RUNS):
                    os.environ["RULESMITH_CACHE_DIR"] = os.path.join(base, f"{ruleset_id}-{run}")
                    cold += timings(load, 1)
                assert load().trusted, "the last cold load should have stored the document"
                cached = timings(load, CACHED_RUNS)
                c_min, c_med = min(cold) * 1e3, statistics.median(cold) * 1e3
                h_min, h_med = min(cached) * 1e3, statistics.median(cached) * 1e3
                print(f"{ruleset_id:<12} {c_min:10.1f} / {c_med:8.1f}  {h_min:7.2f} / {h_med:6.2f} "
                      f"{c_med / h_med:10.0f}x")
    finally:
        if saved is None:
            os.environ.pop("RULESMITH_CACHE_DIR", None)
        else:
            os.environ["RULESMITH_CACHE_DIR"] = saved


def _python_read(text: str) -> list[object]:
    return list(python_events(text))


def reader() -> None:
    print(f"\nmilliseconds to read a bundled ruleset's YAML events: min / median of {COLD_RUNS} runs each, alternating")
    print(f"{'ruleset':<12} {'C parser':>16} {'Python parser':>16} {'C/Python':>9}")
    for ruleset_id in bundled_ids():
        text = (rulesets_dir() / f"{ruleset_id}.yaml").read_text(encoding="utf-8")
        fast: list[float] = []
        slow: list[float] = []
        for _ in range(COLD_RUNS):
            fast += timings(partial(c_events, text), 1)
            slow += timings(partial(_python_read, text), 1)
        assert c_events(text) == list(python_events(text))
        f_min, f_med = min(fast) * 1e3, statistics.median(fast) * 1e3
        s_min, s_med = min(slow) * 1e3, statistics.median(slow) * 1e3
        print(f"{ruleset_id:<12} {f_min:7.1f} / {f_med:6.1f} {s_min:7.1f} / {s_med:6.1f} {f_med / s_med:8.2f}x")


if __name__ == "__main__":
    main()
    reader()
