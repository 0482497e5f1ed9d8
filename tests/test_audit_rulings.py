"""The audit's partial rules made whole: L3's literal crits, L21's Healing advantage, N10's specialties per
skill, nwod's contested extended action (N6) and rollunder's advancement at the cap (R11)."""

from __future__ import annotations

import json
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import pytest
from helpers import enumerate_dice, odds, one_line_error, run_given, with_constants

ROOT = Path(__file__).resolve().parent.parent


def run_cli(rules, *args: str) -> dict:
    result = rules("run", *args, "--json")
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.stdout))


# --- L3: "Critwins always succeed, and critfails always fail" --------------------------------------

def test_L3_an_actors_natural_20_wins_an_opposed_roll_it_trails(rules):
    got = run_cli(rules, "lockwood", "opposed", "actor=5", "defender=20", "--dice", "20,15")
    assert (got["outcome"], got["values"]["actor_total"], got["values"]["defender_total"]) == ("success", 25, 35)
    assert got["values"]["defenders_clause"] is False


def test_L3_an_attackers_natural_20_hits_and_a_natural_1_misses(rules):
    hit = run_cli(rules, "lockwood", "attack", "attack=5", "defense=20", "--dice", "20,15")
    assert (hit["outcome"], hit["values"]["damage"]) == ("hit", 1)   # crit_hit_min_damage: the totals give none
    miss = run_cli(rules, "lockwood", "attack", "attack=20", "defense=5", "--dice", "1,15")
    assert (miss["outcome"], miss["values"]["damage"]) == ("miss", 0)


def test_L3_the_defenders_roll_is_a_roll_too():
    assert run_given("lockwood", "opposed", {"actor": 20, "defender": 5}, [15, 20]).outcome == "failure"
    assert run_given("lockwood", "opposed", {"actor": 5, "defender": 20}, [15, 1]).outcome == "success"
    both = run_given("lockwood", "opposed", {"actor": 5, "defender": 5}, [20, 20])
    assert (both.outcome, both.values["defenders_clause"]) == ("failure", True)   # a tie of crits: the defender's
    crit_beats_crit = run_given("lockwood", "attack", {"attack": 1, "defense": 20}, [20, 1])
    assert (crit_beats_crit.outcome, crit_beats_crit.values["damage"]) == ("hit", 1)


def test_L3_the_narrow_ruling_is_one_switch(rules, tmp_path):
    house = str(with_constants(tmp_path, "lockwood", crits_decide_contests=0))
    assert run_cli(rules, house, "opposed", "actor=5", "defender=20", "--dice", "20,15")["outcome"] == "failure"
    assert run_cli(rules, house, "attack", "attack=5", "defense=20", "--dice", "20,15")["outcome"] == "miss"
    assert run_cli(rules, house, "attack", "attack=20", "defense=5", "--dice", "1,15")["outcome"] == "hit"
    guide = (ROOT / "docs" / "systems" / "lockwood.md").read_text(encoding="utf-8")
    assert "crits_decide_contests" in guide


@pytest.mark.parametrize("switch", [1, 0])
def test_L3_opposed_odds_equal_the_enumeration_either_way(tmp_path, switch):
    house = str(with_constants(tmp_path, "lockwood", crits_decide_contests=switch))
    wins = ties = Fraction(0)
    for a, d in enumerate_dice(20, 20):
        ca, cd = ((a == 20) - (a == 1), (d == 20) - (d == 1)) if switch else (0, 0)
        won, tied = (ca > cd, ca == cd) if ca or cd else (a + 12 > d + 10, a + 12 == d + 10)
        wins += Fraction(won, 400)
        ties += Fraction(tied, 400)
    got = odds(house, "opposed", {"actor": 12, "defender": 10})
    assert (got.outcomes["success"], got.values["defenders_clause"].get(True, 0)) == (wins, ties)


# --- L21: the healing stat only through the Healing advantage -----------------------------------------

def lockwood_sheet(rules, tmp_path: Path, advantages: str, healer: bool) -> Path:
    path = tmp_path / "hale.yaml"
    assert rules("sheet", "new", "lockwood", "-o", str(path), "--name", "Hale").exit_code == 0
    text = path.read_text()
    old = '  advantages: ["first advantage", "second advantage", "third advantage"]'
    assert old in text and "  healer: false" in text
    text = text.replace(old, f"  advantages: {advantages}").replace("  healer: false", f"  healer: {str(healer).lower()}")
    path.write_text(text, encoding="utf-8")
    return path


def test_L21_a_healer_without_the_healing_advantage_fails_creation(rules, tmp_path):
    path = lockwood_sheet(rules, tmp_path, "[Quick, Sharp eyes, Lucky]", True)
    message = one_line_error(rules("sheet", "check", str(path), "--creation"))
    assert "$.state.healer: healing_ability: healer is true, but no advantage is Healing" in message
    assert message.startswith(f"{path}:")
    assert "healing_ability" in one_line_error(rules("run", "lockwood", "rest", "--sheet", str(path)))


