"""Worlds Without Number (seed 004) character sheets: injury, Frail, System Strain and rest on sheet files.

Each test runs `rules run wwn ... --sheet F` (with --dice where dice are rolled) and reads the written
sheet back with `rules sheet show F --json`. Expectations come from the seed's text (W9-W15) and the
rulings in docs/systems/wwn.md, not from rulesets/wwn.yaml.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import edited_copy, one_line_error, refused_on_sheet
from helpers import hp_of as hp
from helpers import show_sheet as show

ATTRIBUTES = ["STR", "DEX", "CON", "INT", "WIS", "CHA"]
PUBLISHED_MODS = {3: -2, **{s: -1 for s in range(4, 8)}, **{s: 0 for s in range(8, 14)},
                  **{s: 1 for s in range(14, 18)}, 18: 2}


# ----------------------------------------------------------------------------- helpers
def new_sheet(rules, tmp_path: Path, name: str = "pc.yaml", **values) -> Path:
    """A new wwn sheet with some values edited: traits, state and resources by name, hp=(current, max)."""
    path = tmp_path / name
    result = rules("sheet", "new", "wwn", "-o", str(path))
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


def run(rules, sheet: Path, procedure: str, *params: str, dice: list[int] | None = None, ref: str = "wwn") -> dict:
    """`rules run wwn PROCEDURE ... --sheet F [--dice ...] --json`; it must succeed."""
    args = ["run", ref, procedure, *params, "--sheet", str(sheet), "--json"]
    if dice is not None:
        args += ["--dice", ",".join(map(str, dice))]
    result = rules(*args)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def strain(shown: dict) -> tuple[int, int]:
    res = shown["resources"]["system_strain"]
    return res["value"], res["max"]


def refused(rules, sheet: Path, *args: str) -> str:
    return refused_on_sheet(rules, "wwn", sheet, *args)


# ----------------------------------------------------------------------------- creation
def test_new_sheet_passes_check(rules, tmp_path):
    path = new_sheet(rules, tmp_path)
    result = rules("sheet", "check", str(path))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == f"{path}: valid"
    shown = show(rules, path)
    assert shown["traits"] == {a: 10 for a in ATTRIBUTES}
    assert hp(shown) == (4, 4)            # ruling hp_per_level 4, Con mod 0, level 1
    assert strain(shown) == (0, 10)       # W14: the maximum is the Constitution score
    assert shown["status"] == []


@pytest.mark.parametrize("con,hp_max", [(3, 2), (7, 3), (10, 4), (16, 5), (18, 6)])
def test_new_sheet_hp_follows_the_constitution_modifier(rules, tmp_path, con, hp_max):
    """Ruling: a new sheet's max HP is level x (hp_per_level + Con modifier), at least 1 per level."""
    path = tmp_path / "pc.yaml"
    rules("sheet", "new", "wwn", "-o", str(path))
    # max HP is written by `sheet new`; a sheet without hp takes it from the track's formula
    text = re.sub(r"  hp: .*\n", "", path.read_text(encoding="utf-8")).replace("CON: 10", f"CON: {con}")
    path.write_text(text, encoding="utf-8")
    assert hp(show(rules, path)) == (hp_max, hp_max)
    assert max(1, 4 + PUBLISHED_MODS[con]) == hp_max


@pytest.mark.parametrize("attribute,value,message", [
    ("CON", 19, "traits.CON: 19 is above the most, 18"),
    ("STR", 2, "traits.STR: 2 is below the least, 3"),
])
def test_creation_attribute_outside_3d6_is_one_located_line(rules, tmp_path, attribute, value, message):
    path = new_sheet(rules, tmp_path, **{attribute: value})
    line = 6 + ATTRIBUTES.index(attribute)  # comment, ruleset, name, traits:, "# attributes", ...
    assert one_line_error(rules("sheet", "check", str(path))) == f"{path}:{line}:8: $.traits.{attribute}: {message}"


# ----------------------------------------------------------------------------- W9 zero hit points
def test_W9_damage_above_zero_only_lowers_hp(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(7, 9))
    got = run(rules, path, "take_damage", "amount=3")
    assert (got["outcome"], got["values"]["hp_current"]) == ("hurt", 4)
    shown = show(rules, path)
    assert (hp(shown), shown["status"]) == ((4, 9), [])


