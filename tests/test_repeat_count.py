"""docs/format.md's repeat: the count is a formula worked out once; 0 or less runs the steps no times."""

from __future__ import annotations

import json

import pytest


@pytest.mark.parametrize("n,total", [(-3, 0), (0, 0), (1, 0), (2, 1), (4, 6)])
def test_repeat_count_is_a_formula_and_zero_or_less_runs_nothing(rules, tmp_path, n, total):
    path = tmp_path / "rep.yaml"
    path.write_text("""ruleset: rep
title: Rep
procedures:
  r:
    summary: add the passes 1 to n - 1
    params:
      n: {type: int}
    outcomes: {done: always}
    values: {total: the sum}
    steps:
      - let: {total: 0}
      - repeat: n - 1
        counter: i
        steps:
          - let: {total: total + i, n: n + 10}
      - decide:
          - {outcome: done}
""", encoding="utf-8")
    result = rules("run", str(path), "r", f"n={n}", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["values"]["total"] == total  # n changed inside: the count was fixed at start
