"""The audit's partial rules of nwod made whole: N10's specialties per skill, and an extended action that
can be contested (N6)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from helpers import odds, one_line_error, run_json

ROOT = Path(__file__).resolve().parent.parent




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
    got = run_json(rules, "nwod", "contested_extended", "actor=3", "defender=2", "required=2", "--dice", "8,9,1,1,7")
    assert (got["outcome"], got["values"]) == ("success", {"rolls": 1, "actor_successes": 2, "defender_successes": 1})
    # over two rolls: 1 then 2 for the actor (3), 0 then 2 for the defender (2)
    got = run_json(rules, "nwod", "contested_extended", "actor=3", "defender=2", "required=3",
                  "--dice", "7,1,1,1,1,7,7,1,7,7")
    assert (got["outcome"], got["values"]["rolls"], got["values"]["defender_successes"]) == ("success", 2, 2)


def test_N6_N5_the_same_roll_reaching_it_goes_to_the_defender_on_a_tie(rules):
    tie = run_json(rules, "nwod", "contested_extended", "actor=2", "defender=2", "required=2", "--dice", "7,8,7,9")
    assert (tie["outcome"], tie["values"]["actor_successes"], tie["values"]["defender_successes"]) == ("failure", 2, 2)
    first = run_json(rules, "nwod", "contested_extended", "actor=2", "defender=2", "required=2", "--dice", "7,1,8,9")
    assert first["outcome"] == "failure"
    none = run_json(rules, "nwod", "contested_extended", "actor=2", "defender=2", "required=5", "--dice", "1,2,7,9")
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


# --- N10, continued: the same entry whatever its spacing ------------------------------------

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


def test_N6_contested_extended_needs_a_success_or_more_and_takes_no_limit_as_0(rules):
    """At least one success is required (0 is refused, 1 is fine); max_rolls=0 is the default: no limit."""
    refused = rules("run", "nwod", "contested_extended", "actor=1", "defender=1", "required=0", "--dice", "8,1")
    assert refused.exit_code == 1 and "required" in refused.output
    one = run_json(rules, "nwod", "contested_extended", "actor=1", "defender=1", "required=1", "--dice", "8,1")
    assert (one["outcome"], one["values"]["rolls"]) == ("success", 1)
    unlimited = run_json(rules, "nwod", "contested_extended", "actor=1", "defender=1", "required=3", "max_rolls=0",
                        "--dice", "8,1,8,1,8,1")
    assert (unlimited["outcome"], unlimited["values"]["rolls"]) == ("success", 3)


def test_N6_contested_extended_stops_at_max_rolls_and_adds_each_sides_modifier(rules):
    short = run_json(rules, "nwod", "contested_extended", "actor=1", "defender=1", "required=2", "max_rolls=1",
                    "--dice", "8,1")
    assert (short["outcome"], short["values"]["rolls"], short["values"]["actor_successes"]) == ("failure", 1, 1)
    # actor 1 + 1 = 2 dice (8, 9), defender 1 + 2 = 3 dice (1, 1, 7)
    modded = run_json(rules, "nwod", "contested_extended", "actor=1", "defender=1", "required=2", "actor_mod=1",
                     "defender_mod=2", "--dice", "8,9,1,1,7")
    assert (modded["outcome"], modded["values"]["actor_successes"], modded["values"]["defender_successes"]) == \
        ("success", 2, 1)


# --- N40: experience awards per session and per story arc ----------------------------------------------

def test_N40_a_session_and_a_finished_arc_award_experience_to_the_sheet(rules, tmp_path):
    path = tmp_path / "n40.yaml"
    assert rules("sheet", "new", "nwod", "-o", str(path), "--name", "Ada").exit_code == 0
    got = run_json(rules, "nwod", "award_experience", "session=3", "--sheet", str(path))
    assert (got["outcome"], got["values"]) == ("awarded", {"gained": 3, "experience": 3})
    got = run_json(rules, "nwod", "award_experience", "session=2", "arc=3", "--sheet", str(path))
    assert got["values"] == {"gained": 5, "experience": 8}
    assert "experience: 8" in path.read_text(encoding="utf-8")
    assert run_json(rules, "nwod", "award_experience", "--sheet", str(path))["values"]["gained"] == 2   # the least
    got = run_json(rules, "nwod", "award_experience", "session=0", "arc=3", "--sheet", str(path))   # an arc alone
    assert got["values"] == {"gained": 3, "experience": 13}
    assert run_json(rules, "nwod", "award_experience", "session=3", "arc=0", "--sheet", str(path))["values"]["gained"] == 3
    assert run_json(rules, "nwod", "award_experience", "session=2", "arc=2", "--sheet", str(path))["values"]["gained"] == 4


@pytest.mark.parametrize("args,words", [(("session=4",), "a session awards 2 to 3 experience, not 4 (N40)"),
                                        (("session=1",), "a session awards 2 to 3 experience, not 1 (N40)"),
                                        (("arc=5",), "a finished story arc awards 2 to 3 more experience, not 5")])
def test_N40_an_award_outside_the_seeds_range_is_one_line(rules, tmp_path, args, words):
    path = tmp_path / "n40.yaml"
    assert rules("sheet", "new", "nwod", "-o", str(path), "--name", "Ada").exit_code == 0
    before = path.read_bytes()
    assert words in one_line_error(rules("run", "nwod", "award_experience", *args, "--sheet", str(path)))
    assert path.read_bytes() == before


# --- N41: dice penalties bypass worn armor; supernatural armor against exotic damage ---------------------

def test_N41_bypassing_worn_armor_costs_dice_and_ignores_that_armor(rules):
    """Ruling: constants.armor_bypass_dice (1) dice per level bypassed: 4 dice, 2 levels bypassed, roll 2."""
    got = run_json(rules, "nwod", "attack", "attack_pool=4", "defense_pool=0", "weapon=2", "armor=2", "bypass=2",
                   "--dice", "8,9")
    assert (got["values"]["damage"], [r["expr"] for r in got["rolls"]]) == (4, ["2d10x>=10cs>=7"])
    plain = run_json(rules, "nwod", "attack", "attack_pool=4", "defense_pool=0", "weapon=2", "armor=2",
                     "--dice", "8,9,1,1")
    assert plain["values"]["damage"] == 2
    assert run_json(rules, "nwod", "attack", "attack_pool=4", "defense_pool=0", "weapon=2", "armor=2", "bypass=0",
                    "--dice", "8,9,1,1")["values"]["damage"] == 2
    assert "bypass 3 is more armor" in one_line_error(rules("run", "nwod", "attack", "attack_pool=4",
                                                            "defense_pool=0", "weapon=2", "armor=2", "bypass=3"))


def test_N41_bypassed_armor_odds_are_the_smaller_pool_against_no_armor():
    bypassed = odds("nwod", "attack", {"attack_pool": 6, "defense_pool": 2, "weapon": 2, "armor": 2, "bypass": 2})
    bare = odds("nwod", "attack", {"attack_pool": 4, "defense_pool": 2, "weapon": 2})
    assert bypassed.outcomes == bare.outcomes and bypassed.values["damage"] == bare.values["damage"]


def test_N41_body_armor_does_not_help_against_exotic_damage_and_supernatural_armor_does(rules):
    base = ("attack", "attack_pool=4", "defense_pool=0", "weapon=2", "armor=2", "exotic=true", "--dice", "8,9,1,1")
    assert run_json(rules, "nwod", *base)["values"]["damage"] == 4
    assert run_json(rules, "nwod", *base, "supernatural_armor=true")["values"]["damage"] == 2


# --- N42: several actions announced at once, the penalty on each ----------------------------------------

def test_N42_each_announced_action_takes_the_whole_penalty(rules):
    """Three actions announced at once: each roll of the turn is given actions=3 and rolls at -6."""
    for _ in range(3):
        got = run_json(rules, "nwod", "action", "pool=8", "actions=3", "--dice", "7,7")
        assert [r["expr"] for r in got["rolls"]] == ["2d10x>=10cs>=8"]
    assert odds("nwod", "action", {"pool": 8, "actions": 3}).outcomes == odds("nwod", "action", {"pool": 2}).outcomes
    describe = rules("describe", "nwod").stdout
    assert "announced before the first is rolled" in " ".join(describe.split())
