"""The audit's partial rules of lockwood made whole: L3's literal crits (with the narrow ruling one switch)
and L21's healing stat only through the Healing advantage."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from helpers import enumerate_dice, hp_of, odds, one_line_error, run_given, run_json, with_constants

ROOT = Path(__file__).resolve().parent.parent




# --- L3: "Critwins always succeed, and critfails always fail" --------------------------------------

def test_L3_an_actors_natural_20_wins_an_opposed_roll_it_trails(rules):
    got = run_json(rules, "lockwood", "opposed", "actor=5", "defender=20", "--dice", "20,15")
    assert (got["outcome"], got["values"]["actor_total"], got["values"]["defender_total"]) == ("success", 25, 35)
    assert got["values"]["defenders_clause"] is False


def test_L3_an_attackers_natural_20_hits_and_a_natural_1_misses(rules):
    hit = run_json(rules, "lockwood", "attack", "attack=5", "defense=20", "--dice", "20,15")
    assert (hit["outcome"], hit["values"]["damage"]) == ("hit", 1)   # crit_hit_min_damage: the totals give none
    miss = run_json(rules, "lockwood", "attack", "attack=20", "defense=5", "--dice", "1,15")
    assert (miss["outcome"], miss["values"]["damage"]) == ("miss", 0)


def test_L3_the_defenders_roll_is_a_roll_too():
    assert run_given("lockwood", "opposed", {"actor": 20, "defender": 5}, [15, 20]).outcome == "failure"
    assert run_given("lockwood", "opposed", {"actor": 5, "defender": 20}, [15, 1]).outcome == "success"
    both = run_given("lockwood", "opposed", {"actor": 5, "defender": 5}, [20, 20])
    assert (both.outcome, both.values["defenders_clause"]) == ("failure", True)   # a tie of crits: the defender's
    crit_beats_crit = run_given("lockwood", "attack", {"attack": 1, "defense": 20}, [20, 1])
    assert (crit_beats_crit.outcome, crit_beats_crit.values["damage"]) == ("hit", 1)
    crits_tie = run_given("lockwood", "attack", {"attack": 20, "defense": 1}, [20, 20])  # the same crit: a tie
    assert (crits_tie.outcome, crits_tie.values["damage"], crits_tie.values["defenders_clause"]) == ("miss", 0, True)
    fails_tie = run_given("lockwood", "attack", {"attack": 20, "defense": 1}, [1, 1])
    assert (fails_tie.outcome, fails_tie.values["defenders_clause"]) == ("miss", True)


def test_L3_the_narrow_ruling_is_one_switch(rules, tmp_path):
    house = str(with_constants(tmp_path, "lockwood", crits_decide_contests=0))
    assert run_json(rules, house, "opposed", "actor=5", "defender=20", "--dice", "20,15")["outcome"] == "failure"
    assert run_json(rules, house, "attack", "attack=5", "defense=20", "--dice", "20,15")["outcome"] == "miss"
    assert run_json(rules, house, "attack", "attack=20", "defense=5", "--dice", "1,15")["outcome"] == "hit"
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

def lockwood_sheet(rules, tmp_path: Path, advantages: str) -> Path:
    path = tmp_path / "hale.yaml"
    assert rules("sheet", "new", "lockwood", "-o", str(path), "--name", "Hale").exit_code == 0
    text = path.read_text()
    old = '  advantages: ["first advantage", "second advantage", "third advantage"]'
    assert old in text
    path.write_text(text.replace(old, f"  advantages: {advantages}"), encoding="utf-8")
    return path


def test_L21_the_healing_advantage_is_the_one_fact(rules, tmp_path):
    """L21: the sheet says Healing once, in an advantage slot; a `healer` in state is refused as a second saying."""
    path = lockwood_sheet(rules, tmp_path, "[Quick, Sharp eyes, Lucky]")
    assert "healer" not in json.loads(rules("sheet", "show", str(path), "--json").stdout)["state"]
    text = path.read_text().replace("state:\n", "state:\n  healer: true\n")
    path.write_text(text, encoding="utf-8")
    message = one_line_error(rules("sheet", "check", str(path), "--creation"))
    assert "state.healer: healer is not kept in state; it is true when choices.advantages holds 'Healing'" in message
    assert message.startswith(f"{path}:")


@pytest.mark.parametrize("advantages,healing", [("[Healing, Quick, Lucky]", 11), ("[quick, HEALING, Lucky]", 11),
                                                ("[Quick, Sharp eyes, Lucky]", 0)])
def test_L21_the_healing_stat_follows_the_advantage_slot_alone(rules, tmp_path, advantages, healing):
    path = lockwood_sheet(rules, tmp_path, advantages)
    result = rules("sheet", "check", str(path), "--creation")
    assert result.exit_code == 0, result.output
    assert json.loads(rules("sheet", "show", str(path), "--json").stdout)["derived"]["healing"] == healing


def test_L21_the_healing_stat_is_0_without_the_ability_and_healing_refuses_it_saying_why(rules, tmp_path):
    """The procedures read the healing stat through the sheet (`healing=healing`): 0 without the ability,
    refused with the reason: the formula, and that no advantage is Healing."""
    path = lockwood_sheet(rules, tmp_path, "[Quick, Sharp eyes, Lucky]")
    shown = json.loads(rules("sheet", "show", str(path), "--json").stdout)
    assert shown["derived"]["healing"] == 0
    for procedure in ("heal_minor", "heal_major"):
        message = one_line_error(rules("run", "lockwood", procedure, "healing=healing", "--sheet", str(path)))
        assert message.startswith("parameter 'healing' is 0; the least allowed is 1")
        assert "healer is false: no entry of advantages is 'Healing'" in message
    (tmp_path / "healer").mkdir()
    healer = lockwood_sheet(rules, tmp_path / "healer", "[Healing, Quick, Lucky]")
    got = run_json(rules, "lockwood", "heal_minor", "healing=healing", "--sheet", str(healer), "--dice", "3,5,7",
                  "--dry-run")
    assert (got["outcome"], got["values"]["healed"], got["rolls"][0]["expr"]) == ("done", 5, "1d11")


# --- L14 / L8: a failed move's disadvantage and the defender's clause reach a talent attempt -----------

def test_L14_a_talent_attempt_after_a_failed_move_rolls_two_d4_and_keeps_the_worse(rules):
    """L14: "a disadvantage upon any other rolls taken within the turn"; a talent attempt is a roll (L12)."""
    follow_up = run_json(rules, "lockwood", "move", "agility=1", "--dice", "2")["follow_up"]
    assert follow_up == {"disadvantage": True}
    got = run_json(rules, "lockwood", "talent", "disadvantage=true", "--dice", "4,1")
    assert (got["outcome"], got["values"]["roll"]) == ("backfire", 1)
    assert run_json(rules, "lockwood", "talent", "advantage=true", "--dice", "1,4")["values"]["roll"] == 4
    assert run_json(rules, "lockwood", "talent", "--dice", "2")["outcome"] == "failure"


def test_L8_the_defenders_clause_reaches_the_defenders_next_talent_attempt(rules):
    """L8: "disadvantage on any follow-up roll": the clause's flag is taken by a talent attempt too."""
    got = run_json(rules, "lockwood", "talent", "defenders_clause=true", "--dice", "3,2")
    assert (got["outcome"], got["values"]["roll"]) == ("failure", 2)