def test_W9_at_zero_hp_a_pc_is_mortally_wounded(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(3, 9))
    got = run(rules, path, "take_damage", "amount=8")
    assert (got["outcome"], got["values"]["hp_current"]) == ("dying", 0)
    shown = show(rules, path)
    assert hp(shown) == (0, 9)
    assert (shown["state"]["mortally_wounded"], shown["state"]["rounds_down"], shown["state"]["deceased"]) == (True, 0, False)
    assert shown["status"] == ["mortally_wounded"]


@pytest.mark.parametrize("state,params", [
    ({"frail": True}, ()),
    ({"minor_npc": True}, ()),
    ({}, ("unsurvivable=true",)),
])
def test_W9_frail_pcs_minor_npcs_and_unsurvivable_injuries_die_at_once(rules, tmp_path, state, params):
    path = new_sheet(rules, tmp_path, hp=(2, 9), **state)
    assert run(rules, path, "take_damage", "amount=2", *params)["outcome"] == "dead"
    shown = show(rules, path)
    assert (shown["state"]["deceased"], shown["state"]["mortally_wounded"]) == (True, False)
    assert shown["status"] == ["dead"]


def test_W9_a_frail_pc_above_zero_is_only_hurt(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(5, 9), frail=True)
    assert run(rules, path, "take_damage", "amount=4")["outcome"] == "hurt"
    assert show(rules, path)["status"] == ["frail"]


def test_W9_the_mortally_wounded_die_six_rounds_after_falling(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(1, 9))
    run(rules, path, "take_damage", "amount=1")
    for rounds in range(1, 6):
        got = run(rules, path, "next_round")
        assert (got["outcome"], got["values"]["rounds_down"]) == ("dying", rounds)
    assert run(rules, path, "next_round")["outcome"] == "dead"
    shown = show(rules, path)
    assert (shown["status"], shown["state"]["rounds_down"]) == (["dead"], 6)
    assert run(rules, path, "next_round")["outcome"] == "unaffected"


def test_W9_ruling_more_damage_to_the_dying_is_one_yaml_value(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(0, 9), mortally_wounded=True, rounds_down=2)
    got = run(rules, path, "take_damage", "amount=5")
    assert (got["outcome"], got["written"]) == ("unharmed", False)
    assert run(rules, path, "take_damage", "amount=5", "unsurvivable=true")["outcome"] == "dead"
    house = edited_copy(tmp_path, "wwn", ("damage_kills_the_dying: 0 ", "damage_kills_the_dying: 1 "))
    path = new_sheet(rules, tmp_path, "house.yaml", hp=(0, 9), mortally_wounded=True)
    assert run(rules, path, "take_damage", "amount=1", ref=str(house))["outcome"] == "dead"


def test_W9_the_dead_take_no_more_damage(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(0, 9), deceased=True)
    assert "the character is dead: it died at 0 HP (W9); procedure 'take_damage'" in refused(rules, path, "take_damage", "amount=1")


# ----------------------------------------------------------------------------- W10, W11 stabilizing
def test_W11_stabilized_stops_dying_with_1_hp_and_frail(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(0, 9), mortally_wounded=True, rounds_down=3)
    got = run(rules, path, "stabilize", "skill=1", "attribute=14", "rounds=rounds_down", dice=[4, 5])
    # W10: difficulty 8 + 3 rounds = 11; 4 + 5 + 1 (Heal) + 1 (14 -> +1) = 11
    # W11: "revives ten minutes later with 1 HP"
    assert (got["outcome"], got["values"]) == ("success", {"difficulty": 11, "total": 11, "revives_in_minutes": 10})
    shown = show(rules, path)
    assert hp(shown) == (1, 9)
    assert {k: shown["state"][k] for k in ("mortally_wounded", "frail", "rounds_down")} == \
        {"mortally_wounded": False, "frail": True, "rounds_down": 0}
    assert shown["status"] == ["frail"]


