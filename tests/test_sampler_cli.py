"""`rules run ... --times N`: many runs counted through the sampling path, as text and as JSON (docs/json.md)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import interpreter


def test_times_json_counts_what_the_library_counts(rules: Any) -> None:
    result = rules("run", "nwod", "action", "pool=5", "--times", "3000", "--seed", "1", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    counted = interpreter.sample("nwod", "action", {"pool": 5}, times=3000, seed=1)
    assert (data["ruleset"], data["procedure"], data["times"], data["seed"]) == ("nwod", "action", 3000, 1)
    assert data["counts"] == dict(counted.outcomes) and sum(data["counts"].values()) == 3000
    assert data["outcomes"] == pytest.approx({k: c / 3000 for k, c in counted.outcomes.items()}, abs=1e-9)
    successes = data["values"]["successes"]
    assert successes["counts"] == {str(k): c for k, c in counted.values["successes"].items()}
    assert sum(successes["counts"].values()) == 3000
    assert successes["mean"] == pytest.approx(sum(int(k) * c for k, c in successes["counts"].items()) / 3000)
    # N4: five successes or more are exceptional
    assert data["counts"]["exceptional_success"] == sum(c for k, c in successes["counts"].items() if int(k) >= 5)
    assert data["values"]["chance"]["counts"] == {"false": 3000}


def test_times_text_lists_every_outcome_with_its_count(rules: Any) -> None:
    result = rules("run", "lockwood", "check", "stat=12", "dc=15", "--times", "500", "--seed", "4")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "lockwood check: 500 runs (seed 4)"
    counts = {}
    for line in lines[1:5]:
        found = re.match(r"  (\w+) +(\d+) +[\d.]+%", line)
        assert found, line
        counts[found.group(1)] = int(found.group(2))
    assert set(counts) == {"critical_success", "success", "failure", "critical_failure"}
    assert sum(counts.values()) == 500
    assert re.fullmatch(r"natural: mean [\d.]+, from \d+ to \d+", lines[5])


def test_times_is_refused_with_given_dice_a_sheet_or_no_runs(rules: Any, tmp_path: Any) -> None:
    given = rules("run", "lockwood", "check", "stat=12", "dc=15", "--times", "5", "--dice", "3")
    assert given.exit_code == 2 and "--times counts runs without a sheet or given dice" in given.stderr
    sheet = tmp_path / "s.yaml"
    assert rules("sheet", "new", "lockwood", "-o", str(sheet), "--name", "A").exit_code == 0
    assert rules("run", "lockwood", "check", "stat=12", "dc=15", "--times", "5", "--sheet", str(sheet)).exit_code == 2
    assert rules("run", "lockwood", "check", "stat=12", "dc=15", "--times", "0").exit_code == 2
    many = rules("run", "lockwood", "check", "stat=12", "dc=15", "--times", "2000000")
    assert many.exit_code == 1 and "a sample is 1 to 1000000 runs" in many.stderr
