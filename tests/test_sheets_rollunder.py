"""Roll-under d20 (seed 003) character sheets: the state procedures, run through `rules` on sheet files.

Every expectation is worked out here from the seed's text (R3, R4, R5, R9, R11) and the rulings in
docs/systems/rollunder.md, never read back from rulesets/rollunder.yaml.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import edited_copy, one_line_error, refused_on_sheet, ruleset
from helpers import hp_of as hp
from helpers import show_sheet as show

from interpreter.ruleset.specs import walk

STATS = ["STR", "DEX", "CUN"]  # the ruling's stat list (docs/systems/rollunder.md)


# ----------------------------------------------------------------------------- helpers
def new_sheet(rules, tmp_path: Path, name: str = "hero.yaml", **values) -> Path:
    """A new rollunder sheet with some values edited: traits and state by name, hp=(current, max). Three
    rituals are discovered in play (R14), so learn_ritual may run, unless rituals_discovered says otherwise."""
    values = {"rituals_discovered": 3, **values}
    path = tmp_path / name
    result = rules("sheet", "new", "rollunder", "-o", str(path))
    assert result.exit_code == 0, result.stderr
    text = path.read_text(encoding="utf-8")
    for key, value in values.items():
        if key == "hp":
            new = f"hp: {{current: {value[0]}, max: {value[1]}}}"
            text, n = re.subn(r"hp: \{current: -?\d+, max: -?\d+\}", new, text)
        else:
            word = str(value).lower() if isinstance(value, bool) else str(value)
            text, n = re.subn(rf"^(  {key}: )[^ #\n]+", rf"\g<1>{word}", text, flags=re.MULTILINE)
        assert n == 1, key
    path.write_text(text, encoding="utf-8")
    return path


def run(rules, sheet: Path, procedure: str, *params: str, dice: list[int] | None = None) -> dict:
    """`rules run rollunder PROCEDURE ... --sheet F [--dice ...] --json`; it must succeed."""
    args = ["run", "rollunder", procedure, *params, "--sheet", str(sheet), "--json"]
    if dice is not None:
        args += ["--dice", ",".join(map(str, dice))]
    result = rules(*args)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def refused(rules, sheet: Path, *args: str) -> str:
    return refused_on_sheet(rules, "rollunder", sheet, *args)


# ----------------------------------------------------------------------------- creation
def test_new_sheet_passes_check_and_shows_the_ruled_stats(rules, tmp_path):
    path = new_sheet(rules, tmp_path)
    result = rules("sheet", "check", str(path))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == f"{path}: valid"
    shown = show(rules, path)
    assert shown["ruleset"] == "rollunder"
    assert shown["traits"] == {"STR": 10, "DEX": 10, "CUN": 10}
    assert hp(shown) == (6, 6)
    assert shown["state"]["level"] == 1
    assert shown["status"] == []


@pytest.mark.parametrize("stat,value,message", [
    ("STR", 19, "traits.STR: 19 is above the most, 18"),
    ("CUN", -1, "traits.CUN: -1 is below the least, 0"),
])
def test_creation_stat_out_of_range_is_one_located_line(rules, tmp_path, stat, value, message):
    path = new_sheet(rules, tmp_path, **{stat: value})
    line = 6 + STATS.index(stat)  # comment, ruleset, name, traits:, "# stats", then the stats
    assert one_line_error(rules("sheet", "check", str(path))) == f"{path}:{line}:8: $.traits.{stat}: {message}"


def test_the_advance_list_is_the_trait_list():
    """One stat list: the traits, and the for_each of `advance` (an alias of learn_ritual's anchor)."""
    rs = ruleset("rollunder")
    assert list(rs.traits) == STATS

    def for_eaches(steps):
        return [step.spec.traits for step in walk(steps) if step.kind == "for_each"]

    for name in ("advance", "learn_ritual"):
        assert list(for_eaches(rs.procedures[name].steps)) == [tuple(STATS)], name


# ----------------------------------------------------------------------------- R3 rest
@pytest.mark.parametrize("current,die,after", [(2, 3, 5), (4, 5, 6), (6, 6, 6), (0, 1, 1)])
def test_R3_rest_heals_1d6_never_above_max(rules, tmp_path, current, die, after):
    path = new_sheet(rules, tmp_path, hp=(current, 6))
    got = run(rules, path, "rest", dice=[die])
    # healed is what max HP let in (at 6 of 6 nothing), rolled the die
    assert (got["outcome"], got["values"]["healed"], got["values"]["rolled"]) == ("done", after - current, die)
    assert hp(show(rules, path)) == (after, 6)
    assert got["written"] is (after != current)


def test_R3_rest_without_a_sheet_still_only_rolls(rules):
    result = rules("run", "rollunder", "rest", "--dice", "4", "--json")
    assert result.exit_code == 0, result.stderr
    got = json.loads(result.stdout)
    assert (got["outcome"], got["values"]) == ("done", {"healed": 4, "rolled": 4})


def test_R3_R4_rest_wakes_a_stable_character_on_1_HP_before_healing(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(0, 6), unconscious=True, waking_hours=3)
    run(rules, path, "rest", dice=[2])
    shown = show(rules, path)
    assert hp(shown) == (3, 6)
    assert (shown["state"]["unconscious"], shown["state"]["waking_hours"], shown["status"]) == (False, 0, [])


def test_R3_R4_no_rest_while_bleeding_out_or_dead(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(0, 6), unconscious=True, dying_rounds=2)
    assert refused(rules, path, "rest", "--dice", "3") == "the character is bleeding out and cannot rest (run next_round)"
    path = new_sheet(rules, tmp_path, "dead.yaml", hp=(0, 6), deceased=True)
    assert "the character is dead: the 0-HP table, a wound while down or the rounds of bleeding out killed it (R4, R5); procedure 'rest'" in refused(rules, path, "rest")


# ----------------------------------------------------------------------------- R4 the 0-HP table on a sheet
def test_R4_damage_above_zero_rolls_nothing(rules, tmp_path):
    path = new_sheet(rules, tmp_path)
    got = run(rules, path, "take_damage", "amount=4", dice=[])
    assert (got["outcome"], got["values"]["hp_current"], got["rolls"]) == ("hurt", 2, [])
    assert hp(show(rules, path)) == (2, 6)


def test_R4_zero_damage_changes_nothing(rules, tmp_path):
    path = new_sheet(rules, tmp_path)
    before = path.read_bytes()
    got = run(rules, path, "take_damage", "amount=0")
    assert (got["outcome"], got["changes"], got["written"]) == ("unharmed", [], False)
    assert path.read_bytes() == before


@pytest.mark.parametrize("dice,outcome,state,status", [
    ([1], "dead", {"deceased": True, "unconscious": False, "dying_rounds": 0, "waking_hours": 0}, ["dead"]),
    ([2, 4], "bleeding_out", {"deceased": False, "unconscious": True, "dying_rounds": 4, "waking_hours": 0},
     ["bleeding_out"]),
    ([3, 6], "bleeding_out", {"deceased": False, "unconscious": True, "dying_rounds": 6, "waking_hours": 0},
     ["bleeding_out"]),
    ([4, 2], "stable", {"deceased": False, "unconscious": True, "dying_rounds": 0, "waking_hours": 2}, ["stable"]),
    ([5, 5], "stable", {"deceased": False, "unconscious": True, "dying_rounds": 0, "waking_hours": 5}, ["stable"]),
    ([6], "standing", {"deceased": False, "unconscious": False, "still_standing": True}, ["still_standing"]),
])
def test_R4_reaching_zero_hp_rolls_the_table_and_applies_it(rules, tmp_path, dice, outcome, state, status):
    path = new_sheet(rules, tmp_path, hp=(3, 6))
    got = run(rules, path, "take_damage", "amount=5", dice=dice)  # 5 damage on 3 HP: 0, never below
    assert got["outcome"] == outcome
    assert got["values"]["roll"] == dice[0]
    shown = show(rules, path)
    assert hp(shown) == (0, 6)
    assert {k: shown["state"][k] for k in state} == state
    assert shown["status"] == status


def test_R4_still_standing_rolls_again_at_every_later_damage(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(2, 6))
    assert run(rules, path, "take_damage", "amount=2", dice=[6])["outcome"] == "standing"
    assert run(rules, path, "take_damage", "amount=1", dice=[6])["outcome"] == "standing"
    got = run(rules, path, "take_damage", "amount=1", dice=[4, 3])
    assert (got["outcome"], got["values"]["hours"]) == ("stable", 3)
    shown = show(rules, path)
    assert (shown["state"]["still_standing"], shown["state"]["unconscious"], shown["status"]) == (False, True, ["stable"])


def test_R4_bleeding_out_dies_when_the_rounds_run_out(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(1, 6))
    run(rules, path, "take_damage", "amount=1", dice=[2, 2])
    got = run(rules, path, "next_round")
    assert (got["outcome"], got["values"]["dying_rounds"]) == ("bleeding_out", 1)
    assert run(rules, path, "next_round")["outcome"] == "dead"
    assert show(rules, path)["status"] == ["dead"]
    assert run(rules, path, "next_round")["outcome"] == "unaffected"


def test_R4_a_stable_character_wakes_on_1_HP(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(1, 6))
    run(rules, path, "take_damage", "amount=1", dice=[5, 4])
    got = run(rules, path, "wake")
    assert (got["outcome"], got["values"]["hp_current"]) == ("woke", 1)
    shown = show(rules, path)
    assert (shown["state"]["unconscious"], shown["state"]["waking_hours"], shown["status"]) == (False, 0, [])
    assert refused(rules, path, "wake") == "only an unconscious, stable character wakes"


# ----------------------------------------------------------------------------- R5 damage while unconscious
@pytest.mark.parametrize("state", [{"dying_rounds": 3}, {"waking_hours": 2}])
def test_R5_any_damage_while_unconscious_kills_without_a_roll(rules, tmp_path, state):
    path = new_sheet(rules, tmp_path, hp=(0, 6), unconscious=True, **state)
    got = run(rules, path, "take_damage", "amount=1", dice=[])
    assert (got["outcome"], got["rolls"]) == ("dead", [])
    shown = show(rules, path)
    assert shown["status"] == ["dead"]
    assert (shown["state"]["deceased"], shown["state"]["unconscious"]) == (True, False)


def test_R5_the_dead_take_no_more_damage(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(0, 6), deceased=True)
    assert "killed it (R4, R5); procedure 'take_damage'" in refused(rules, path, "take_damage", "amount=3")


# ----------------------------------------------------------------------------- R11 advancement
def test_R11_advance_by_stats_rolls_2d20_against_each_stat_in_turn(rules, tmp_path):
    path = new_sheet(rules, tmp_path, STR=12, DEX=12, CUN=18, hp=(5, 8), level=2)
    dice = [2, 12, 5,       # STR 12: both not over -> 13; one die equals 12 -> 1d6 (5) max HP
            14, 16,         # DEX 12: both over -> 11
            18, 18, 3, 6]   # CUN 18: both not over but capped -> 18; two dice equal 18 -> 2d6 (3 + 6)
    got = run(rules, path, "advance", "choice=stats", dice=dice)
    assert got["outcome"] == "advanced"
    assert got["values"] == {"level": 3, "hp_gain": 14, "hp_max": 22}
    shown = show(rules, path)
    assert shown["traits"] == {"STR": 13, "DEX": 11, "CUN": 18}
    assert hp(shown) == (5, 22)   # ruling gain_heals: 0, the gain is max HP only
    assert shown["state"]["level"] == 3


@pytest.mark.parametrize("dice,after,gain", [
    ([2, 6, 3, 4, 7, 9], {"STR": 11, "DEX": 11, "CUN": 11}, 0),        # all improve
    ([10, 20, 6, 14, 4, 10, 10, 1, 2], {"STR": 10, "DEX": 10, "CUN": 11}, 9),  # 10 = stat: +1d6 per die
])
def test_R11_R12_advance_by_stats_changes_every_stat_and_adds_the_exact_dice(rules, tmp_path, dice, after, gain):
    path = new_sheet(rules, tmp_path)
    got = run(rules, path, "advance", "choice=stats", dice=dice)
    assert got["values"]["hp_gain"] == gain
    shown = show(rules, path)
    assert shown["traits"] == after
    assert hp(shown) == (6, 6 + gain)


def test_R11_advance_by_hp_adds_1d6_max_hp_and_leaves_the_stats(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(3, 6))
    got = run(rules, path, "advance", "choice=hp", dice=[4])
    assert got["values"] == {"level": 2, "hp_gain": 4, "hp_max": 10}
    shown = show(rules, path)
    assert (shown["traits"], hp(shown), shown["state"]["level"]) == ({"STR": 10, "DEX": 10, "CUN": 10}, (3, 10), 2)


def test_R11_a_stat_never_falls_below_the_floor_on_a_sheet(rules, tmp_path):
    path = new_sheet(rules, tmp_path, CUN=0)
    run(rules, path, "advance", "choice=stats", dice=[15, 16, 15, 16, 5, 7])
    assert show(rules, path)["traits"] == {"STR": 9, "DEX": 9, "CUN": 0}
    assert rules("sheet", "check", str(path)).exit_code == 0


def test_R11_advance_needs_a_choice_of_hp_or_stats(rules, tmp_path):
    path = new_sheet(rules, tmp_path)
    message = refused(rules, path, "advance", "choice=luck")
    assert message == "parameter 'choice' must be one of hp, stats, not 'luck'"


# ----------------------------------------------------------------------------- R9 learning a ritual
def test_R9_learn_ritual_pays_max_hp(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(5, 8))
    got = run(rules, path, "learn_ritual", "pay=hp", dice=[3, 10])
    assert (got["outcome"], got["values"]) == ("learned", {"cost": 3, "roll": 10})
    shown = show(rules, path)
    assert hp(shown) == (5, 5)
    assert shown["traits"] == {"STR": 10, "DEX": 10, "CUN": 10}
    assert shown["state"]["rituals_learned"] == 1


@pytest.mark.parametrize("stat", STATS)
def test_R9_learn_ritual_pays_the_chosen_stat(rules, tmp_path, stat):
    path = new_sheet(rules, tmp_path)
    got = run(rules, path, "learn_ritual", f"pay={stat}", dice=[4, 20])
    assert (got["outcome"], got["values"]["cost"]) == ("lost", 4)
    shown = show(rules, path)
    assert shown["traits"] == {s: 6 if s == stat else 10 for s in STATS}
    assert hp(shown) == (6, 6)
    assert shown["state"]["rituals_learned"] == 0


def test_R9_the_roll_is_against_cunning_after_paying(rules, tmp_path):
    path = new_sheet(rules, tmp_path, CUN=10)
    assert run(rules, path, "learn_ritual", "pay=CUN", dice=[4, 7])["outcome"] == "lost"   # 7 > 10 - 4
    assert show(rules, path)["traits"]["CUN"] == 6
    assert run(rules, path, "learn_ritual", "pay=STR", dice=[1, 6])["outcome"] == "learned"  # 6 <= 6


def test_R9_a_stat_paid_stops_at_the_floor(rules, tmp_path):
    path = new_sheet(rules, tmp_path, DEX=2)
    run(rules, path, "learn_ritual", "pay=DEX", dice=[6, 1])
    assert show(rules, path)["traits"]["DEX"] == 0


def test_R9_R4_paying_the_last_hp_rolls_the_zero_hp_table(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(3, 3))
    got = run(rules, path, "learn_ritual", "pay=hp", dice=[5, 4, 2, 9])   # cost 5, table 4 (2 hours), d20 9
    assert got["outcome"] == "learned"
    shown = show(rules, path)
    assert (hp(shown), shown["status"], shown["state"]["waking_hours"]) == ((0, 0), ["stable"], 2)
    path = new_sheet(rules, tmp_path, "dead.yaml", hp=(3, 3))
    got = run(rules, path, "learn_ritual", "pay=hp", dice=[3, 1])         # the table says dead: no d20
    assert got["outcome"] == "lost"
    assert show(rules, path)["status"] == ["dead"]


def test_R9_without_a_sheet_learn_ritual_is_unchanged(rules):
    result = rules("run", "rollunder", "learn_ritual", "cunning=11", "--dice", "4,11", "--json")
    assert result.exit_code == 0, result.stderr
    got = json.loads(result.stdout)
    assert (got["outcome"], got["values"]) == ("learned", {"cost": 4, "roll": 11})
    assert one_line_error(rules("run", "rollunder", "learn_ritual")) == \
        "give cunning=N, or --sheet FILE to roll against the sheet's CUN"


def test_R9_on_a_sheet_refusals_write_nothing(rules, tmp_path):
    path = new_sheet(rules, tmp_path)
    assert refused(rules, path, "learn_ritual", "cunning=12", "--dice", "1,1") == \
        "with --sheet the roll is against the sheet's CUN after paying; leave out cunning="
    path = new_sheet(rules, tmp_path, "out.yaml", hp=(0, 6), unconscious=True, waking_hours=1)
    assert refused(rules, path, "learn_ritual", "pay=CUN") == "the character is unconscious"


# ----------------------------------------------------------------------------- R13 ST points
def test_R13_st_points_are_awarded_and_spent_on_a_sheet(rules, tmp_path):
    path = new_sheet(rules, tmp_path)
    assert show(rules, path)["state"]["st_points"] == 0
    assert refused_on_sheet(rules, "rollunder", path, "spend_st_point") == \
        "no ST point to spend"
    run(rules, path, "award_st_point")
    run(rules, path, "award_st_point")
    assert run(rules, path, "spend_st_point")["values"] == {"st_points": 1}


def test_R13_learn_ritual_advantage_spends_an_st_point_of_the_sheet(rules, tmp_path):
    # the seed's own example: an ST point against the ritual roll that would cost health
    path = new_sheet(rules, tmp_path, hp=(6, 6), st_points=1)
    got = run(rules, path, "learn_ritual", "pay=hp", "advantage=true", dice=[5, 2, 10])
    assert (got["outcome"], got["values"]) == ("learned", {"cost": 2, "roll": 10})
    shown = show(rules, path)
    assert (hp(shown), shown["state"]["st_points"]) == ((4, 4), 0)
    assert refused_on_sheet(rules, "rollunder", path, "learn_ritual", "advantage=true",
                            "--dice", "5,2,10") == "not enough ST points for the advantage dice: 0 left"


def test_R13_learn_ritual_spends_a_point_for_each_advantage_die_it_rolls(rules, tmp_path):
    """R13: the Cunning roll's advantage is a point too: both rolls helped spend two."""
    path = new_sheet(rules, tmp_path, hp=(6, 6), st_points=2)
    got = run(rules, path, "learn_ritual", "pay=hp", "advantage=true", "roll_advantage=true", dice=[5, 2, 15, 3])
    assert (got["outcome"], got["values"]) == ("learned", {"cost": 2, "roll": 3})
    assert show(rules, path)["state"]["st_points"] == 0
    path = new_sheet(rules, tmp_path, "one.yaml", hp=(6, 6), st_points=1)
    assert refused_on_sheet(rules, "rollunder", path, "learn_ritual", "advantage=true", "roll_advantage=true",
                            "--dice", "5,2,15,3") == "not enough ST points for the advantage dice: 1 left"


def test_R13_R3_rest_advantage_spends_an_st_point_and_keeps_the_higher_die(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(1, 6), st_points=2)
    got = run(rules, path, "rest", "advantage=true", dice=[2, 4])
    assert got["values"] == {"healed": 4, "rolled": 4}
    shown = show(rules, path)
    assert (hp(shown), shown["state"]["st_points"]) == ((5, 6), 1)


def test_R11_advancing_by_hp_rolls_a_d6(rules, tmp_path):
    # R11: "increase your maximum health by 1d6": each of 1..6 once in six
    path = new_sheet(rules, tmp_path)
    result = rules("odds", "rollunder", "advance", "choice=hp", "--sheet", str(path), "--json")
    assert result.exit_code == 0, result.output
    dist = json.loads(result.stdout)["values"]["hp_gain"]["distribution"]
    assert {int(k): round(v, 9) for k, v in dist.items()} == {n: round(1 / 6, 9) for n in range(1, 7)}


def test_R9_R4_one_hp_paid_away_rolls_the_table_and_none_left_does_not(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(1, 3))
    run(rules, path, "learn_ritual", "pay=hp", dice=[3, 4, 2, 9])        # from 1 HP to 0: the table (4, 2 hours)
    assert show(rules, path)["status"] == ["stable"]
    path = new_sheet(rules, tmp_path, "standing.yaml", hp=(0, 6), still_standing=True)
    got = run(rules, path, "learn_ritual", "pay=hp", dice=[2, 9])        # already at 0: no table, cost then d20
    assert (got["outcome"], hp(show(rules, path))) == ("learned", (0, 4))


def test_R9_with_a_sheet_cunning_0_is_refused_too(rules, tmp_path):
    path = new_sheet(rules, tmp_path)
    assert refused_on_sheet(rules, "rollunder", path, "learn_ritual", "cunning=0") == \
        "with --sheet the roll is against the sheet's CUN after paying; leave out cunning="


def test_R13_an_advantage_die_costs_one_st_point(rules, tmp_path):
    path = new_sheet(rules, tmp_path, st_points=2)
    run(rules, path, "learn_ritual", "pay=hp", "advantage=true", dice=[5, 2, 10])
    assert show(rules, path)["state"]["st_points"] == 1


# ----------------------------------------------------------------------------- edges a changed number got past
def test_R4_a_stable_character_is_not_counted_down_by_next_round(rules, tmp_path):
    """R4: only the bleeding out die "in 1d6 rounds"; a stable character (0 rounds) just waits to wake."""
    path = new_sheet(rules, tmp_path, hp=(0, 6), unconscious=True, waking_hours=3)
    got = run(rules, path, "next_round")
    assert (got["outcome"], got["changes"]) == ("unaffected", [])
    assert show(rules, path)["status"] == ["stable"]


@pytest.mark.parametrize("state", [{"dying_rounds": 3}, {"waking_hours": 3}])
def test_R5_death_while_unconscious_ends_the_countdowns_and_hp_stays_0(rules, tmp_path, state):
    """R5: damage while unconscious kills; the dead neither bleed out nor wake (R4), and HP stay at 0."""
    path = new_sheet(rules, tmp_path, hp=(0, 6), unconscious=True, **state)
    assert run(rules, path, "take_damage", "amount=3")["outcome"] == "dead"
    shown = show(rules, path)
    assert hp(shown) == (0, 6)
    assert (shown["state"]["dying_rounds"], shown["state"]["waking_hours"]) == (0, 0)


@pytest.mark.parametrize("top, after, standing", [(1, (1, 1), False), (0, (0, 0), True)])
def test_R3_R4_a_rest_ends_still_standing_only_once_hp_is_above_0(rules, tmp_path, top, after, standing):
    """R4's 6 "still standing ... roll again every time you take damage" lasts while HP are 0: a rest
    (R3, 1d6 = 3, never above max HP) that brings HP to 1 ends it; at max HP 0 it goes on."""
    path = new_sheet(rules, tmp_path, hp=(0, top), still_standing=True)
    run(rules, path, "rest", dice=[3])
    shown = show(rules, path)
    assert (hp(shown), shown["state"]["still_standing"]) == (after, standing)


@pytest.mark.parametrize("procedure, params, dice", [
    ("spend_st_point", [], None),
    ("learn_ritual", ["pay=hp", "advantage=true"], [5, 2, 10]),
    ("rest", ["advantage=true"], [2, 4]),
])
def test_R13_the_last_st_point_can_be_spent(rules, tmp_path, procedure, params, dice):
    """R13: an ST point "can be used at any point": one point is enough, and leaves none."""
    path = new_sheet(rules, tmp_path, hp=(3, 6), st_points=1)
    run(rules, path, procedure, *params, dice=dice)
    assert show(rules, path)["state"]["st_points"] == 0


def test_R4_R5_R9_a_new_character_has_no_countdowns_and_no_rituals(rules, tmp_path):
    """A new character is not dying (R4: no rounds to bleed out, no hours to wake) and has learned
    no ritual yet (R9: rituals are discovered and learned in play)."""
    state = show(rules, new_sheet(rules, tmp_path))["state"]
    assert (state["dying_rounds"], state["waking_hours"], state["rituals_learned"]) == (0, 0, 0)
    assert (state["unconscious"], state["still_standing"], state["deceased"]) == (False, False, False)


def test_R11_a_level_below_1_is_refused(rules, tmp_path):
    """R11: advancing raises the level by 1 from a first level of 1; level 0 is not a level."""
    path = new_sheet(rules, tmp_path, level=0)
    assert rules("sheet", "check", str(path)).exit_code == 1


def test_R4_one_round_left_is_still_bleeding_out(rules, tmp_path):
    """R4: "you die in 1d6 rounds": with one round left the character is still bleeding out."""
    path = new_sheet(rules, tmp_path, hp=(0, 6), unconscious=True, dying_rounds=1)
    assert show(rules, path)["status"] == ["bleeding_out"]


def test_R11_with_the_ruling_switched_on_advancing_heals_what_it_adds(rules, tmp_path):
    """R11 ruling `gain_heals` (docs/systems/rollunder.md): 0 raises max HP only; 1 raises current HP
    by the same 1d6. From 3/6, a 4 on the HP die: 3/10 by default, 7/10 with the switch on."""
    path = new_sheet(rules, tmp_path, hp=(3, 6))
    run(rules, path, "advance", "choice=hp", dice=[4])
    assert hp(show(rules, path)) == (3, 10)
    copy = edited_copy(tmp_path, "rollunder", ("gain_heals: 0 ", "gain_heals: 1 "))
    path = new_sheet(rules, tmp_path, "healed.yaml", hp=(3, 6))
    path.write_text(path.read_text().replace("ruleset: rollunder", f"ruleset: {copy.name}"))
    result = rules("run", str(copy), "advance", "choice=hp", "--sheet", str(path), "--dice", "4")
    assert result.exit_code == 0, result.stderr
    assert hp(show(rules, path)) == (7, 10)


def test_R13_a_rest_with_advantage_needs_an_st_point(rules, tmp_path):
    """R13: the advantage die on a rest is an ST point spent; with none left it is refused."""
    path = new_sheet(rules, tmp_path, hp=(3, 6), st_points=0)
    assert refused(rules, path, "rest", "advantage=true", "--dice", "2,4") == "no ST point to spend on the advantage die"