@pytest.mark.parametrize("advantages,healer", [("[Healing, Quick, Lucky]", True), ("[quick, HEALING, Lucky]", True),
                                               ("[Quick, Sharp eyes, Lucky]", False),
                                               ("[Healing, Quick, Lucky]", False)])
def test_L21_the_healer_flag_follows_the_advantage_slot(rules, tmp_path, advantages, healer):
    path = lockwood_sheet(rules, tmp_path, advantages, healer)
    result = rules("sheet", "check", str(path), "--creation")
    assert result.exit_code == 0, result.output


def test_L21_the_healing_stat_is_0_without_the_ability_and_healing_refuses_it(rules, tmp_path):
    """The procedures read the healing stat through the sheet (`healing=healing`): 0 without the ability."""
    path = lockwood_sheet(rules, tmp_path, "[Quick, Sharp eyes, Lucky]", False)
    shown = json.loads(rules("sheet", "show", str(path), "--json").stdout)
    assert shown["derived"]["healing"] == 0
    for procedure in ("heal_minor", "heal_major"):
        message = one_line_error(rules("run", "lockwood", procedure, "healing=healing", "--sheet", str(path)))
        assert message == "parameter 'healing' is 0; the least allowed is 1"
    (tmp_path / "healer").mkdir()
    healer = lockwood_sheet(rules, tmp_path / "healer", "[Healing, Quick, Lucky]", True)
    got = run_cli(rules, "lockwood", "heal_minor", "healing=healing", "--sheet", str(healer), "--dice", "3,5,7",
                  "--dry-run")
    assert (got["outcome"], got["values"]["healed"], got["rolls"][0]["expr"]) == ("done", 5, "1d11")


# --- N10: two specialties in one skill, but not redundantly -------------------------------------------

def nwod_sheet(rules, tmp_path: Path, specialties: str, name: str = "marco.yaml") -> Path:
    path = tmp_path / name
    assert rules("sheet", "new", "nwod", "-o", str(path), "--name", "Marco").exit_code == 0
    text = path.read_text()
    old = '  specialties: ["Academics: History", "Firearms: Pistol", "Firearms: Rifle"]'
    assert old in text
    path.write_text(text.replace(old, f"  specialties: {specialties}"), encoding="utf-8")
    return path


def test_N10_three_firearms_specialties_fail_creation_with_a_located_line(rules, tmp_path):
    path = nwod_sheet(rules, tmp_path, '["Firearms: Pistol", "Firearms: Rifle", "Firearms: Shotgun"]')
    message = one_line_error(rules("sheet", "check", str(path), "--creation"))
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "specialties:" in text)
    assert message.startswith(f"{path}:{line}:")
    assert message.endswith("$.choices.specialties[2]: specialties: 'Firearms: Shotgun' makes 3 entries in Firearms; "
                            "at most 2 may name one trait at creation")
    assert rules("sheet", "check", str(path)).exit_code == 0   # experience may buy more in play


def test_N10_two_in_one_skill_pass_and_the_same_one_twice_does_not(rules, tmp_path):
    path = nwod_sheet(rules, tmp_path, '["Firearms: Pistol", "firearms: Rifle", "Stealth: Shadows"]')
    assert rules("sheet", "check", str(path), "--creation").exit_code == 0
    path = nwod_sheet(rules, tmp_path, '["Firearms: Pistol", "Firearms: pistol", "Stealth: Shadows"]', "twice.yaml")
    assert "chosen twice" in one_line_error(rules("sheet", "check", str(path), "--creation"))


def test_N10_the_count_per_skill_is_data(rules, tmp_path):
    path = nwod_sheet(rules, tmp_path, '["Firearms: Pistol", "Firearms: Rifle", "Firearms: Shotgun"]')
    house = tmp_path / "three.yaml"
    house.write_text("extends: nwod\nruleset: nwod-three\nsheet:\n  fields:\n    specialties:\n      per_trait: 3\n",
                     encoding="utf-8")
    path.write_text(path.read_text().replace("ruleset: nwod", f"ruleset: {house.name}", 1), encoding="utf-8")
    assert rules("sheet", "check", str(path), "--creation").exit_code == 0


def test_per_trait_needs_entries_that_name_traits(rules, tmp_path):
    house = tmp_path / "bad.yaml"
    house.write_text("extends: nwod\nruleset: bad\nsheet:\n  fields:\n    merits_list: {kind: list, per_trait: 2}\n",
                     encoding="utf-8")
    result = rules("validate", str(house))
    assert result.exit_code == 1 and "counts entries per trait, but its entries name no trait" in result.stderr


# --- N6: an extended action "can be contested or not" -------------------------------------------------

def test_N6_contested_extended_first_to_the_required_successes_wins(rules):
    # actor 3 dice at 7: 8, 9, 1 = 2 successes; defender 2 dice: 1, 7 = 1; 2 required
    got = run_cli(rules, "nwod", "contested_extended", "actor=3", "defender=2", "required=2", "--dice", "8,9,1,1,7")
    assert (got["outcome"], got["values"]) == ("success", {"rolls": 1, "actor_successes": 2, "defender_successes": 1})
    # over two rolls: 1 then 2 for the actor (3), 0 then 2 for the defender (2)
    got = run_cli(rules, "nwod", "contested_extended", "actor=3", "defender=2", "required=3",
                  "--dice", "7,1,1,1,1,7,7,1,7,7")
    assert (got["outcome"], got["values"]["rolls"], got["values"]["defender_successes"]) == ("success", 2, 2)