def test_W10_W11_a_failed_stabilize_changes_nothing(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(0, 9), mortally_wounded=True, rounds_down=3)
    before = path.read_bytes()
    got = run(rules, path, "stabilize", "skill=1", "attribute=14", "rounds=rounds_down", dice=[4, 4])
    assert (got["outcome"], got["values"]["total"], got["changes"]) == ("failure", 10, [])
    assert got["values"]["revives_in_minutes"] == 0
    assert path.read_bytes() == before


def test_W11_only_the_mortally_wounded_are_stabilized(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(3, 9))
    message = refused(rules, path, "stabilize", "skill=1", "attribute=14", "rounds=0", "--dice", "6,6")
    assert message == "the target is not Mortally Wounded"


# ----------------------------------------------------------------------------- W12 Frail ends
def test_W12_magical_healing_revives_the_mortally_wounded_without_frail(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(0, 9), mortally_wounded=True, rounds_down=4, frail=True)
    got = run(rules, path, "magic_heal", "amount=5")
    assert (got["outcome"], got["values"]["hp_current"]) == ("revived", 5)
    shown = show(rules, path)
    assert {k: shown["state"][k] for k in ("mortally_wounded", "frail", "rounds_down")} == \
        {"mortally_wounded": False, "frail": False, "rounds_down": 0}
    assert strain(shown) == (0, 10)
    assert shown["status"] == []


def test_W12_magical_healing_ends_frail(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(1, 9), frail=True, nights_in_bed=3)
    assert run(rules, path, "magic_heal", "amount=20", "strain=1")["outcome"] == "healed"
    shown = show(rules, path)
    assert (hp(shown), shown["state"]["frail"], shown["state"]["nights_in_bed"], strain(shown)) == \
        ((9, 9), False, 0, (1, 10))


def test_W12_W15_a_week_of_bed_rest_ends_frail_and_heals_nothing(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(1, 9), frail=True, system_strain=4, level=3)
    for night in range(1, 7):
        got = run(rules, path, "rest")
        assert got["outcome"] == "bed_rest"
        shown = show(rules, path)
        assert (hp(shown), strain(shown)[0], shown["state"]["nights_in_bed"]) == ((1, 9), 4, night)
    assert run(rules, path, "rest")["outcome"] == "recovered"
    shown = show(rules, path)
    assert (shown["state"]["frail"], shown["state"]["nights_in_bed"], hp(shown)) == (False, 0, (1, 9))
    assert run(rules, path, "rest")["outcome"] == "rested"   # no longer Frail: W15 applies
    assert hp(show(rules, path)) == (4, 9)


# ----------------------------------------------------------------------------- W13, W14 first aid and strain
def test_W13_first_aid_heals_1d6_plus_heal_and_adds_one_strain(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(2, 12))
    got = run(rules, path, "first_aid", "heal=2", dice=[5])
    assert (got["outcome"], got["values"]["healed"]) == ("done", 7)
    shown = show(rules, path)
    assert (hp(shown), strain(shown)) == ((9, 12), (1, 10))
    got = run(rules, path, "first_aid", "heal=untrained", dice=[6])   # 6 - 1 = 5 rolled, 3 restored to the max 12
    shown = show(rules, path)
    assert (got["values"], hp(shown), strain(shown)) == ({"healed": 3, "rolled": 5}, (12, 12), (2, 10))


def test_W13_without_a_sheet_first_aid_only_rolls(rules):
    result = rules("run", "wwn", "first_aid", "heal=1", "--dice", "3", "--json")
    assert result.exit_code == 0, result.stderr
    got = json.loads(result.stdout)
    assert (got["outcome"], got["values"]) == ("done", {"healed": 4, "rolled": 4})


@pytest.mark.parametrize("con", [3, 12])
def test_W14_maximum_strain_is_the_constitution_score(rules, tmp_path, con):
    path = new_sheet(rules, tmp_path, CON=con, system_strain=con - 1, hp=(1, 9))
    assert strain(show(rules, path)) == (con - 1, con)
    run(rules, path, "first_aid", "heal=0", dice=[1])
    assert strain(show(rules, path)) == (con, con)
    assert "strain_maxed" in show(rules, path)["status"]


