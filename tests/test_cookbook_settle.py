"""docs/cookbook-pools.md's loop with no limit (Tunnels & Trolls) and raises of wild dice (Savage Worlds).

Each ruleset as the page gives it; its exact odds against an independent computation: the saving
roll by a recursion over the running total (every roll adds at least 2, so it ends; once the total
reaches the target nothing changes the outcome), the raises by following each exploding die's chain
of throws until the bound compared with is passed.
"""

from __future__ import annotations

import itertools
import time
from fractions import Fraction
from functools import cache

import pytest
from test_cookbook_pool_systems import odds as odds_json
from test_cookbook_pool_systems import saved

from interpreter.api import load_ruleset, odds

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, 7)]


@pytest.fixture
def page(tmp_path):
    for name in ("tt.yaml", "savage.yaml"):
        (tmp_path / name).write_text(saved(name), encoding="utf-8")
    return tmp_path


# -- Tunnels & Trolls --------------------------------------------------------------------------

def saving_roll(level: int, attribute: int) -> Fraction:
    """P(success): the first roll (a 3 fails), then while doubles, another 2d6 added."""
    need = 5 * level + 15 - attribute

    @cache
    def reaches(total: int) -> Fraction:
        """P(the final total reaches `need`) with `total` so far and another roll to come."""
        if total >= need:
            return Fraction(1)
        out = Fraction(0)
        for a, b in ROLLS:
            if a == b:
                out += reaches(total + a + b)
            elif total + a + b >= need:
                out += 1
        return out / 36

    won = Fraction(0)
    for a, b in ROLLS:
        if a + b == 3:
            continue
        won += reaches(a + b) if a == b else Fraction(a + b >= need)
    return won / 36


def totals(depth: int) -> dict[int, Fraction]:
    """The distribution of the total, every chain of at most `depth` doubles followed (the rest is left out:
    at most 6**-depth)."""
    out: dict[int, Fraction] = {}
    frontier = {0: Fraction(1)}
    for _ in range(depth + 1):
        nxt: dict[int, Fraction] = {}
        for total, p in frontier.items():
            for a, b in ROLLS:
                into = nxt if a == b else out
                into[total + a + b] = into.get(total + a + b, Fraction(0)) + p / 36
        frontier = nxt
    return out


@pytest.mark.parametrize("level,attribute,issue", [
    (2, 12, Fraction(1730591, 15116544)),
    (1, 14, Fraction(503, 648)),
    (3, 10, None),
    (1, 5, None),
])
def test_saving_roll_with_doubles_rolled_again_without_end_is_exact(rules, page, level, attribute, issue):
    data = odds_json(rules, page / "tt.yaml", "save", f"level={level}", f"attribute={attribute}")
    assert "truncated" not in data
    got = {k: Fraction(v) for k, v in data["exact"].items()}
    want = saving_roll(level, attribute)
    assert got == {"success": want, "failure": 1 - want}
    if issue is not None:
        assert want == issue


def test_the_running_total_is_shown_with_its_endless_tail_left_out(rules, page):
    data = odds_json(rules, page / "tt.yaml", "save", "level=2", "attribute=12")
    total = data["values"]["total"]
    assert 0 <= total["truncated"] < 1e-12 and "exact" not in total
    assert abs(total["mean"] - 8.4) < 1e-9  # 7, and a sixth of the time the same again: 7 / (1 - 1/6)
    deep = totals(20)  # what is left out is below 6**-20
    for value in range(2, 61):
        assert abs(total["distribution"].get(str(value), 0.0) - float(deep.get(value, 0))) < 1e-12, value


def test_saving_roll_odds_take_well_under_a_second(page):
    ruleset = load_ruleset(page / "tt.yaml")
    started = time.process_time()
    found = odds(ruleset, "save", {"level": 2, "attribute": 12})
    assert time.process_time() - started < 1.0
    assert found.exact and found.outcomes["success"] == Fraction(1730591, 15116544)


def test_a_loop_counting_its_passes_settles_too(rules, tmp_path):
    path = tmp_path / "sixes.yaml"
    path.write_text("""ruleset: sixes
title: Sixes
procedures:
  wait:
    summary: roll a d6 until it shows 6; quick when it takes at most three rolls
    outcomes: {quick: three rolls or fewer, slow: more}
    values: {rolls: the rolls it took}
    steps:
      - let: {seen: 0, rolls: 0}
      - while: seen < 6
        steps:
          - roll: {seen: 1d6}
          - let: {rolls: rolls + 1}
      - decide:
          - {when: rolls <= 3, outcome: quick}
          - {outcome: slow}
""", encoding="utf-8")
    data = odds_json(rules, path, "wait")
    assert data["exact"] == {"quick": "91/216", "slow": "125/216"}  # 1 - (5/6)**3
    rolls = data["values"]["rolls"]
    assert 0 <= rolls["truncated"] < 1e-12 and abs(rolls["mean"] - 6) < 1e-9
    for k in range(1, 40):
        assert abs(rolls["distribution"][str(k)] - (5 / 6) ** (k - 1) / 6) < 1e-12
    counted = path.read_text(encoding="utf-8").replace("        steps:\n", "        counter: rolls\n        steps:\n")
    path.write_text(counted.replace("          - let: {rolls: rolls + 1}\n", ""), encoding="utf-8")
    data = odds_json(rules, path, "wait")  # a `counter` counts passes: followed pass by pass, its tail cut off
    assert "exact" not in data and 0 < data["truncated"] < 1e-12
    assert abs(data["outcomes"]["quick"] - 91 / 216) < 1e-12
    assert abs(data["values"]["rolls"]["distribution"]["30"] - (5 / 6) ** 29 / 6) < 1e-12


