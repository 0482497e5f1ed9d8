"""A refused computation names the remedy for what was asked: exact odds of a procedure name its loop (when it
has one) and the sampled runs of that very command; a refused sample names a number of runs that is accepted,
and does not send the user back to exact odds."""

from __future__ import annotations

import re
import shlex

import pytest

from interpreter import limits
from interpreter.dice.expr import clear_caches
from interpreter.errors import LimitExceeded
from interpreter.pipeline import compile_ref


def test_the_odds_of_a_loop_too_long_name_the_loop_and_the_sampled_command(rules):
    result = rules("odds", "nwod", "extended", "pool=40", "required=200")
    assert result.exit_code != 0
    line = result.stderr.splitlines()[0]
    assert "exact odds need more than" in line
    assert "where a loop goes on after the outcome is settled, end it there" in line
    assert line.endswith("count sampled runs instead: `rules run nwod extended pool=40 required=200 --times 10000`")
    assert "--seed N" not in line and "fewer dice" not in line


def test_a_time_refusal_inside_a_procedure_names_the_procedure_not_a_dice_expression(rules, monkeypatch):
    monkeypatch.setattr(limits, "MAX_ODDS_SECONDS", 0.0)  # any check of the clock refuses
    clear_caches()  # (a pool weighed by an earlier test would be found, not weighed, and the clock not asked)
    result = rules("odds", "nwod", "action", "pool=12")
    assert result.exit_code != 0
    line = result.stderr.splitlines()[0]
    assert "need more than 0 s of work" in line
    assert "rules roll" not in line and "EXPR" not in line
    suggested = re.search(r"`(rules run [^`]*)`", line)
    assert suggested is not None and suggested.group(1) == "rules run nwod action pool=12 --times 10000"
    monkeypatch.undo()
    ran = rules(*shlex.split(suggested.group(1))[1:], "--seed", "1")  # the command it names runs
    assert ran.exit_code == 0
    assert "10000 runs" in ran.output


def test_a_refused_sample_names_a_count_that_is_accepted(monkeypatch):
    from interpreter.procedure.sampler import sample

    monkeypatch.setattr(limits, "MAX_SAMPLE_WORK", limits.MAX_SAMPLE_WORK // 20)
    compiled = compile_ref("nwod")
    args = {"pool": 20, "required": 30}
    with pytest.raises(LimitExceeded) as refused:
        sample(compiled, "extended", args, 1_000_000, seed=1)
    text = f"{refused.value}; {refused.value.hint}"
    assert "rules odds" not in text
    fewer = int(text.split("ask for at most ")[1].split()[0])
    assert f"(--times {fewer})" in text
    assert 0 < fewer < 1_000_000
    assert fewer < 100 or fewer % 10 ** (len(str(fewer)) - 2) == 0  # a round number: two significant digits
    for seed in (1, 2, 3):  # that many runs fit, whatever the seed
        assert sample(compiled, "extended", args, fewer, seed=seed).times == fewer