def test_L14_L8_use_talent_on_a_sheet_takes_the_same_disadvantage(rules, tmp_path):
    path = tmp_path / "tal.yaml"
    assert rules("sheet", "new", "lockwood", "-o", str(path), "--name", "Tal").exit_code == 0
    got = run_json(rules, "lockwood", "use_talent", "disadvantage=true", "--sheet", str(path), "--dice", "3,1",
                   "--dry-run")
    assert (got["outcome"], got["values"]["roll"], got["values"]["talent_uses"]) == ("backfire", 1, 4)


@pytest.mark.parametrize("flags", [{}, {"advantage": True}, {"disadvantage": True},
                                   {"advantage": True, "disadvantage": True}])
def test_L14_L8_talent_odds_equal_the_enumeration_of_the_d4s(flags):
    kept = Fraction(0)
    counts = {"success": Fraction(0), "failure": Fraction(0), "backfire": Fraction(0)}
    two = flags.get("advantage", False) != flags.get("disadvantage", False)
    for dice in enumerate_dice(4, 4) if two else enumerate_dice(4):
        roll = (max(dice) if flags.get("advantage") else min(dice)) if two else dice[0]
        counts["success" if roll >= 3 else "failure" if roll == 2 else "backfire"] += Fraction(1, 16 if two else 4)
        kept += Fraction(roll, 16 if two else 4)
    got = odds("lockwood", "talent", flags)
    assert dict(got.outcomes) == {k: v for k, v in counts.items() if v}
    assert kept == sum(Fraction(v) * p for v, p in got.values["roll"].items())


def test_L2_L14_a_talent_attempt_rolls_as_many_d4_as_each_side_rolls_d20(rules, tmp_path):
    """advantage_dice and disadvantage_dice are each their own count, for the talent's d4 as for the d20."""
    house = str(with_constants(tmp_path, "lockwood", advantage_dice=3, disadvantage_dice=2))
    assert run_json(rules, house, "talent", "advantage=true", "--dice", "1,2,4")["values"]["roll"] == 4
    got = run_json(rules, house, "talent", "disadvantage=true", "--dice", "4,1")
    assert (got["outcome"], got["values"]["roll"]) == ("backfire", 1)
    assert odds(house, "talent", {"disadvantage": True}).outcomes["backfire"] == 1 - Fraction(3, 4) ** 2


