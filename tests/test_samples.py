"""`samples:` of a procedure: parameter sets checked at load, shown by `rules describe`, used by `rules diff`."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import one_line_error, ruleset

from interpreter.load.bundled import bundled_ids
from interpreter.procedure.odds import odds as procedure_odds
from interpreter.ruleset.samples import as_arguments

MINI = """\
ruleset: mini
title: Mini
procedures:
  check:
    params:
      stat: {type: int, min: 0}
      bonus: {type: int, default: 0}
      mode: {type: choice, options: {calm: 1, rushed: 2}, default: calm}
    samples: [{stat: 5}, {stat: 7, mode: rushed}]
    outcomes: {success: met, failure: missed}
    values: {total: the roll}
    steps:
      - roll: {total: 1d6 + bonus}
      - decide: [{when: total >= stat, outcome: success}, {outcome: failure}]
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "mini.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def bundled_procedures():
    for ref in bundled_ids():
        for proc in ruleset(ref).procedures.values():
            yield pytest.param(ref, proc.name, id=f"{ref}.{proc.name}")


@pytest.mark.parametrize("ref,name", list(bundled_procedures()))
def test_every_bundled_procedure_with_parameters_has_a_sample_that_runs(ref, name):
    rs = ruleset(ref)
    proc = rs.procedures[name]
    if not proc.params:
        assert proc.samples == ()
        return
    assert proc.samples, f"{ref} {name} takes parameters but has no samples"
    if proc.sheet != "required":
        for sample in proc.samples:
            got = procedure_odds(rs, name, as_arguments(sample))
            assert abs(sum(float(p) for p in got.outcomes.values()) - 1) < 1e-9


def test_samples_are_kept_as_written_and_shown_by_describe(rules, tmp_path):
    path = write(tmp_path, MINI)
    assert [dict(s) for s in ruleset(path).procedures["check"].samples] == [{"stat": 5}, {"stat": 7, "mode": "rushed"}]
    shown = rules("describe", str(path))
    assert shown.exit_code == 0
    assert "Samples: `stat=5`, `stat=7 mode=rushed`" in shown.stdout


@pytest.mark.parametrize("sample,where,words", [
    ("{stat: 5, bonsu: 1}", "9:36: $.procedures.check.samples[1].bonsu", ["no parameter", "'bonsu'", "bonus"]),
    ("{bonus: 1}", "9:26: $.procedures.check.samples[1]", ["does not give 'stat'"]),
    ("{stat: -1}", "9:33: $.procedures.check.samples[1].stat", ["least allowed is 0"]),
    ("{stat: 2, mode: lazy}", "9:42: $.procedures.check.samples[1].mode", ["calm, rushed", "'lazy'"]),
])
def test_a_bad_sample_is_one_located_error(rules, tmp_path, sample, where, words):
    path = write(tmp_path, MINI.replace("{stat: 7, mode: rushed}", sample))
    line = one_line_error(rules("validate", str(path)))
    assert line.startswith(f"{path}:{where}:"), line
    for word in words:
        assert word in line