def test_W14_first_aid_at_maximum_strain_is_refused_and_writes_nothing(rules, tmp_path):
    path = new_sheet(rules, tmp_path, CON=11, system_strain=11, hp=(2, 9))
    message = refused(rules, path, "first_aid", "heal=2", "--dice", "4")
    assert message == "the target's System Strain is at its maximum (its Constitution): first aid cannot help"


def test_W14_a_strain_adding_effect_is_refused_past_the_maximum(rules, tmp_path):
    path = new_sheet(rules, tmp_path, CON=11, system_strain=10, hp=(2, 9))
    message = refused(rules, path, "magic_heal", "amount=3", "strain=2")
    assert message == "the target's System Strain is at its maximum (its Constitution): the effect cannot help"
    assert run(rules, path, "magic_heal", "amount=3", "strain=1")["outcome"] == "healed"
    assert run(rules, path, "magic_heal", "amount=3")["outcome"] == "healed"   # no strain added: allowed


def test_W13_first_aid_waits_for_stabilizing(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(0, 9), mortally_wounded=True)
    assert refused(rules, path, "first_aid", "heal=1", "--dice", "3") == \
        "the target is Mortally Wounded: stabilize it first"


# ----------------------------------------------------------------------------- W15 rest
@pytest.mark.parametrize("level,current,after", [(1, 3, 4), (4, 3, 7), (4, 8, 9), (10, 0, 9)])
def test_W15_rest_recovers_level_hp_and_one_strain(rules, tmp_path, level, current, after):
    path = new_sheet(rules, tmp_path, level=level, hp=(current, 9), system_strain=3)
    got = run(rules, path, "rest")
    assert (got["outcome"], got["values"]) == ("rested", {"hp_current": after, "system_strain": 2})
    shown = show(rules, path)
    assert (hp(shown), strain(shown)) == ((after, 9), (2, 10))


def test_W15_rest_with_no_strain_stays_at_zero(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(9, 9))
    got = run(rules, path, "rest")
    assert (got["outcome"], got["changes"], got["written"]) == ("rested", [], False)


def test_W15_the_mortally_wounded_and_the_dead_do_not_rest(rules, tmp_path):
    path = new_sheet(rules, tmp_path, hp=(0, 9), mortally_wounded=True)
    assert refused(rules, path, "rest") == "the creature is Mortally Wounded: stabilize it first"
    path = new_sheet(rules, tmp_path, "dead.yaml", hp=(0, 9), deceased=True)
    assert "the character is dead: it died at 0 HP (W9); procedure 'rest'" in refused(rules, path, "rest")


# ----------------------------------------------------------------------------- W7 ruling: PC saves
@pytest.mark.parametrize("kind,target", [("physical", 12), ("evasion", 14), ("mental", 13), ("luck", 14)])
def test_W7_pc_saves_are_16_minus_level_minus_the_better_modifier(rules, tmp_path, kind, target):
    path = new_sheet(rules, tmp_path, STR=14, CON=18, DEX=6, INT=9, WIS=3, CHA=15, level=2)
    got = run(rules, path, "pc_save", f"kind={kind}", dice=[target])
    assert (got["outcome"], got["values"]) == ("success", {"target": target, "roll": target})
    assert run(rules, path, "pc_save", f"kind={kind}", "mod=-1", dice=[target])["outcome"] == "failure"


@pytest.mark.parametrize("traits, kind, target", [
    ({"STR": 18, "CON": 4}, "physical", 12),     # W6: 18 is +2, 4 is -1; 16 - 2 - 2
    ({"STR": 3, "CON": 7}, "physical", 15),      # -2 and -1: the better is -1; 16 - 2 + 1
    ({"DEX": 16, "INT": 18}, "evasion", 12),     # +1 and +2
    ({"DEX": 3, "INT": 5}, "evasion", 15),       # -2 and -1
    ({"WIS": 14, "CHA": 3}, "mental", 13),       # +1 and -2
    ({"WIS": 4, "CHA": 3}, "mental", 15),        # -1 and -2
    ({"DEX": 18, "WIS": 3}, "luck", 14),         # Luck takes no modifier: 16 - 2
])
def test_W7_W6_a_pc_save_moves_against_the_better_modifier_on_both_sides_of_0(rules, tmp_path, traits, kind, target):
    """W7 ruling (published game): save = 16 - level - the better modifier of the pair, at level 2."""
    path = new_sheet(rules, tmp_path, level=2, **traits)
    got = run(rules, path, "pc_save", f"kind={kind}", dice=[target])
    assert (got["outcome"], got["values"]["target"]) == ("success", target)
    assert run(rules, path, "pc_save", f"kind={kind}", dice=[target - 1])["outcome"] == "failure"


