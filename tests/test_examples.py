"""Every worked example a bundled ruleset ships under `examples:` runs through the library and the CLI."""

from __future__ import annotations

import json

import pytest
from helpers import ruleset, run_given

from interpreter.load.bundled import bundled_ids


def all_examples():
    for ruleset_id in bundled_ids():
        for example in ruleset(ruleset_id).examples:
            yield pytest.param(ruleset_id, example, id=f"{ruleset_id}:{example.name}")


EXAMPLES = list(all_examples())


def test_there_are_worked_examples():
    assert len(EXAMPLES) >= 6


@pytest.mark.parametrize("ruleset_id,example", EXAMPLES)
def test_example_through_the_library(ruleset_id, example):
    """The refs of each example name the rules it proves (e.g. R12, N39)."""
    result = run_given(ruleset_id, example.procedure, example.params, list(example.dice))
    if example.outcome is not None:
        assert result.outcome == example.outcome
    for name, value in example.values.items():
        assert result.values[name] == value, name


@pytest.mark.parametrize("ruleset_id,example", EXAMPLES)
def test_example_through_the_cli(rules, ruleset_id, example):
    params = [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in example.params.items()]
    dice = ",".join(str(d) for d in example.dice)
    result = rules("run", ruleset_id, example.procedure, *params, "--dice", dice, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    if example.outcome is not None:
        assert data["outcome"] == example.outcome
    for name, value in example.values.items():
        assert data["values"][name] == value, name
