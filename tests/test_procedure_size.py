"""A procedure's size is bounded before it is compiled, and the code it is written as while it is
written: a procedure too large is refused in one located line, whichever way it runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from interpreter import limits
from interpreter.dice.sources import GivenSource
from interpreter.errors import Invalid, LimitExceeded
from interpreter.pipeline import compile_ref
from interpreter.procedure.odds import odds
from interpreter.procedure.run import run
from interpreter.procedure.sampler import sampler


def ruleset(tmp_path: Path, steps: int, *, calls: int = 0) -> Path:
    text = "ruleset: sized\ntitle: Sized\nprocedures:\n"
    for n in range(calls + 1):
        text += (f"  p{n}:\n    outcomes: {{high: high, low: low}}\n    values: {{t: the total}}\n    steps:\n"
                 "      - roll: {a: 1d6}\n      - let: {t: 0}\n")
        text += "".join(f"      - let: {{t: \"t + a * {i % 5}\"}}\n" for i in range(steps))
        if n < calls:
            text += f"      - call: p{n + 1}\n        as: next\n"
        text += "      - decide: [{when: t > 3, outcome: high}, {outcome: low}]\n"
    path = tmp_path / "sized.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_procedure_of_more_steps_than_the_limit_is_refused_at_its_steps(tmp_path: Path) -> None:
    path = ruleset(tmp_path, limits.MAX_PROCEDURE_STEPS)
    with pytest.raises(Invalid) as refused:
        run(compile_ref(str(path)), "p0", {}, GivenSource([3]))
    text = str(refused.value)
    assert text.startswith(f"{path}:8:7: $.procedures.p0.steps: procedure 'p0' has {limits.MAX_PROCEDURE_STEPS + 3}"
                           " steps (nested ones included)")
    assert "\n" not in text


def test_just_under_the_limit_it_runs(tmp_path: Path) -> None:
    path = ruleset(tmp_path, limits.MAX_PROCEDURE_STEPS - 3)
    compiled = compile_ref(str(path))
    assert run(compiled, "p0", {}, GivenSource([2])).values["t"] == 2 * sum(i % 5 for i in range(497))


def test_the_procedures_it_calls_count_towards_its_size(tmp_path: Path) -> None:
    path = ruleset(tmp_path, limits.MAX_PROCEDURE_STEPS // 3, calls=2)
    with pytest.raises(Invalid, match="p0' has 509 steps .nested ones and those of the 2 procedures it calls included"):
        compile_ref(str(path))
    path = ruleset(tmp_path, limits.MAX_PROCEDURE_STEPS // 4, calls=2)
    assert run(compile_ref(str(path)), "p0", {}, GivenSource([1, 1, 1])).outcome == "high"


def test_code_written_past_its_limit_is_refused_at_the_step_being_written(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    path = ruleset(tmp_path, 40)
    compiled = compile_ref(str(path))
    monkeypatch.setattr(limits, "MAX_WRITTEN_LINES", 60)
    for way in (lambda: run(compiled, "p0", {}, GivenSource([1])), lambda: sampler(compiled, "p0", {}),
                lambda: odds(compiled, "p0", {})):
        with pytest.raises(LimitExceeded) as refused:
            way()
        assert "written as more than 60 lines of code" in str(refused.value)
        assert refused.value.where is not None and refused.value.where.path.startswith("$.procedures.p0.steps[")


def test_a_sample_whose_runs_would_take_too_long_is_refused_after_its_first_runs(monkeypatch: pytest.MonkeyPatch
                                                                                ) -> None:
    """The work of a whole sample is foreseen from its first 100 runs: refused at once, saying how many would do.

    Under a limit a tenth of the real one, so that the sample of as many runs as it says would do is short."""
    import time

    from interpreter.procedure.sampler import sample

    monkeypatch.setattr(limits, "MAX_SAMPLE_WORK", limits.MAX_SAMPLE_WORK // 10)
    compiled = compile_ref("nwod")
    started = time.process_time()
    with pytest.raises(LimitExceeded) as refused:
        sample(compiled, "extended", {"pool": 20, "required": 30}, 1_000_000, seed=1)
    assert time.process_time() - started < 1.0
    text = str(refused.value)
    assert "1000000 runs of this procedure would take about" in text
    fewer = int(text.split("ask for at most ")[1].split()[0])
    assert 0 < fewer < 1_000_000
    counted = sample(compiled, "extended", {"pool": 20, "required": 30}, fewer, seed=1)  # and that many do
    assert counted.times == fewer


def test_the_sample_limit_counts_every_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from interpreter.procedure.sampler import sample

    monkeypatch.setattr(limits, "MAX_SAMPLE_WORK", 50)
    compiled = compile_ref("lockwood")
    with pytest.raises(LimitExceeded, match="ask for at most"):
        sample(compiled, "check", {"stat": 12, "dc": 15}, 20, seed=1)  # refused before its 100th run
    assert sample(compiled, "check", {"stat": 12, "dc": 15}, 2, seed=1).times == 2