def test_L14_L8_the_narrow_ruling_is_one_switch(rules, tmp_path):
    """constants.talent_takes_advantage: 0 leaves a talent attempt at one d4 whatever the flags."""
    house = str(with_constants(tmp_path, "lockwood", talent_takes_advantage=0))
    got = run_json(rules, house, "talent", "disadvantage=true", "--dice", "4")
    assert (got["outcome"], got["values"]["roll"]) == ("success", 4)
    assert odds(house, "talent", {"disadvantage": True}).outcomes["backfire"] == Fraction(1, 4)
    guide = (ROOT / "docs" / "systems" / "lockwood.md").read_text(encoding="utf-8")
    assert "talent_takes_advantage" in guide


# --- L24, L25, L26: the rules the inventory adds -------------------------------------------------------

def sheet_with(rules, tmp_path: Path, ruleset: str, name: str, *edits: tuple[str, str]) -> Path:
    path = tmp_path / name
    assert rules("sheet", "new", ruleset, "-o", str(path), "--name", "Ward").exit_code == 0
    text = path.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    return path


BRAWNY = (("  STR: 11", "  STR: 15"), ("  END: 11", "  END: 15"), ("  AGI: 11", "  AGI: 7"), ("  PER: 11", "  PER: 7"))


def test_L24_physical_defense_answers_melee_and_dodge_answers_ranged(rules, tmp_path):
    """Ruling (constants.melee_defense_is_physical): a melee attack meets the target's Defense (physical), a
    ranged one its Defense (dodge); the sheet shows both, and attack takes the one for its range."""
    target = sheet_with(rules, tmp_path, "lockwood", "ward.yaml", *BRAWNY)
    derived = json.loads(rules("sheet", "show", str(target), "--json").stdout)["derived"]
    assert (derived["melee_defense"], derived["ranged_defense"]) == ((15 + 15) // 2, (7 + 7) // 2)
    melee = run_json(rules, "lockwood", "attack", "attack=12", f"defense={derived['melee_defense']}", "--dice", "6,4")
    ranged = run_json(rules, "lockwood", "attack", "attack=12", f"defense={derived['ranged_defense']}", "--dice", "6,4")
    assert (melee["outcome"], ranged["outcome"], ranged["values"]["damage"]) == ("miss", "hit", 7)
    house = with_constants(tmp_path, "lockwood", melee_defense_is_physical=0)
    swapped = sheet_with(rules, tmp_path, str(house), "swapped.yaml", *BRAWNY)
    derived = json.loads(rules("sheet", "show", str(swapped), "--json").stdout)["derived"]
    assert (derived["melee_defense"], derived["ranged_defense"]) == (7, 15)
    assert "melee_defense_is_physical" in (ROOT / "docs" / "systems" / "lockwood.md").read_text(encoding="utf-8")


def test_L25_turn_order_within_a_side_is_a_note_with_its_switch(rules):
    from helpers import ruleset

    note = ruleset("lockwood").notes["turn_order"]
    assert "L25" in note.refs
    assert (note.data["within_side"], note.data["imposed_order_within_side"]) == ("any order", False)
    assert "impose an order within a side" in " ".join(rules("describe", "lockwood").stdout.split())


def test_L26_max_hp_lost_in_critical_condition_heals_as_a_major_wound(rules, tmp_path):
    """Ruling (constants.critical_loss_is_major: 1): the doubled loss starts the treatment period."""
    path = sheet_with(rules, tmp_path, "lockwood", "crit.yaml", ("hp: {current: 22, max: 22}", "hp: {current: 0, max: 22}"))
    got = run_json(rules, "lockwood", "take_damage", "amount=2", "--sheet", str(path))
    assert (got["outcome"], got["values"]["hp_max"]) == ("critical", 18)
    state = json.loads(rules("sheet", "show", str(path), "--json").stdout)["state"]
    assert (state["treatment_days_left"], state["critical_hp_lost"]) == (14, 0)
    run_json(rules, "lockwood", "rest", "--sheet", str(path))
    assert hp_of(json.loads(rules("sheet", "show", str(path), "--json").stdout)) == (18, 18)


def test_L26_the_other_ruling_heals_it_as_a_minor_wound_after_a_rest(rules, tmp_path):
    house = with_constants(tmp_path, "lockwood", critical_loss_is_major=0)
    path = sheet_with(rules, tmp_path, str(house), "crit.yaml", ("hp: {current: 22, max: 22}", "hp: {current: 0, max: 22}"))
    run_json(rules, str(house), "take_damage", "amount=2", "--sheet", str(path))
    shown = json.loads(rules("sheet", "show", str(path), "--json").stdout)
    assert (hp_of(shown), shown["state"]["treatment_days_left"], shown["state"]["critical_hp_lost"]) == ((0, 18), 0, 4)
    run_json(rules, str(house), "rest", "--sheet", str(path))
    shown = json.loads(rules("sheet", "show", str(path), "--json").stdout)
    assert (hp_of(shown), shown["state"]["critical_hp_lost"]) == ((22, 22), 0)