def test_W11_W12_the_stabilized_start_a_whole_week_of_bed_rest(rules, tmp_path):
    """W11: the stabilized are Frail; W12: a week of bed rest ends it. Nights counted before the fall
    do not count: after stabilizing, the seventh night ends Frail, not an earlier one."""
    path = new_sheet(rules, tmp_path, hp=(0, 9), mortally_wounded=True, frail=False, nights_in_bed=3)
    run(rules, path, "stabilize", "skill=1", "attribute=14", "rounds=0", dice=[4, 5])
    assert show(rules, path)["state"]["nights_in_bed"] == 0
    for _ in range(6):
        assert run(rules, path, "rest")["outcome"] == "bed_rest"
    assert run(rules, path, "rest")["outcome"] == "recovered"


def test_W12_W15_with_the_ruling_switched_a_frail_night_sheds_strain(rules, tmp_path):
    """W15 ruling `frail_rest_strain_loss` (docs/systems/wwn.md): 0 by default (W15 is for the not Frail);
    set to 1, a Frail creature's night of bed rest takes 1 strain off, 4 to 3, and still heals no HP."""
    copy = edited_copy(tmp_path, "wwn", ("frail_rest_strain_loss: 0", "frail_rest_strain_loss: 1"))
    path = new_sheet(rules, tmp_path, hp=(1, 9), frail=True, system_strain=4, level=3)
    path.write_text(path.read_text().replace("ruleset: wwn", f"ruleset: {copy.name}"))
    got = run(rules, path, "rest", ref=str(copy))
    shown = show(rules, path)
    assert (got["outcome"], hp(shown), strain(shown)[0]) == ("bed_rest", (1, 9), 3)


@pytest.mark.parametrize("amount, ok", [(0, False), (1, True)])
def test_W12_magical_healing_heals_at_least_1(rules, tmp_path, amount, ok):
    """W12: magical healing heals; the least it heals is 1 HP (1 of 9 to 2), 0 is no healing at all."""
    path = new_sheet(rules, tmp_path, hp=(1, 9), frail=True)
    if ok:
        assert run(rules, path, "magic_heal", f"amount={amount}")["values"]["hp_current"] == 2
    else:
        assert refused(rules, path, "magic_heal", f"amount={amount}") == "parameter 'amount' is 0; the least allowed is 1"


def test_W9_a_new_character_is_up_and_counts_no_rounds_or_nights(rules, tmp_path):
    """W9-W12: a new character has not fallen: no rounds since falling, no nights of bed rest, level 1."""
    state = show(rules, new_sheet(rules, tmp_path))["state"]
    assert (state["rounds_down"], state["nights_in_bed"], state["level"]) == (0, 0, 1)
    assert (state["mortally_wounded"], state["frail"], state["deceased"]) == (False, False, False)


def test_W7_W15_a_level_below_1_is_refused(rules, tmp_path):
    """Saves (W7) and rest (W15) run on the level, and the first level is 1; level 0 is not a level."""
    assert rules("sheet", "check", str(new_sheet(rules, tmp_path, level=0))).exit_code == 1
    assert rules("sheet", "check", str(new_sheet(rules, tmp_path, "one.yaml", level=1))).exit_code == 0


def test_W9_W14_no_damage_and_no_strain_are_allowed(rules, tmp_path):
    """W9: 0 damage harms nobody; W14: a magical healing that adds no strain (0) is allowed at any strain."""
    path = new_sheet(rules, tmp_path, hp=(5, 9))
    assert run(rules, path, "take_damage", "amount=0")["outcome"] == "unharmed"
    assert hp(show(rules, path)) == (5, 9)
    assert run(rules, path, "magic_heal", "amount=2", "strain=0")["values"]["hp_current"] == 7
    assert strain(show(rules, path))[0] == 0
