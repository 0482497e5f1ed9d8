"""The audit's partial rules of rollunder made whole: advancement at the cap never lowers a stat (R11); an ST
point's die reaches any roll of anyone (R13), advance's HP roll and either roll of learn_ritual."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from helpers import enumerate_dice, odds, one_line_error, run_given, run_json, with_constants

ROOT = Path(__file__).resolve().parent.parent




# --- R11: stats are never raised past 18, and never lowered by an improvement ------------------------

def test_R11_advance_stat_at_20_never_worsens_to_18(rules):
    got = run_json(rules, "rollunder", "advance_stat", "stat=20", "--dice", "20,19,3")
    assert (got["outcome"], got["values"]["stat"], got["values"]["hp_gain"]) == ("unchanged", 20, 3)
    assert odds("rollunder", "advance_stat", {"stat": 20}).outcomes.get("worsened", 0) == 0


def test_R11_an_improvement_at_the_cap_is_unchanged_and_below_it_is_one_up():
    assert run_given("rollunder", "advance_stat", {"stat": 18}, [2, 6]).values["stat"] == 18
    assert run_given("rollunder", "advance_stat", {"stat": 17}, [2, 6]).values["stat"] == 18
    assert run_given("rollunder", "advance_stat", {"stat": 19}, [20, 20]).values["stat"] == 18   # both over


# --- R13: "an advantage or disadvantage die to any roll of anyone" -----------------------------------

def rollunder_sheet(rules, tmp_path: Path) -> Path:
    path = tmp_path / "st.yaml"
    assert rules("sheet", "new", "rollunder", "-o", str(path), "--name", "St").exit_code == 0
    return path


def test_R13_an_ST_die_reaches_the_HP_roll_of_advance(rules, tmp_path):
    sheet = rollunder_sheet(rules, tmp_path)
    got = run_json(rules, "rollunder", "advance", "choice=hp", "advantage=true", "--sheet", str(sheet),
                   "--dice", "2,5", "--dry-run")
    assert (got["values"]["hp_gain"], len(got["rolls"])) == (5, 2)
    worse = run_json(rules, "rollunder", "advance", "choice=hp", "disadvantage=true", "--sheet", str(sheet),
                     "--dice", "2,5", "--dry-run")
    assert worse["values"]["hp_gain"] == 2


def test_R13_the_HP_roll_of_advance_takes_an_ST_die_without_a_sheet_too(rules):
    """The GM rolls a level's HP at the table as the issue's command does: no sheet, the die kept is the 5."""
    got = run_json(rules, "rollunder", "advance", "choice=hp", "advantage=true", "--dice", "2,5")
    assert got["values"]["hp_gain"] == 5 and got["values"]["level"] is None
    stats = rules("run", "rollunder", "advance", "choice=stats")
    assert stats.exit_code == 1 and "give --sheet FILE" in stats.stderr


@pytest.mark.parametrize("flag,keep", [("advantage", max), ("disadvantage", min)])
def test_R13_advance_HP_odds_equal_the_enumeration_of_two_d6(rules, tmp_path, flag, keep):
    sheet = rollunder_sheet(rules, tmp_path)
    want: dict[int, Fraction] = {}
    for dice in enumerate_dice(6, 6):
        want[keep(dice)] = want.get(keep(dice), Fraction(0)) + Fraction(1, 36)
    result = rules("odds", "rollunder", "advance", "choice=hp", f"{flag}=true", "--sheet", str(sheet), "--json")
    exact = json.loads(result.stdout)["values"]["hp_gain"]["exact"]
    assert {int(k): Fraction(v) for k, v in exact.items()} == want


def test_R13_either_roll_of_learn_ritual_takes_either_die(rules):
    """The cost (1d6) and the Cunning d20 each take a helping or a hindering die: `advantage` and
    `cost_disadvantage` on the cost, `roll_advantage` and `disadvantage` on the roll that decides."""
    both = run_json(rules, "rollunder", "learn_ritual", "cunning=12", "cost_disadvantage=true",
                    "roll_advantage=true", "--dice", "2,5,15,3")
    assert (both["outcome"], both["values"]) == ("learned", {"cost": 5, "roll": 3})
    helped = run_json(rules, "rollunder", "learn_ritual", "cunning=12", "advantage=true", "disadvantage=true",
                      "--dice", "2,5,3,15")
    assert (helped["outcome"], helped["values"]) == ("lost", {"cost": 2, "roll": 15})


@pytest.mark.parametrize("flags", [{"roll_advantage": True}, {"disadvantage": True}, {"cost_disadvantage": True},
                                   {"advantage": True, "roll_advantage": True},
                                   {"roll_advantage": True, "disadvantage": True}])
def test_R13_learn_ritual_odds_equal_the_enumeration(flags):
    cunning = 11
    cost_two = flags.get("advantage", False) != flags.get("cost_disadvantage", False)
    roll_two = flags.get("roll_advantage", False) != flags.get("disadvantage", False)
    costs = enumerate_dice(6, 6) if cost_two else enumerate_dice(6)
    rolls = enumerate_dice(20, 20) if roll_two else enumerate_dice(20)
    cost_want: dict[int, Fraction] = {}
    for dice in costs:
        paid = (min(dice) if flags.get("advantage") else max(dice)) if cost_two else dice[0]
        cost_want[paid] = cost_want.get(paid, Fraction(0)) + Fraction(1, len(costs))
    learned = Fraction(0)
    roll_want: dict[int, Fraction] = {}
    for dice in rolls:   # roll under: the better of two is the lower d20, the worse the higher
        kept = (min(dice) if flags.get("roll_advantage") else max(dice)) if roll_two else dice[0]
        learned += Fraction(kept <= cunning, len(rolls))
        roll_want[kept] = roll_want.get(kept, Fraction(0)) + Fraction(1, len(rolls))
    got = odds("rollunder", "learn_ritual", {"cunning": cunning, **flags})
    assert got.values["cost"] == cost_want
    assert got.outcomes["learned"] == learned
    assert got.values["roll"] == roll_want


def test_R13_the_narrow_ruling_is_one_switch(rules, tmp_path):
    """constants.st_die_any_roll: 0 refuses the dice the narrow reading does not give, in one line."""
    house = str(with_constants(tmp_path, "rollunder", st_die_any_roll=0))
    message = one_line_error(rules("run", house, "learn_ritual", "cunning=12", "roll_advantage=true"))
    assert "st_die_any_roll: 0" in message
    assert run_json(rules, house, "learn_ritual", "cunning=12", "advantage=true", "disadvantage=true",
                    "--dice", "2,5,3,15")["values"] == {"cost": 2, "roll": 15}
    sheet = rollunder_sheet(rules, tmp_path)
    refused = rules("run", house, "advance", "choice=hp", "advantage=true", "--sheet", str(sheet))
    assert refused.exit_code == 1 and "Traceback" not in refused.stderr
    assert refused.stderr.strip().splitlines()[-1].endswith("gives the HP roll of advance no ST die")
    guide = (ROOT / "docs" / "systems" / "rollunder.md").read_text(encoding="utf-8")
    assert "st_die_any_roll" in guide


# --- R14: rituals are discovered in play before they are learned; the sheet keeps learned and lost ------

def test_R14_a_ritual_must_be_discovered_before_it_is_learned(rules, tmp_path):
    sheet = rollunder_sheet(rules, tmp_path)
    before = sheet.read_bytes()
    message = one_line_error(rules("run", "rollunder", "learn_ritual", "--sheet", str(sheet), "--dice", "2,3"))
    assert "no ritual discovered in play" in message and "discover_ritual" in message
    assert sheet.read_bytes() == before
    assert run_json(rules, "rollunder", "discover_ritual", "--sheet", str(sheet))["values"] == {"rituals_discovered": 1}
    got = run_json(rules, "rollunder", "learn_ritual", "--sheet", str(sheet), "--dice", "2,3")
    assert got["outcome"] == "learned"
    state = json.loads(rules("sheet", "show", str(sheet), "--json").stdout)["state"]
    assert (state["rituals_discovered"], state["rituals_learned"], state["rituals_lost"]) == (0, 1, 0)


def test_R14_the_sheet_keeps_rituals_lost_as_well_as_learned(rules, tmp_path):
    sheet = rollunder_sheet(rules, tmp_path)
    for _ in range(2):
        run_json(rules, "rollunder", "discover_ritual", "--sheet", str(sheet))
    assert run_json(rules, "rollunder", "learn_ritual", "--sheet", str(sheet), "--dice", "1,20")["outcome"] == "lost"
    assert run_json(rules, "rollunder", "learn_ritual", "--sheet", str(sheet), "--dice", "1,2")["outcome"] == "learned"
    state = json.loads(rules("sheet", "show", str(sheet), "--json").stdout)["state"]
    assert (state["rituals_discovered"], state["rituals_learned"], state["rituals_lost"]) == (0, 1, 1)
    text = sheet.read_text(encoding="utf-8")   # the names, as the player writes them
    text = text.replace("  rituals: []", "  rituals: [Bind the Hound]").replace("  lost_rituals: []", "  lost_rituals: [Call Rain]")
    sheet.write_text(text, encoding="utf-8")
    check = rules("sheet", "check", str(sheet))
    assert check.exit_code == 0, check.output


SNEAK = """\
extends: rollunder
ruleset: rollunder-three
constants: {advantage_dice: 3}
procedures:
  sneak:
    params: {stat: {type: int}}
    outcomes: {success: unseen, failure: seen}
    values: {roll: the d20}
    steps:
      - roll: {roll: check_die}
        better: low
      - decide: [{when: roll <= stat, outcome: success}, {outcome: failure}]
"""


@pytest.mark.parametrize("flag,kept", [("advantage", 3), ("disadvantage", 17)])
def test_R13_R2_the_ST_die_of_any_roll_rolls_as_many_d20_as_advantage_dice(rules, tmp_path, flag, kept):
    """A GM's own procedure, which does not handle the flag itself, gets the ST die from the effect, and the
    effect rolls `advantage_dice` d20 like every procedure's own best_of (the better is the lower: roll-under)."""
    path = tmp_path / "three.yaml"
    path.write_text(SNEAK, encoding="utf-8")
    got = run_json(rules, str(path), "sneak", "stat=10", f"{flag}=true", "--dice", "9,17,3")
    assert got["values"]["roll"] == kept
    want = Fraction(0)
    for dice in enumerate_dice(20, 20, 20):
        roll = min(dice) if flag == "advantage" else max(dice)
        want += Fraction(1, 8000) * (roll <= 10)
    assert odds(str(path), "sneak", {"stat": 10, flag: "true"}).outcomes["success"] == want
