"""A corpus of hostile inputs, each case run through this checkout's `rules` in its own process.

Each case is a test of its own, its command run in a process of its own (forked from a server that has
started Python and imported `rules` once: ``hostile/forkserver.py``), with its expected exit code, one line on stderr for a refusal, no
traceback and no `internal error` (the command line's guard exists for bugs, not as the error path), a
bound on its CPU time (0.5 s for a refusal, start-up included, unless the case says why it may take
more) and on its peak memory (300 MB), and every file of its folder unchanged.  The cases run two at
a time in the background from the first test on; each test waits for its own.  Large inputs are made
at test time.  The last test prints the count (CI shows it).

The cases: ``hostile/round_one.py`` (rulesets, formulas, dice, arguments, sheets and command lines
broken by mutation) and ``hostile/round_two.py`` (the parse cache, files named by files, ruleset
folders, names, nesting, creation rules, tracks, writes and completion) and ``hostile/round_three.py``
(valid rulesets made costly to compile and run: long formulas, large files, deep nesting, 64-bit
margins) and ``hostile/round_four.py`` (distributions of millions of values, odds printed and charted,
whole commands: sweeps, diffs and validations beyond their budget) and ``hostile/round_five.py``
(ruleset folders never read before, ids claimed from bundled rulesets, sections ten times larger) and
``hostile/folders.py`` (ruleset folders of a thousand files, seen again by a second command: kept in the
cache's index of the folders, edits seen at once) and ``hostile/corners.py`` (tables of thousands of
rows, wide, overlapping or read by a hundred procedures, steps naming unknown tables, stray keys after a
large section: ten times the size that took a second).  How a case runs and what it must end in:
``hostile/case.py``.
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor

import pytest
from hostile import corners, folders, forkserver, round_five, round_four, round_one, round_three, round_two
from hostile.case import Case, environment, launch, run_case

CASES: list[Case] = [*round_one.cases(), *round_two.cases(), *round_three.cases(), *round_four.cases(),
                     *round_five.cases(), *folders.cases(), *corners.cases()]
KINDS = ("yaml", "formula", "dice", "arguments", "sheets", "command line")


@pytest.fixture(scope="module")
def results(request, tmp_path_factory) -> dict[int, Future[str | None]]:
    """The selected cases, started at once two (or as many as there are cores) at a time."""
    chosen = list({item.callspec.params["index"] for item in request.session.items
                     if getattr(item, "originalname", "") == "test_hostile_case" and hasattr(item, "callspec")})
    base = tmp_path_factory.mktemp("corpus")
    shared = base / "shared-cache"
    warm = Case("warm", ["validate"])
    launch(["validate"], base, environment(base, warm, shared), 60, base / "warm")  # the bundled rulesets cached
    pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 2)
    # The costliest first (a raised CPU bound, commands run before the measured one, inputs made at test
    # time), so that the run does not end with one long case on one core while the other waits.
    chosen.sort(key=lambda i: (-CASES[i].cpu - len(CASES[i].warm) - any(map(callable, CASES[i].files.values())), i))
    futures = {i: pool.submit(run_case, CASES[i], base / f"case{i}", base / f"out{i}", shared) for i in chosen}
    yield futures
    pool.shutdown(cancel_futures=True)
    forkserver.close_all()


# The cases share the fixture that runs them all: in a parallel run they stay on one worker, which runs them all once.
@pytest.mark.xdist_group("hostile corpus")
@pytest.mark.parametrize("index", range(len(CASES)), ids=[f"{i:03d} {case.id()}" for i, case in enumerate(CASES)])
def test_hostile_case(results, index):
    problem = results[index].result()
    assert problem is None, f"{CASES[index].id()}: {problem}"


@pytest.mark.xdist_group("hostile corpus")
def test_the_corpus_has_every_kind_and_says_how_large_it_is(results, capsys):
    kinds = {case.kind for case in CASES}
    assert set(KINDS) <= kinds
    for kind in KINDS:
        assert sum(case.kind == kind for case in CASES) >= 20, kind
    assert len(CASES) >= 400
    done = [f.result() for f in results.values()]
    with capsys.disabled():
        print(f"\nhostile corpus: {len(CASES)} cases ({len(kinds)} kinds), {len(done)} run, "
              f"{sum(r is not None for r in done)} failed")


def test_a_case_that_breaks_its_promise_is_caught(tmp_path):
    """The runner itself: a case whose exit code, output, time or files are wrong fails (so the corpus can fail)."""
    shared = tmp_path / "cache"
    ok = run_case(Case("probe", ["roll", "1d6", "--seed", "1"], exit=(0,)), tmp_path / "a", tmp_path / "a-out", shared)
    assert ok is None
    wrong_exit = run_case(Case("probe", ["roll", "1d6", "--seed", "1"]), tmp_path / "b", tmp_path / "b-out", shared)
    assert wrong_exit is not None and "exit code 0" in wrong_exit
    slow = run_case(Case("probe", ["roll", "1d6", "--seed", "1"], exit=(0,), cpu=0.001), tmp_path / "c",
                    tmp_path / "c-out", shared)
    assert slow is not None and "s of CPU, more than 0.001" in slow
    changed = run_case(Case("probe", ["sheet", "new", "lockwood", "-o", "x.yaml"], exit=(0,), stderr_lines=0),
                       tmp_path / "d", tmp_path / "d-out", shared)
    assert changed is not None and "files changed, appeared or went: ['x.yaml']" in changed
    leaked = run_case(Case("probe", ["roll", "1d6", "--seed", "1"], exit=(0,), never=("1d6",)), tmp_path / "e",
                      tmp_path / "e-out", shared)
    assert leaked is not None and "the output holds ['1d6']" in leaked
