"""A procedure that reports no values is sampled by a written function too (it once failed to compile)."""

from __future__ import annotations

import random

from interpreter.dice.expr import RandomSource
from interpreter.pipeline import compile_ref
from interpreter.procedure import sampler
from interpreter.procedure.run import run as run_once

COIN = """\
ruleset: coin
title: Coin
procedures:
  flip:
    outcomes: {heads: heads, tails: tails}
    steps:
      - roll: {d: 1d2}
      - decide: [{when: d == 1, outcome: heads}, {outcome: tails}]
"""


def test_a_procedure_without_values_is_written_and_samples_as_the_traced_run(tmp_path):
    path = tmp_path / "coin.yaml"
    path.write_text(COIN, encoding="utf-8")
    rs = compile_ref(str(path))
    assert sampler.written(rs, "flip")
    run = sampler.sampler(rs, "flip", {})
    for seed in range(50):
        traced = run_once(rs, "flip", {}, RandomSource(random.Random(seed)))
        assert run(random.Random(seed)) == (traced.outcome,)
