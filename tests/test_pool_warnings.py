"""`rules validate` warns at a pool whose exact odds its own samples would have refused, and only there."""

from __future__ import annotations

BIG = """\
ruleset: big
title: Big pools
description: A pool read for its sets, too big for exact odds at one of its samples.
procedures:
  sets:
    summary: The widest set of four kinds of dice.
    params:
      dice: {type: int, min: 1, max: 60, default: 2, help: dice of each kind}
    SAMPLES
    outcomes:
      wide: a set of three
      narrow: not
    steps:
      - roll: {pool: "{(dice)d10, (dice)d12, (dice)d8, (dice)d6}"}
        read: {width: largest set, high: highest, low: lowest}
      - decide:
          - {when: width >= 3, outcome: wide}
          - {outcome: narrow}
"""


def write(tmp_path, samples: str):
    path = tmp_path / "big.yaml"
    path.write_text(BIG.replace("SAMPLES", samples), encoding="utf-8")
    return path


def test_a_sample_whose_pool_odds_would_be_refused_is_warned_about(rules, tmp_path):
    path = write(tmp_path, "samples: [{dice: 1}, {dice: 60}]")
    result = rules("validate", str(path))
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.output.splitlines() if line.startswith("warning:")]
    want = (f"warning: {path}:14:23: $.procedures.sets.steps[0].roll.pool: at dice=60, exact odds of this pool "
            "would take too much work; use fewer dice, or sample it with `rules run ... --seed N`")
    assert warnings == [want]
    refused = rules("odds", str(path), "sets", "dice=60")
    assert refused.exit_code == 1 and "exact odds of this pool would take too much work" in refused.output
    assert rules("odds", str(path), "sets", "dice=1").exit_code == 0


def test_the_defaults_stand_for_a_procedure_without_samples(rules, tmp_path):
    quiet = rules("validate", str(write(tmp_path, "")))
    assert quiet.exit_code == 0 and "warning" not in quiet.output, quiet.output
    big = write(tmp_path, "")
    big.write_text(big.read_text(encoding="utf-8").replace("default: 2", "default: 40"), encoding="utf-8")
    loud = rules("validate", str(big))
    assert loud.exit_code == 0 and "at the defaults, exact odds of this pool would take too much work" in loud.output
