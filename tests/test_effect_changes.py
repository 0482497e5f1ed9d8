"""Effect changes as a game master means them (docs/format.md, "Effects"): a bonus to a total that leaves the
natural die to the crits, an advantage die with its own count, and an effect that reaches every roll of a
trait in every procedure without the procedure declaring a parameter of that name. Exact odds are checked
against brute force written from the rule here (every face of every d20) and against icepool."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path

import icepool
import pytest
from helpers import assert_sampling_matches_odds, one_line_error

import interpreter

# Issue 32's house rule: "+2 to every Perception roll at night", the natural die untouched.
NIGHT = """\
extends: lockwood
ruleset: lockwood-night
effects:
  night:
    summary: +2 to every Perception roll at night
    reaches: {traits: [Perception]}
    change: {adds: {total: 2, actor_total: 2, defender_total: 2}}
"""

# Issue 32's house rule: "advantage rolls 3d20, keep the highest"; disadvantage stays two d20.
THREE = """\
extends: lockwood
ruleset: lockwood-three
constants:
  advantage_dice: 3
"""

PER = 11  # a new lockwood character's Perception (and every other stat but Luck)


def non_blank(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip())


@pytest.fixture(scope="module")
def house(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("house")
    (folder / "night.yaml").write_text(NIGHT, encoding="utf-8")
    (folder / "three.yaml").write_text(THREE, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def hero(house) -> Path:
    from click.testing import CliRunner

    from interpreter.cli import main

    path = house / "hero.yaml"
    result = CliRunner().invoke(main, ["sheet", "new", "lockwood", "-o", str(path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert f"PER: {PER}" in path.read_text(encoding="utf-8")
    return path


def outcomes(ref: Path, procedure: str, params: dict, sheet: Path | None = None) -> dict[str, Fraction]:
    got = interpreter.odds(ref, procedure, params, sheet=sheet).outcomes
    return {o: Fraction(p) for o, p in got.items() if p}


def lockwood_d20(natural: int, total: int, dc: int) -> str:
    """L1/L3 written out: a natural 20 succeeds, a natural 1 fails, else the total against the DC."""
    if natural >= 20:
        return "critical_success"
    if natural <= 1:
        return "critical_failure"
    return "success" if total >= dc else "failure"


def shares(results: list[str]) -> dict[str, Fraction]:
    return {o: Fraction(results.count(o), len(results)) for o in set(results)}


# ----------------------------------------------------------------------------- +2 at night

def test_the_night_overlay_is_at_most_eight_lines():
    assert non_blank(NIGHT) <= 8
    assert non_blank(THREE) <= 8


def test_a_natural_18_plus_2_at_night_is_never_a_critical(house, hero):
    source = NIGHT
    got = interpreter.run(house / "night.yaml", "check", {"stat": "PER", "dc": 15, "night": True}, dice=[18],
                          sheet=hero)
    expected = ("success", 18, 18 + PER + 2)
    assert (got.outcome, got.values["natural"], got.values["total"]) == expected, source
    odds = outcomes(house / "night.yaml", "check", {"stat": "PER", "dc": 15, "night": True}, hero)
    assert odds["critical_success"] == Fraction(1, 20)  # a natural 20 alone, as without the bonus


def test_a_natural_1_at_night_is_still_a_critical_failure(house, hero):
    got = interpreter.run(house / "night.yaml", "check", {"stat": "PER", "dc": 2, "night": True}, dice=[1], sheet=hero)
    assert got.outcome == "critical_failure"
    assert got.values["total"] == 1 + PER + 2
    odds = outcomes(house / "night.yaml", "check", {"stat": "PER", "dc": 2, "night": True}, hero)
    assert odds["critical_failure"] == Fraction(1, 20)


@pytest.mark.parametrize("dc", [5, 14, 15, 25, 33])
def test_check_odds_at_night_match_brute_force(house, hero, dc):
    night = outcomes(house / "night.yaml", "check", {"stat": "PER", "dc": dc, "night": True}, hero)
    day = outcomes(house / "night.yaml", "check", {"stat": "PER", "dc": dc}, hero)
    assert night == shares([lockwood_d20(n, n + PER + 2, dc) for n in range(1, 21)])
    assert day == shares([lockwood_d20(n, n + PER, dc) for n in range(1, 21)])
    assert night != day or dc in (5, 33)  # the bonus decides only where a total lands within 2 of the DC


def test_friendly_fire_odds_change_at_night(house, hero):
    params = {"perception": "PER", "in_the_way": 5}  # DC 15
    night = outcomes(house / "night.yaml", "friendly_fire", {**params, "night": True}, hero)
    day = outcomes(house / "night.yaml", "friendly_fire", params, hero)
    folded = {"critical_success": "success", "critical_failure": "failure"}
    assert night == shares([folded.get(o, o) for o in (lockwood_d20(n, n + PER + 2, 15) for n in range(1, 21))])
    assert day == shares([folded.get(o, o) for o in (lockwood_d20(n, n + PER, 15) for n in range(1, 21))])
    assert night["success"] - day["success"] == Fraction(2, 20)


def opposed_rule(actor: int, defender: int, a_bonus: int, d_bonus: int) -> dict[str, Fraction]:
    """L7/L8/L3 written out: the higher total wins, the defender wins ties, a crit decides."""
    out = []
    for a, d in itertools.product(range(1, 21), repeat=2):
        crit = [1 if r == 20 else (-1 if r == 1 else 0) for r in (a, d)]
        if crit[0] != crit[1] or crit[0] != 0:
            out.append("success" if crit[0] > crit[1] else "failure")
        else:
            out.append("success" if a + actor + a_bonus > d + defender + d_bonus else "failure")
    return shares(out)


def test_opposed_odds_change_at_night_for_the_side_rolling_perception(house, hero):
    ref = house / "night.yaml"
    actor = outcomes(ref, "opposed", {"actor": "PER", "defender": "WIS", "night": True}, hero)
    defender = outcomes(ref, "opposed", {"actor": "WIS", "defender": "PER", "night": True}, hero)
    day = outcomes(ref, "opposed", {"actor": "PER", "defender": "WIS"}, hero)
    assert actor == opposed_rule(PER, 11, 2, 0)
    assert defender == opposed_rule(11, PER, 0, 2)
    assert day == opposed_rule(PER, 11, 0, 0)
    assert actor["success"] > day["success"] > defender["success"]


def test_the_night_flag_is_taken_where_the_effect_reaches(rules, house):
    """friendly_fire and opposed declare no `mod` parameter, and take `night=true` all the same; a run on
    no Perception says the total is unchanged instead of staying silent."""
    for args in (["opposed", "actor=11", "defender=11"], ["move", "agility=11"]):
        result = rules("run", str(house / "night.yaml"), *args, "night=true", "--seed", "1")
        assert result.exit_code == 0, result.stderr
        assert "unchanged, as the run is on no trait of PER" in result.stdout
    described = rules("describe", str(house / "night.yaml"), "check").stdout
    assert "- `night` (`night=true`): `total` +2 after each step that sets it (the dice as rolled)" in described


def test_friendly_fire_is_a_perception_roll_whatever_number_is_given(house):
    """lockwood's friendly_fire declares `perception: {type: int, trait: PER}`: no sheet is needed."""
    got = interpreter.run(house / "night.yaml", "friendly_fire", {"perception": 11, "in_the_way": 5, "night": True},
                          dice=[2])
    assert (got.outcome, got.values["total"]) == ("success", 2 + 11 + 2)
    night = outcomes(house / "night.yaml", "friendly_fire", {"perception": 11, "in_the_way": 5, "night": True})
    assert night == {"success": Fraction(19, 20), "failure": Fraction(1, 20)}  # a natural 1 alone fails DC 15