def test_a_loop_whose_numbers_fall_is_followed_pass_by_pass_and_stays_exact(rules, tmp_path):
    path = tmp_path / "down.yaml"
    path.write_text("""ruleset: down
title: Down
procedures:
  fight:
    summary: hit with a d6 until the hit points are gone
    params:
      hp: {type: int, default: 20, help: hit points}
    outcomes: {quick: down in 5 rounds or fewer, slow: more}
    steps:
      - let: {rounds: 0}
      - while: hp > 0
        steps:
          - roll: {dmg: 1d6}
          - let: {hp: hp - dmg, rounds: rounds + 1}
      - decide:
          - {when: rounds <= 5, outcome: quick}
          - {outcome: slow}
""", encoding="utf-8")
    data = odds_json(rules, path, "fight")
    quick = Fraction(sum(sum(hits) >= 20 for hits in itertools.product(range(1, 7), repeat=5)), 6 ** 5)
    assert data["exact"] == {"quick": str(quick), "slow": str(1 - quick)}


# -- Savage Worlds raises ----------------------------------------------------------------------

def exploding(sides: int, bound: int) -> dict[tuple[int, bool], Fraction]:
    """(min(the die's total, bound), whether it showed a natural 1) of an exploding die, its chain followed."""
    out: dict[tuple[int, bool], Fraction] = {}

    def follow(total: int, p: Fraction, first: bool) -> None:
        if total >= bound:
            out[(bound, False)] = out.get((bound, False), Fraction(0)) + p
            return
        for face in range(1, sides + 1):
            q = p / sides
            if face == sides:
                follow(total + face, q, False)
            else:
                key = (min(total + face, bound), first and face == 1)
                out[key] = out.get(key, Fraction(0)) + q

    follow(0, Fraction(1), True)
    return out


def raises_oracle(trait: int, target: int, bound: int) -> dict[str, Fraction]:
    """Outcomes and P(raises >= k) for k < (bound - target) // 4 of the higher of trait die and wild die."""
    out: dict[str, Fraction] = {}
    for ((a, one_a), p), ((b, one_b), q) in itertools.product(exploding(trait, bound).items(),
                                                             exploding(6, bound).items()):
        high = max(a, b)
        raises = max(0, (high - target) // 4)
        outcome = "critical_failure" if one_a and one_b else "raise" if raises >= 1 else \
            "success" if high >= target else "failure"
        out[outcome] = out.get(outcome, Fraction(0)) + p * q
        for k in range(1, (bound - target) // 4):
            if raises >= k:
                out[f"raises>={k}"] = out.get(f"raises>={k}", Fraction(0)) + p * q
    return out


@pytest.mark.parametrize("trait,target", [(8, 4), (6, 4), (10, 8), (4, 6)])
def test_raises_worked_out_of_the_exploding_total_stay_exact(rules, page, trait, target):
    data = odds_json(rules, page / "savage.yaml", "trait", f"die={trait}", f"target={target}")
    assert "truncated" not in data and "inexact" not in data
    got = {k: Fraction(v) for k, v in data["exact"].items()}
    want = raises_oracle(trait, target, target + 4 * 6)
    assert got == {k: want.get(k, Fraction(0)) for k in ("raise", "success", "failure", "critical_failure")}
    raises = data["values"]["raises"]
    assert 0 < raises["truncated"] < 1e-12
    shown = raises["distribution"]
    for k in range(1, 5):
        at_least = sum(p for value, p in shown.items() if int(value) >= k)
        assert abs(at_least - float(want[f"raises>={k}"])) < 1e-12
    if (trait, target) == (8, 4):
        assert got["raise"] + got["success"] == Fraction(13, 16) and got["raise"] == Fraction(71, 288)


def test_raises_capped_with_min_are_an_exact_distribution(rules, page):
    path = page / "savage.yaml"
    text = path.read_text(encoding="utf-8")
    assert "max(0, (total - target) // 4)" in text
    path.write_text(text.replace("max(0, (total - target) // 4)", "min(max(0, (total - target) // 4), 3)"),
                    encoding="utf-8")
    data = odds_json(rules, path, "trait", "die=8")
    want = raises_oracle(8, 4, 4 + 4 * 6)
    at_least = {k: want[f"raises>={k}"] for k in (1, 2, 3)} | {0: Fraction(1), 4: Fraction(0)}
    assert {int(k): Fraction(v) for k, v in data["values"]["raises"]["exact"].items()} == \
        {k: at_least[k] - at_least[k + 1] for k in range(4)}
    assert Fraction(data["exact"]["raise"]) == Fraction(71, 288)