def test_N6_N5_the_same_roll_reaching_it_goes_to_the_defender_on_a_tie(rules):
    tie = run_cli(rules, "nwod", "contested_extended", "actor=2", "defender=2", "required=2", "--dice", "7,8,7,9")
    assert (tie["outcome"], tie["values"]["actor_successes"], tie["values"]["defender_successes"]) == ("failure", 2, 2)
    first = run_cli(rules, "nwod", "contested_extended", "actor=2", "defender=2", "required=2", "--dice", "7,1,8,9")
    assert first["outcome"] == "failure"
    none = run_cli(rules, "nwod", "contested_extended", "actor=2", "defender=2", "required=5", "--dice", "1,2,7,9")
    assert (none["outcome"], none["values"]["rolls"]) == ("failure", 1)   # the actor's roll with no success


def pool_successes(dice: int, top: int = 40) -> list[float]:
    """P(successes) of a pool at target 7 with 10-again: one die is 0 (1-6), 1 (7-9) or 1 + a new die (10)."""
    one = [0.0] * (top + 1)
    one[0] = 0.6
    for k in range(1, top + 1):  # k successes: k-1 tens then a 7-9, or k tens then a 1-6
        one[k] = 0.1 ** (k - 1) * 0.3 + 0.1 ** k * 0.6
    dist = [1.0] + [0.0] * top
    for _ in range(dice):
        dist = [sum(dist[i] * one[k - i] for i in range(k + 1)) for k in range(top + 1)]
    return dist


def test_N6_contested_extended_odds_equal_the_enumeration_of_its_rolls():
    actor, defender, required, most = 3, 2, 3, 3
    a_roll, d_roll = pool_successes(actor), pool_successes(defender)
    states = {(0, 0): 1.0}
    won = 0.0
    for _ in range(most):
        after: dict[tuple[int, int], float] = defaultdict(float)
        for (a, d), p in states.items():
            for x, px in enumerate(a_roll):
                for y, py in enumerate(d_roll):
                    if x == 0:
                        continue   # the actor's roll with no success ends it: a failure
                    na, nd = a + x, d + y
                    if na >= required or nd >= required:
                        won += p * px * py if na >= required and na > nd else 0
                    else:
                        after[(na, nd)] += p * px * py
        states = after
    got = odds("nwod", "contested_extended", {"actor": actor, "defender": defender, "required": required,
                                              "max_rolls": most})
    assert float(got.outcomes["success"]) == pytest.approx(won, abs=1e-9)


# --- R11: stats are never raised past 18, and never lowered by an improvement ------------------------

def test_R11_advance_stat_at_20_never_worsens_to_18(rules):
    got = run_cli(rules, "rollunder", "advance_stat", "stat=20", "--dice", "20,19,3")
    assert (got["outcome"], got["values"]["stat"], got["values"]["hp_gain"]) == ("unchanged", 20, 3)
    assert odds("rollunder", "advance_stat", {"stat": 20}).outcomes.get("worsened", 0) == 0


def test_R11_an_improvement_at_the_cap_is_unchanged_and_below_it_is_one_up():
    assert run_given("rollunder", "advance_stat", {"stat": 18}, [2, 6]).values["stat"] == 18
    assert run_given("rollunder", "advance_stat", {"stat": 17}, [2, 6]).values["stat"] == 18
    assert run_given("rollunder", "advance_stat", {"stat": 19}, [20, 20]).values["stat"] == 18   # both over


@pytest.mark.parametrize("twice", ['"firearms:pistol"', '"Firearms :  PISTOL"'])
def test_N10_not_redundantly_whatever_the_spacing_or_letter_case(rules, tmp_path, twice):
    path = nwod_sheet(rules, tmp_path, f'["Firearms: Pistol", {twice}, "Stealth: Shadows"]')
    message = one_line_error(rules("sheet", "check", str(path)))
    assert message.endswith(f"specialties: '{twice.strip(chr(34))}' is chosen twice")


def test_N10_a_count_the_defaults_break_is_a_warning_and_no_new_sheet(rules, tmp_path):
    house = tmp_path / "one.yaml"
    house.write_text("extends: nwod\nruleset: nwod-one\nsheet:\n  fields:\n    specialties:\n      per_trait: 1\n",
                     encoding="utf-8")
    checked = rules("validate", str(house))
    assert checked.exit_code == 0 and "makes 2 entries in Firearms; at most 1" in checked.stderr
    made = rules("sheet", "new", str(house), "-o", str(tmp_path / "new.yaml"))
    assert "makes 2 entries in Firearms" in one_line_error(made)
    assert not (tmp_path / "new.yaml").exists()