# ----------------------------------------------------------------------------- advantage of three d20

@pytest.mark.parametrize("procedure,params", [("move", ["agility=11"]),
                                              ("friendly_fire", ["perception=11", "in_the_way=2"]),
                                              ("check", ["stat=11", "dc=15"])])
def test_three_dice_advantage_uses_every_die_and_keeps_the_highest(rules, house, procedure, params):
    source = THREE
    result = rules("run", str(house / "three.yaml"), procedure, *params, "advantage=true", "--dice", "3,17,9",
                   "--json")
    assert result.exit_code == 0, (source, result.stderr)
    assert json.loads(result.stdout)["values"]["total"] == 17 + 11  # the 17 kept; `--dice` refuses a die left over
    disadvantage = rules("run", str(house / "three.yaml"), procedure, *params, "disadvantage=true", "--dice", "3,17",
                         "--json")
    assert disadvantage.exit_code == 0, disadvantage.stderr
    assert json.loads(disadvantage.stdout)["values"]["total"] == 3 + 11


def test_three_dice_advantage_trace_says_three_and_disadvantage_two(rules, house):
    ref = str(house / "three.yaml")
    shown = rules("run", ref, "move", "agility=11", "advantage=true", "--dice", "3,17,9").stdout
    assert "natural: {1d20,1d20,1d20}kh1: [~~3~~] [17] [~~9~~] = 17" in shown
    assert "advantage die (three d20, the highest kept) on natural" in shown
    shown = rules("run", ref, "move", "agility=11", "disadvantage=true", "--dice", "3,17").stdout
    assert "disadvantage die (two d20, the lower kept) on natural" in shown
    assert "(kept the best of 3)" in rules("run", ref, "check", "stat=11", "dc=15", "advantage=true",
                                            "--dice", "3,17,9").stdout


