"""Progress on stderr for a long command: on a terminal only, never under --json or into a pipe.

The whole `rules diff` runs for real with its stderr on a pseudo-terminal and then into a pipe; the
chart it draws is checked to hold the panels that changed most, measured here from its --json.
"""

from __future__ import annotations

import io
import json
import os
import re
import time
from html import unescape
from pathlib import Path

import pytest
from test_caret import rules_with_stderr_on

from interpreter.cli.progress import Progress

HOUSE = "extends: nwod\nruleset: nwod-9again\nconstants:\n  default_again: 9\n"
LINE = re.compile(r"rules diff: (\d+) of (\d+) cases, \d+ s")


class Screen(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def run_rules(*args: str, cwd: Path, terminal: bool) -> tuple[int, str, str]:
    """`rules ARGS` with stderr on a pseudo-terminal (or a pipe), progress after 0.2 s: (exit code, stdout, stderr)."""
    os.environ["RULESMITH_PROGRESS_AFTER"] = "0.2"
    try:
        return rules_with_stderr_on(terminal, *args, cwd=cwd)
    finally:
        del os.environ["RULESMITH_PROGRESS_AFTER"]


def test_a_line_counts_the_steps_and_is_wiped_at_the_end():
    screen = Screen()
    with Progress("job", 5, " cases", stream=screen, delay=0) as progress:
        for _ in range(3):
            progress.step()
        deadline = time.monotonic() + 30
        while "3 of 5 cases" not in screen.getvalue() and time.monotonic() < deadline:
            time.sleep(0.05)
    shown = screen.getvalue()
    assert "\rjob: 3 of 5 cases, 0 s" in shown
    last = shown.rsplit("\r", 2)  # the line is written over with blanks and the cursor put back
    assert last[-1] == "" and last[-2].strip() == ""


def test_no_line_for_a_pipe_under_json_or_for_a_quick_job():
    for stream, quiet, delay in ((io.StringIO(), False, 0.0), (Screen(), True, 0.0), (Screen(), False, 60.0)):
        with Progress("job", 2, stream=stream, quiet=quiet, delay=delay) as progress:
            progress.step()
        assert stream.getvalue() == ""


@pytest.fixture(scope="module")
def house(tmp_path_factory):
    folder = tmp_path_factory.mktemp("diff")
    (folder / "house.yaml").write_text(HOUSE, encoding="utf-8")
    return folder


def test_a_whole_diff_shows_its_progress_on_a_terminal(house):
    code, out, err = run_rules("diff", "nwod", "house.yaml", cwd=house, terminal=True)
    assert code == 0, err
    counts = [(int(a), int(b)) for a, b in LINE.findall(err)]
    assert counts, err
    total = counts[0][1]
    assert total > 1 and all(b == total and 1 <= a <= total for a, b in counts)
    assert err.endswith("\r") and err.rsplit("\r", 2)[-2].strip() == ""  # wiped before the answer
    assert "nwod-9again" in out.splitlines()[0]


@pytest.fixture(scope="module")
def as_json(house):
    """The whole diff under --json with stderr on a terminal, drawing its chart as HTML: (exit code, stdout, stderr)."""
    return run_rules("diff", "nwod", "house.yaml", "--json", "--plot", "most.html", cwd=house, terminal=True)


def test_a_whole_diff_under_json_or_into_a_pipe_shows_none(house, as_json):
    code, out, err = as_json
    assert code == 0 and err == ""
    json.loads(out)
    code, out, err = run_rules("diff", "nwod", "house.yaml", cwd=house, terminal=False)
    assert code == 0 and err == "" and "nwod-9again" in out


def moved(before: dict[str, float] | None, after: dict[str, float] | None) -> float:
    """Half the summed differences of two distributions: how much of the chance a change moved."""
    if before is None or after is None:
        return 1.0
    return sum(abs(before.get(k, 0) - after.get(k, 0)) for k in set(before) | set(after)) / 2


def test_the_whole_diff_charts_the_panels_that_changed_most(house, as_json):
    code, out, err = as_json
    assert code == 0, err
    panels = {}
    for case in json.loads(out)["odds"]:
        label = f"{case['procedure']} {' '.join(f'{k}={v}'.lower() for k, v in case['params'].items())}".rstrip()
        outcomes = {k: (p["before"], p["after"]) for k, p in case["outcomes"].items()}
        sides = [None if any(v[i] is None for v in outcomes.values()) else {k: v[i] for k, v in outcomes.items()}
                 for i in (0, 1)]
        panels[f"{label}: outcomes"] = moved(*sides)
        for name, dist in case["distributions"].items():
            if len(set(dist["before"] or {}) | set(dist["after"] or {})) > 1:
                panels[f"{label}: {name}"] = moved(dist["before"], dist["after"])
    changed = {title: m for title, m in panels.items() if m > 1e-12}
    page = (house / "most.html").read_text(encoding="utf-8")
    drawn = [unescape(c) for c in re.findall(r"<caption>(.*?)</caption>", page)]
    assert len(changed) > 12 and len(drawn) == 12, (len(changed), drawn)
    assert set(drawn) <= set(changed)
    least_drawn = min(changed[t] for t in drawn)
    assert all(m <= least_drawn + 1e-9 for t, m in changed.items() if t not in drawn)
    assert f"{len(changed) - 12} panels that changed less left out" in page


def test_a_sweep_counts_each_point_as_it_is_worked_out():
    from helpers import ruleset

    from interpreter.procedure.sweep import sweep

    seen: list[int] = []
    done = sweep(ruleset("nwod"), "action", {}, [("pool", ["1", "2", "3"]), ("again", ["9", "10"])],
                 each=lambda: seen.append(len(seen) + 1))
    assert seen == [1, 2, 3, 4, 5, 6] and len(done.points) == 6


def test_a_job_of_unknown_length_shows_the_time_it_has_taken():
    assert Progress("rules run: 500000 runs", quiet=True).line(3.2) == "rules run: 500000 runs, 3 s"
    assert Progress("rules diff", 9, " cases", quiet=True).line(12.0) == "rules diff: 0 of 9 cases, 12 s"
