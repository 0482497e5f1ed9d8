"""docs/cookbook-pools.md: its ruleset is valid, its commands run, and its odds match enumeration."""

from __future__ import annotations

import itertools
import json
import math
import shlex
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from helpers import assert_sampling_matches_odds

PAGE = Path(__file__).parent.parent / "docs" / "cookbook-pools.md"


@pytest.fixture
def pools(tmp_path):
    """The page's ruleset, saved as pools.yaml in a fresh folder."""
    text = PAGE.read_text(encoding="utf-8")
    path = tmp_path / "pools.yaml"
    path.write_text(text.split("```yaml\n")[1].split("```")[0], encoding="utf-8")
    return path


def exact_odds(rules, path, *args):
    result = rules("odds", str(path), *args, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    return {k: Fraction(v) for k, v in data["exact"].items()}


def blades(dice: int) -> dict[str, Fraction]:
    """Every throw of the Blades action roll, enumerated."""
    out: Counter[str] = Counter()
    count = dice or 2
    for throw in itertools.product(range(1, 7), repeat=count):
        kept = [min(throw)] if dice == 0 else list(throw)
        best, sixes = max(kept), kept.count(6)
        outcome = ("critical" if sixes >= 2 else "success" if best == 6 else "partial" if best >= 4 else "failure")
        out[outcome] += Fraction(1, 6 ** count)
    return {k: out.get(k, Fraction(0)) for k in ("critical", "success", "partial", "failure")}


def shadowrun(dice: int, threshold: int = 1) -> dict[str, Fraction]:
    """The Shadowrun test by counting: k ones, h hits, the rest 2 to 4 (multinomial)."""
    out: Counter[str] = Counter()
    for ones in range(dice + 1):
        for hits in range(dice - ones + 1):
            ways = math.comb(dice, ones) * math.comb(dice - ones, hits) * 2 ** hits * 3 ** (dice - ones - hits)
            glitch = ones * 2 > dice
            outcome = ("critical_glitch" if glitch and hits == 0 else "glitch" if glitch
                       else "success" if hits >= threshold else "failure")
            out[outcome] += Fraction(ways, 6 ** dice)
    return {k: out.get(k, Fraction(0)) for k in ("critical_glitch", "glitch", "success", "failure")}


def test_page_commands_run(rules, pools, monkeypatch):
    monkeypatch.chdir(pools.parent)
    text = PAGE.read_text(encoding="utf-8")
    block = text.split("```sh\n")[1].split("```")[0]
    outputs = {}
    for line in block.strip().splitlines():
        result = rules(*shlex.split(line)[1:])
        assert result.exit_code == 0, (line, result.output)
        outputs[line] = result.output
    assert outputs["rules run pools.yaml action dice=3 --dice 6,2,6"].startswith("pools action: critical")
    assert outputs["rules run pools.yaml test dice=4 --dice 1,1,1,5"].startswith("pools test: glitch")
    trace = text.split("The trace of a run")[1].split("```\n")[1].split("```")[0]
    assert outputs["rules run pools.yaml action dice=3 --dice 6,2,6"] == trace


@pytest.mark.parametrize("dice", [0, 1, 2, 3, 5])
def test_blades_action_matches_enumeration(rules, pools, dice):
    assert exact_odds(rules, pools, "action", f"dice={dice}") == blades(dice)


def test_blades_two_dice_as_the_page_says(rules, pools):
    assert exact_odds(rules, pools, "action", "dice=2") == {
        "critical": Fraction(1, 36), "success": Fraction(5, 18), "partial": Fraction(4, 9), "failure": Fraction(1, 4)}


@pytest.mark.parametrize("dice,threshold", [(1, 1), (4, 1), (7, 2), (30, 1), (30, 12)])
def test_shadowrun_test_matches_counting(rules, pools, dice, threshold):
    got = exact_odds(rules, pools, "test", f"dice={dice}", f"threshold={threshold}")
    want = shadowrun(dice, threshold)
    assert {k: got.get(k, Fraction(0)) for k in want} == want


def test_doubles_move_again_one_in_six(rules, pools):
    assert exact_odds(rules, pools, "move") == {"again": Fraction(1, 6), "done": Fraction(5, 6)}


@pytest.mark.parametrize("procedure,params,value", [
    ("action", {"dice": 3}, None), ("action", {"dice": 3}, "best"), ("test", {"dice": 6}, None),
    ("test", {"dice": 6}, "ones"), ("move", {}, None)])
def test_sampled_runs_agree_with_the_exact_odds(pools, procedure, params, value):
    assert_sampling_matches_odds(str(pools), procedure, params, value=value)