@pytest.mark.parametrize("procedure,params", [("move", {"agility": 0}), ("check", {"stat": 0, "dc": 100}),
                                              ("friendly_fire", {"perception": 0, "in_the_way": 7})])
def test_three_dice_advantage_odds_match_icepool(house, procedure, params):
    ref = house / "three.yaml"
    best = icepool.highest(icepool.d20, icepool.d20, icepool.d20)
    worst = icepool.lowest(icepool.d20, icepool.d20)
    for flag, die in (("advantage", best), ("disadvantage", worst)):
        got = interpreter.odds(ref, procedure, {**params, flag: True})
        total = {k: Fraction(v) for k, v in got.values["total"].items() if v}  # the natural d20: the stat is 0
        assert total == {k: Fraction(die.probability(k)) for k in range(1, 21) if die.probability(k)}


def test_three_dice_for_an_opposed_attacker_two_for_a_hindered_defender(house):
    got = outcomes(house / "three.yaml", "opposed", {"actor": 11, "defender": 11, "advantage": True,
                                                      "defender_disadvantage": True})
    dice = [(max(a), min(d)) for a in itertools.product(range(1, 21), repeat=3)
            for d in itertools.product(range(1, 21), repeat=2)]
    wins = 0
    for a, d in dice:
        crit = [1 if r == 20 else (-1 if r == 1 else 0) for r in (a, d)]
        decided = crit[0] != crit[1] or crit[0] != 0
        wins += (crit[0] > crit[1]) if decided else (a > d)
    assert got["success"] == Fraction(wins, len(dice))


def test_three_dice_advantage_for_either_side_of_an_attack(house):
    ref = house / "three.yaml"
    got = interpreter.run(ref, "attack", {"attack": 11, "defense": 11, "advantage": True}, dice=[3, 17, 9, 10])
    assert (got.values["attack_total"], got.values["defense_total"]) == (17 + 11, 10 + 11)
    got = interpreter.run(ref, "attack", {"attack": 11, "defense": 11, "defender_advantage": True,
                                          "disadvantage": True}, dice=[12, 4, 2, 19, 6])
    assert (got.values["attack_total"], got.values["defense_total"]) == (4 + 11, 19 + 11)


@pytest.mark.parametrize("change,message", [
    ("{die: advantage, dice: 1}", ("$.effects.bad.change.dice: an advantage or disadvantage die rolls at least 2 "
                                  "dice, not 1; give dice: 2 or more")),
    ("{modifier: 1, dice: 3}", ("$.effects.bad.change.dice: 'dice' says how many dice an advantage or disadvantage "
                               "die rolls, and this change has no die; add die: advantage (or disadvantage), "
                               "or remove dice")),
    ("{die: advantage, dice: advantage_dize}", "unknown name 'advantage_dize'"),
])
def test_a_mistaken_die_count_is_one_line_at_its_place(rules, tmp_path, change, message):
    house = tmp_path / "house.yaml"
    house.write_text(f"extends: lockwood\nruleset: lockwood-bad\neffects:\n  bad:\n    change: {change}\n",
                     encoding="utf-8")
    line = one_line_error(rules("validate", str(house)))
    assert line.startswith(f"{house}:5:") and message in line, line


def test_a_parameter_declaring_an_unknown_trait_is_one_line_at_its_place(rules, tmp_path):
    house = tmp_path / "house.yaml"
    house.write_text("extends: lockwood\nruleset: lockwood-bad\nprocedures:\n  friendly_fire:\n    params:\n"
                     "      perception: {type: int, trait: PRE}\n", encoding="utf-8")
    line = one_line_error(rules("validate", str(house)))
    assert line.startswith(f"{house}:6:") and "$.procedures.friendly_fire.params.perception.trait: unknown trait " \
                                                 "'PRE'; did you mean 'PER'?" in line, line


@pytest.mark.parametrize("overlay,procedure,params,value", [
    ("night.yaml", "friendly_fire", {"perception": 11, "in_the_way": 5, "night": True}, "total"),
    ("three.yaml", "move", {"agility": 0, "advantage": True}, "total"),
    ("three.yaml", "opposed", {"actor": 11, "defender": 11, "advantage": True, "defender_disadvantage": True}, None),
])
def test_sampled_runs_follow_the_same_changes_as_exact_odds(house, overlay, procedure, params, value):
    assert_sampling_matches_odds(str(house / overlay), procedure, params, value=value)
