"""Formula speed: our checked, compiled formulas against simpleeval on the same pre-parsed trees.

Run as `python bench/formula_bench.py` after `pip install .[bench]`. Formulas are evaluated
inside exact-odds loops many thousands of times; this measures one evaluation of each.
"""

from __future__ import annotations

import ast
import statistics
import time

from simpleeval import SimpleEval

from interpreter.formula.compile import ALLOWED_FUNCTIONS, compile_formula

CASES = [
    ("natural + stat + mod", {"natural": 14, "stat": 3, "mod": 2}),
    ("0 if outcome == miss else roll", {"outcome": 2, "miss": 3, "roll": 11}),
    ("min(stat_cap, stat + 1) if not_over == 2 else (stat - 1 if not_over == 0 else stat)",
     {"stat_cap": 18, "stat": 12, "not_over": 2}),
    ("advantage_dice if advantage != disadvantage else 1", {"advantage_dice": 2, "advantage": True, "disadvantage": False}),
]
REPEATS = 7
CALLS = 20000


def per_call(fn) -> float:
    """The median seconds per call over several timed runs."""
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(CALLS):
            fn()
        times.append((time.perf_counter() - start) / CALLS)
    return statistics.median(times)


def main() -> None:
    print(f"seconds per evaluation, median of {REPEATS} runs of {CALLS}")
    print(f"{'formula':<60} {'ours':>10} {'simpleeval':>11} {'ratio':>7}")
    for text, env in CASES:
        ours = compile_formula(text, names=set(env))
        assert ours.evaluate(env) == SimpleEval(names=env, functions=dict(ALLOWED_FUNCTIONS)).eval(text)
        tree = ast.parse(text.strip(), mode="eval").body
        evaluator = SimpleEval(names=env, functions=dict(ALLOWED_FUNCTIONS))
        t_ours = per_call(lambda ours=ours, env=env: ours.evaluate(env))
        t_simple = per_call(lambda evaluator=evaluator, text=text, tree=tree: evaluator.eval(text, previously_parsed=tree))
        shown = text if len(text) <= 58 else text[:55] + "..."
        print(f"{shown:<60} {t_ours * 1e6:8.2f}us {t_simple * 1e6:9.2f}us {t_simple / t_ours:6.1f}x")


if __name__ == "__main__":
    main()
