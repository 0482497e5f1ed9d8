"""Worlds Without Number style (seed 004): every procedure checked against brute force written here.

The oracles below are written from the seed's text (and, for attribute modifiers, the published
game's table), never from the YAML, so a wrong formula in rulesets/wwn.yaml fails them.
"""

from __future__ import annotations

import json
from collections import defaultdict
from fractions import Fraction

import pytest
from helpers import assert_sampling_matches_odds, edited_copy, enumerate_dice, one_line_error, ruleset, run_given

from interpreter.ruleset.tables import table_functions

# The published game's attribute modifiers (the seed uses modifiers without a table): W6.
PUBLISHED_MODS = {3: -2, **{s: -1 for s in range(4, 8)}, **{s: 0 for s in range(8, 14)},
                  **{s: 1 for s in range(14, 18)}, 18: 2}


# ----------------------------------------------------------------------------- helpers
def cli_json(rules, *args: str) -> dict:
    """Run a `rules` command with --json; it must succeed and print one JSON object."""
    result = rules(*args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def run_cli(rules, procedure: str, *params: str, dice: list[int], ref: str = "wwn") -> dict:
    """`rules run REF PROCEDURE PARAMS --dice ... --json` as a dict."""
    return cli_json(rules, "run", ref, procedure, *params, "--dice", ",".join(map(str, dice)))


def exact_odds(rules, procedure: str, **params) -> tuple[dict[str, Fraction], dict[str, dict[str, Fraction]]]:
    """`rules odds wwn PROCEDURE ... --json`: the exact outcome and value distributions as fractions."""
    got = cli_json(rules, "odds", "wwn", procedure, *(f"{k}={v}" for k, v in params.items()))
    assert "exact" in got and "truncated" not in got
    outcomes = {k: Fraction(v) for k, v in got["exact"].items()}
    values = {name: {k: Fraction(v) for k, v in data["exact"].items()} for name, data in got["values"].items()}
    assert sum(outcomes.values()) == 1
    return outcomes, values


def tally(outcomes: list[str]) -> tuple[dict[str, Fraction], dict[str, dict[str, Fraction]]]:
    """Fresh accumulators: every outcome at 0, value distributions empty."""
    return {o: Fraction(0) for o in outcomes}, defaultdict(lambda: defaultdict(Fraction))


def plain(values: dict) -> dict:
    return {name: dict(dist) for name, dist in values.items()}


def skill_bonus(skill: int | str) -> int:
    return -1 if skill == "untrained" else int(skill)


# ----------------------------------------------------------------------------- W1-W6 skill checks
def brute_skill_check(skill, attribute: int, difficulty: int, mod: int = 0, aided: bool = False):
    """W1, W3-W6: 2d6 + skill (untrained -1) + attribute modifier + mod (+1 aided) >= difficulty."""
    outcomes, values = tally(["success", "failure"])
    for a, b in enumerate_dice(6, 6):
        total = a + b + skill_bonus(skill) + PUBLISHED_MODS[attribute] + mod + (1 if aided else 0)
        p = Fraction(1, 36)
        outcomes["success" if total >= difficulty else "failure"] += p
        values["total"][str(total)] += p
    return outcomes, plain(values)


@pytest.mark.parametrize("skill,attribute,difficulty,mod,aided", [
    (0, 10, 8, 0, False),
    (1, 14, 8, 0, False),
    (2, 18, 12, 2, True),
    ("untrained", 3, 6, -2, False),
    ("untrained", 7, 8, 0, True),
    (4, 16, 15, -1, False),
])
def test_W1_skill_check_odds_are_exact(rules, skill, attribute, difficulty, mod, aided):
    """W1 (with W3-W6 in the mix): `rules odds` agrees with all 36 rolls of 2d6."""
    expected = brute_skill_check(skill, attribute, difficulty, mod, aided)
    got = exact_odds(rules, "skill_check", skill=skill, attribute=attribute, difficulty=difficulty, mod=mod,
                     aided=str(aided).lower())
    assert got == expected


def test_W1_total_equal_to_the_difficulty_succeeds(rules):
    """W1: 'equal or exceed the check's difficulty'."""
    got = run_cli(rules, "skill_check", "skill=1", "attribute=10", "difficulty=8", dice=[3, 4])
    assert (got["outcome"], got["values"]["total"]) == ("success", 8)
    got = run_cli(rules, "skill_check", "skill=1", "attribute=10", "difficulty=8", dice=[3, 3])
    assert (got["outcome"], got["values"]["total"]) == ("failure", 7)
    assert [r["result"] for r in got["rolls"]] == [6]


def test_W2_difficulty_bands_are_constants_and_described(rules):
    """W2: easiest 6, most 8+, hardest 12+ — data, shown by `rules describe`."""
    constants = ruleset("wwn").constants
    assert (constants["difficulty_easy"], constants["difficulty_typical"], constants["difficulty_hardest"]) == (6, 8, 12)
    text = rules("describe", "wwn").stdout
    for line in ("`difficulty_easy` = 6", "`difficulty_typical` = 8", "`difficulty_hardest` = 12", "### Difficulties (W2)"):
        assert line in text


def test_W3_untrained_is_one_below_level_zero(rules):
    """W3: without even level-0 skill, -1."""
    trained = run_cli(rules, "skill_check", "skill=0", "attribute=10", "difficulty=8", dice=[4, 4])
    untrained = run_cli(rules, "skill_check", "skill=untrained", "attribute=10", "difficulty=8", dice=[4, 4])
    assert (trained["values"]["total"], trained["outcome"]) == (8, "success")
    assert (untrained["values"]["total"], untrained["outcome"]) == (7, "failure")


def test_W3_untrained_penalty_is_one_yaml_number(tmp_path, rules):
    """W3: `untrained_penalty: -1` is the only place the -1 lives."""
    path = edited_copy(tmp_path, "wwn", ("untrained_penalty: -1 ", "untrained_penalty: -3 "))
    got = run_cli(rules, "skill_check", "skill=untrained", "attribute=10", "difficulty=8", dice=[4, 4], ref=str(path))
    assert got["values"]["total"] == 5


def test_W4_circumstances_are_bounded_to_plus_minus_two(rules):
    """W4: circumstances or tools give -2 to +2; more is refused, not clamped."""
    got = run_cli(rules, "skill_check", "skill=0", "attribute=10", "difficulty=8", "mod=-2", dice=[5, 5])
    assert got["values"]["total"] == 8
    message = one_line_error(rules("run", "wwn", "skill_check", "skill=0", "attribute=10", "difficulty=8", "mod=3"))
    assert message == "parameter 'mod' is 3; the most allowed is 2"


def test_W5_aid_adds_one_when_a_helper_succeeded(rules):
    """W5: a helper's success at the same check gives +1 (the `aided` flag)."""
    alone = run_cli(rules, "skill_check", "skill=0", "attribute=10", "difficulty=8", dice=[3, 4])
    aided = run_cli(rules, "skill_check", "skill=0", "attribute=10", "difficulty=8", "aided=true", dice=[3, 4])
    assert (alone["outcome"], aided["outcome"]) == ("failure", "success")
    assert aided["values"]["total"] - alone["values"]["total"] == 1


def test_W5_aid_bonus_is_one_yaml_number(tmp_path):
    path = edited_copy(tmp_path, "wwn", ("aid_bonus: 1 ", "aid_bonus: 2 "))
    result = run_given(path, "skill_check", {"skill": 0, "attribute": 10, "difficulty": 8, "aided": "true"}, [3, 3])
    assert result.values["total"] == 8


@pytest.mark.parametrize("score", range(3, 19))
def test_W6_attribute_modifier_follows_the_published_table(score):
    """W6: 3: -2, 4-7: -1, 8-13: 0, 14-17: +1, 18: +2 (the published game; the seed gives none)."""
    result = run_given("wwn", "skill_check", {"skill": 0, "attribute": score, "difficulty": 2}, [1, 1])
    assert result.values["total"] - 2 == PUBLISHED_MODS[score]
    derived = ruleset("wwn").derived["DEX_mod"].formula
    assert derived.evaluate({"DEX": score}, table_functions(ruleset("wwn"))) == PUBLISHED_MODS[score]


def test_W6_modifier_table_is_described(rules):
    text = rules("describe", "wwn").stdout
    assert "### `attr_mod` (keyed by number) (W6)" in text
    for row in ("| 3 | -2 |", "| 4–7 | -1 |", "| 8–13 | 0 |", "| 14–17 | 1 |", "| 18 | 2 |"):
        assert row in text


def test_W6_attribute_outside_3_to_18_is_refused(rules):
    message = one_line_error(rules("run", "wwn", "skill_check", "skill=0", "attribute=19", "difficulty=8"))
    assert message == "parameter 'attribute' is 19; the most allowed is 18"
    message = one_line_error(rules("odds", "wwn", "stabilize", "skill=0", "attribute=2", "rounds=0"))
    assert message == "parameter 'attribute' is 2; the least allowed is 3"


# ----------------------------------------------------------------------------- W7-W8 saves
def brute_save(target: int, mod: int = 0):
    """W7: 1d20 (+ mod) equal or exceeding the save score succeeds."""
    outcomes, values = tally(["success", "failure"])
    for (roll,) in enumerate_dice(20):
        p = Fraction(1, 20)
        outcomes["success" if roll + mod >= target else "failure"] += p
        values["roll"][str(roll)] += p
        values["total"][str(roll + mod)] += p
    return outcomes, plain(values)


@pytest.mark.parametrize("target,mod", [(15, 0), (12, 2), (1, 0), (21, 0), (25, 3), (16, -2)])
def test_W7_save_odds_are_exact(rules, target, mod):
    assert exact_odds(rules, "save", target=target, mod=mod) == brute_save(target, mod)


def test_W7_save_equal_to_the_score_succeeds(rules):
    assert run_cli(rules, "save", "target=14", dice=[14])["outcome"] == "success"
    assert run_cli(rules, "save", "target=14", dice=[13])["outcome"] == "failure"
    assert run_cli(rules, "save", "target=14", "mod=1", dice=[13])["outcome"] == "success"


def test_W7_four_saves_are_data(rules):
    saves = ruleset("wwn").notes["saving_throws"].data
    assert set(saves) == {"Physical", "Evasion", "Mental", "Luck"}
    assert "poison" in saves["Physical"]
    assert "- Evasion: perils that can be dodged or ducked" in rules("describe", "wwn").stdout


@pytest.mark.parametrize("hit_dice,mod", [(0, 0), (1, 0), (3, 0), (4, 1), (9, 0), (40, -1)])
def test_W8_npc_save_is_15_minus_half_hit_dice(rules, hit_dice, mod):
    """W8: one save of 15 minus halved, rounded-down hit dice."""
    target = 15 - hit_dice // 2
    outcomes, values = tally(["success", "failure"])
    for (roll,) in enumerate_dice(20):
        outcomes["success" if roll + mod >= target else "failure"] += Fraction(1, 20)
        values["roll"][str(roll)] += Fraction(1, 20)
    values["target"][str(target)] = Fraction(1)
    assert exact_odds(rules, "npc_save", hit_dice=hit_dice, mod=mod) == (outcomes, plain(values))


def test_W8_npc_save_given_dice(rules):
    got = run_cli(rules, "npc_save", "hit_dice=5", dice=[13])
    assert (got["outcome"], got["values"]) == ("success", {"target": 13, "roll": 13})
    assert run_cli(rules, "npc_save", "hit_dice=5", dice=[12])["outcome"] == "failure"


# ----------------------------------------------------------------------------- W10, W13
@pytest.mark.parametrize("skill,attribute,rounds", [(0, 10, 0), (1, 14, 2), ("untrained", 7, 1), (3, 18, 5)])
def test_W10_stabilize_is_a_check_against_8_plus_rounds(rules, skill, attribute, rounds):
    """W10: Dex or Int / Heal at difficulty 8 + full rounds since the fall."""
    difficulty = 8 + rounds
    outcomes, values = brute_skill_check(skill, attribute, difficulty)
    values["difficulty"] = {str(difficulty): Fraction(1)}
    values["revives_in_minutes"] = {k: v for k, v in {"10": outcomes["success"], "0": outcomes["failure"]}.items() if v}
    assert exact_odds(rules, "stabilize", skill=skill, attribute=attribute, rounds=rounds) == (outcomes, values)


def test_W10_stabilize_given_dice(rules):
    got = run_cli(rules, "stabilize", "skill=1", "attribute=14", "rounds=3", dice=[5, 4])
    assert (got["outcome"], got["values"]) == ("success", {"difficulty": 11, "total": 11, "revives_in_minutes": 10})
    got = run_cli(rules, "stabilize", "skill=1", "attribute=14", "rounds=3", dice=[5, 3])
    assert got["outcome"] == "failure"


@pytest.mark.parametrize("heal", [0, 2, "untrained"])
def test_W13_first_aid_heals_1d6_plus_heal_skill(rules, heal):
    """W13: 1d6 + the healer's Heal skill (ruling: untrained adds -1, never below 0 healed)."""
    outcomes, values = tally(["done"])
    for (die,) in enumerate_dice(6):
        outcomes["done"] += Fraction(1, 6)
        values["healed"][str(max(0, die + skill_bonus(heal)))] += Fraction(1, 6)
        values["rolled"][str(max(0, die + skill_bonus(heal)))] += Fraction(1, 6)
    assert exact_odds(rules, "first_aid", heal=heal) == (outcomes, plain(values))
    assert run_cli(rules, "first_aid", "heal=2", dice=[4])["values"]["healed"] == 6


def test_W13_ruling_untrained_first_aid_is_one_yaml_value(tmp_path):
    """Ruling: a healer with no Heal skill adds `first_aid_untrained` (the untrained -1); set 0 to add nothing."""
    assert run_given("wwn", "first_aid", {"heal": "untrained"}, [1]).values["healed"] == 0
    path = edited_copy(tmp_path, "wwn", ("first_aid_untrained: untrained_penalty", "first_aid_untrained: 0"))
    assert run_given(path, "first_aid", {"heal": "untrained"}, [1]).values["healed"] == 1


# ----------------------------------------------------------------------------- W16-W19 combat data
def test_W16_spellcasting_restrictions_are_data(rules):
    data = ruleset("wwn").notes["spellcasting"].data
    assert data["action"] == "Main Action"
    assert data["forbidden"] == ["armor", "a shield"]
    assert "fizzles" in data["struck_while_casting"]
    text = rules("describe", "wwn").stdout
    assert "### Spellcasting restrictions (W16)" in text and "- needs: a free hand, a clear voice" in text


def test_W17_a_round_is_six_seconds(rules):
    assert ruleset("wwn").constants["round_seconds"] == 6
    text = rules("describe", "wwn").stdout
    assert "`round_seconds` = 6" in text and "### Rounds (W17)" in text


def test_W18_initiative_is_1d8_plus_dex_modifier(rules):
    for dex_mod in (-1, 0, 2):
        outcomes, values = tally(["done"])
        for (die,) in enumerate_dice(8):
            outcomes["done"] += Fraction(1, 8)
            values["initiative"][str(die + dex_mod)] += Fraction(1, 8)
        assert exact_odds(rules, "initiative", dex_mod=dex_mod) == (outcomes, plain(values))


@pytest.mark.parametrize("pc,npc", [(0, 0), (1, -1), (-2, 2)])
def test_W18_ties_go_to_the_pcs(rules, pc, npc):
    outcomes, values = tally(["pcs_first", "foes_first"])
    for a, b in enumerate_dice(8, 8):
        p = Fraction(1, 64)
        outcomes["pcs_first" if a + pc >= b + npc else "foes_first"] += p
        values["pc_initiative"][str(a + pc)] += p
        values["npc_initiative"][str(b + npc)] += p
    got_outcomes, got_values = exact_odds(rules, "group_initiative", pc_dex_mod=pc, npc_dex_mod=npc)
    assert got_outcomes == outcomes
    assert got_values == {k: dict(v) for k, v in values.items()}
    tie = run_cli(rules, "group_initiative", "pc_dex_mod=0", "npc_dex_mod=1", dice=[5, 4])
    assert tie["outcome"] == "pcs_first"


def test_W19_action_economy_is_data(rules):
    rs = ruleset("wwn")
    c = rs.constants
    assert (c["main_actions_per_turn"], c["move_actions_per_turn"], c["move_feet"]) == (1, 1, 30)
    assert set(rs.notes["actions"].data) == {"Main", "Move", "On Turn", "Instant"}
    text = rules("describe", "wwn").stdout
    assert "### Actions in a turn (W19)" in text and "`move_feet` = 30" in text


# ----------------------------------------------------------------------------- W20-W23 attacks
def brute_attack(bonus, ac, dice: tuple[int, ...], damage_bonus=0, shock=0, shock_ac=0, negated=False):
    """W20-W22 from the seed: nat 1 misses, nat 20 hits; hits never under the Shock; misses may Shock."""
    outcomes, values = tally(["hit", "miss"])
    shock_damage = max(0, shock + damage_bonus) if shock > 0 else 0
    for natural, *damage_dice in enumerate_dice(20, *dice):
        p = Fraction(1, 20)
        for sides in dice:
            p /= sides
        hit = natural != 1 and (natural == 20 or natural + bonus >= ac)
        if hit:  # "can't do less damage than the weapon's Shock would do on a miss" (negated or not)
            damage = max(0, sum(damage_dice) + damage_bonus, shock_damage if shock > 0 and ac <= shock_ac else 0)
        else:
            damage = shock_damage if shock > 0 and ac <= shock_ac and not negated else 0
        outcomes["hit" if hit else "miss"] += p
        values["natural"][str(natural)] += p
        values["damage"][str(damage)] += p
    return outcomes, plain(values)


@pytest.mark.parametrize("params,dice", [
    ({"bonus": 3, "ac": 14, "damage": "1d8"}, (8,)),
    ({"bonus": 30, "ac": 3, "damage": "1d6", "damage_bonus": 2}, (6,)),
    ({"bonus": 0, "ac": 25, "damage": "1d10"}, (10,)),
    ({"bonus": 2, "ac": 13, "damage": "1d8", "damage_bonus": 1, "shock": 2, "shock_ac": 13}, (8,)),
    ({"bonus": 1, "ac": 15, "damage": "1d6", "shock": 2, "shock_ac": 13}, (6,)),
    ({"bonus": 4, "ac": 10, "damage": "1d4", "damage_bonus": -2, "shock": 1, "shock_ac": 15}, (4,)),
    ({"bonus": 4, "ac": 12, "damage": "2d4", "shock": 3, "shock_ac": 16, "shock_negated": "true"}, (4, 4)),
])
def test_W20_W22_attack_odds_are_exact(rules, params, dice):
    """W20-W22: `rules odds` agrees with every d20 and every face of the damage dice."""
    expected = brute_attack(**{k: v for k, v in params.items() if k not in ("damage", "shock_negated")},
                            dice=dice, negated="shock_negated" in params)
    assert exact_odds(rules, "attack", **params) == expected


def test_W20_natural_one_always_misses(rules):
    got = run_cli(rules, "attack", "bonus=30", "ac=3", "damage=1d8", dice=[1])
    assert (got["outcome"], got["values"]["damage"]) == ("miss", 0)
    assert [r["name"] for r in got["rolls"]] == ["natural"]


def test_W20_a_miss_rolls_no_damage_die(rules):
    """Damage is rolled only on a hit, so a second given die after a miss is left over."""
    message = one_line_error(rules("run", "wwn", "attack", "bonus=30", "ac=3", "damage=1d8", "--dice", "1,5"))
    assert "not used: 5" in message


def test_W20_natural_twenty_always_hits(rules):
    got = run_cli(rules, "attack", "bonus=0", "ac=25", "damage=1d8", dice=[20, 5])
    assert (got["outcome"], got["values"]["damage"]) == ("hit", 5)
    assert [r["result"] for r in got["rolls"]] == [20, 5]


def test_W20_total_equal_to_ac_hits(rules):
    assert run_cli(rules, "attack", "bonus=4", "ac=14", "damage=1d6", dice=[10, 3])["outcome"] == "hit"
    assert run_cli(rules, "attack", "bonus=4", "ac=14", "damage=1d6", dice=[9])["outcome"] == "miss"


def test_W21_hit_damage_is_the_die_plus_the_bonus(rules):
    got = run_cli(rules, "attack", "bonus=5", "ac=12", "damage=1d8", "damage_bonus=2", dice=[11, 6])
    assert (got["outcome"], got["values"]["damage"]) == ("hit", 8)


def test_W22_shock_on_a_miss(rules):
    """W22: 'Shock 2/13' does 2 (+ the modifier) on a miss against AC 13 or less."""
    got = run_cli(rules, "attack", "bonus=0", "ac=13", "damage=1d8", "shock=2", "shock_ac=13", "damage_bonus=1",
                  dice=[5])
    assert (got["outcome"], got["values"]["damage"]) == ("miss", 3)
    got = run_cli(rules, "attack", "bonus=0", "ac=14", "damage=1d8", "shock=2", "shock_ac=13", dice=[5])
    assert (got["outcome"], got["values"]["damage"]) == ("miss", 0)


def test_W22_a_hit_that_rolls_under_the_shock_does_the_shock(rules):
    got = run_cli(rules, "attack", "bonus=5", "ac=12", "damage=1d4", "damage_bonus=1", "shock=3", "shock_ac=15",
                  dice=[10, 1])
    assert (got["outcome"], got["values"]["damage"]) == ("hit", 4)


def test_W22_ruling_natural_one_still_shocks(tmp_path, rules):
    """Ruling: a natural 1 is a miss and still does Shock; `shock_on_natural_one: 1` turns it off."""
    args = ("bonus=0", "ac=10", "damage=1d8", "shock=2", "shock_ac=13")
    assert run_cli(rules, "attack", *args, dice=[1])["values"]["damage"] == 2
    path = edited_copy(tmp_path, "wwn", ("shock_on_natural_one: 1 ", "shock_on_natural_one: 0 "))
    assert run_cli(rules, "attack", *args, dice=[1], ref=str(path))["values"]["damage"] == 0


def test_W22_a_hit_against_an_ac_above_the_shock_ac_has_no_floor(tmp_path, rules):
    """W22 read literally: a miss against AC 16 with Shock 2/13 would do 0, so a hit's floor is 0 there;
    `hit_floor_needs_shock_ac: 0` is the other reading (the Shock damage whatever the AC)."""
    args = ("bonus=10", "ac=16", "damage=1d8", "shock=2", "shock_ac=13")
    assert run_cli(rules, "attack", *args, dice=[10, 1])["values"]["damage"] == 1
    at_limit = ("bonus=10", "ac=13", "damage=1d8", "shock=2", "shock_ac=13")
    assert run_cli(rules, "attack", *at_limit, dice=[10, 1])["values"]["damage"] == 2
    path = edited_copy(tmp_path, "wwn", ("hit_floor_needs_shock_ac: 1 ", "hit_floor_needs_shock_ac: 0 "))
    assert run_cli(rules, "attack", *args, dice=[10, 1], ref=str(path))["values"]["damage"] == 2


def test_W23_shields_and_total_defense_are_data_and_a_flag(rules):
    rs = ruleset("wwn")
    assert rs.constants["shield_shock_negations_per_round"] == 1
    assert "Total Defense" in rs.notes["shields"].text
    assert "### Shields and Total Defense (W23)" in rules("describe", "wwn").stdout
    got = run_cli(rules, "attack", "bonus=0", "ac=13", "damage=1d8", "shock=2", "shock_ac=13",
                  "shock_negated=true", dice=[5])
    assert (got["outcome"], got["values"]["damage"]) == ("miss", 0)


# ----------------------------------------------------------------------------- W24 morale
@pytest.mark.parametrize("morale", [2, 7, 8, 12])
def test_W24_morale_routs_only_when_2d6_is_higher(rules, morale):
    outcomes, values = tally(["holds", "routs"])
    for a, b in enumerate_dice(6, 6):
        outcomes["routs" if a + b > morale else "holds"] += Fraction(1, 36)
        values["roll"][str(a + b)] += Fraction(1, 36)
    assert exact_odds(rules, "morale", morale=morale) == (outcomes, plain(values))


def test_W24_morale_equal_to_the_score_holds(rules):
    assert run_cli(rules, "morale", "morale=8", dice=[4, 4])["outcome"] == "holds"
    assert run_cli(rules, "morale", "morale=8", dice=[4, 5])["outcome"] == "routs"


def test_W24_who_checks_morale_is_data(rules):
    data = ruleset("wwn").notes["morale_checks"].data
    assert data["pcs_check"] is False
    assert len(data["npcs_check_when"]) == 3
    assert "PCs never check morale" in rules("describe", "wwn").stdout


# ----------------------------------------------------------------------------- the whole ruleset
SAMPLED = [
    ("skill_check", {"skill": 1, "attribute": 14, "difficulty": 9}, None),
    ("skill_check", {"skill": "untrained", "attribute": 9, "difficulty": 6, "aided": "true"}, "total"),
    ("save", {"target": 14}, None),
    ("npc_save", {"hit_dice": 6, "mod": 1}, None),
    ("attack", {"bonus": 3, "ac": 13, "damage": "1d8", "shock": 2, "shock_ac": 13}, None),
    ("attack", {"bonus": 3, "ac": 13, "damage": "1d8", "damage_bonus": 1, "shock": 2, "shock_ac": 13}, "damage"),
    ("morale", {"morale": 8}, None),
    ("initiative", {"dex_mod": 1}, "initiative"),
    ("group_initiative", {"pc_dex_mod": 0, "npc_dex_mod": 1}, None),
    ("stabilize", {"skill": 1, "attribute": 12, "rounds": 2}, None),
    ("first_aid", {"heal": 1}, "healed"),
]


@pytest.mark.parametrize("procedure,params,value", SAMPLED, ids=[f"{p}-{v or 'outcome'}" for p, _, v in SAMPLED])
def test_W1_W24_seeded_sampling_agrees_with_exact_odds(procedure, params, value):
    assert_sampling_matches_odds("wwn", procedure, params, n=2000, seed=4004, value=value)


def test_W6_W8_W10_numbers_are_yaml_data(tmp_path, rules):
    """A GM changes a modifier row, the NPC save base and the stabilize base; behaviour follows."""
    path = str(edited_copy(tmp_path, "wwn",
                           ("{on: 18, value: 2}", "{on: 18, value: 3}"),
                           ("npc_save_base: 15 ", "npc_save_base: 17 "),
                           ("stabilize_base: 8 ", "stabilize_base: 6 ")))
    check = run_cli(rules, "skill_check", "skill=0", "attribute=18", "difficulty=8", dice=[1, 1], ref=path)
    assert check["values"]["total"] == 5
    save = run_cli(rules, "npc_save", "hit_dice=4", dice=[14], ref=path)
    assert (save["outcome"], save["values"]["target"]) == ("failure", 15)
    stab = run_cli(rules, "stabilize", "skill=0", "attribute=10", "rounds=2", dice=[4, 4], ref=path)
    assert (stab["outcome"], stab["values"]["difficulty"]) == ("success", 8)
    # the bundled file is untouched
    assert run_cli(rules, "npc_save", "hit_dice=4", dice=[14])["values"]["target"] == 13


@pytest.mark.parametrize("args,expected", [
    (("skill_check", "skill=expert", "attribute=10", "difficulty=8"),
     "parameter 'skill' must be a whole number or one of untrained, not 'expert'"),
    (("skill_check", "skill=0", "attribute=19", "difficulty=8"), "parameter 'attribute' is 19; the most allowed is 18"),
    (("skill_check", "skill=-2", "attribute=10", "difficulty=8"), "parameter 'skill' is -2; the least allowed is -1"),
    (("save", "target=14", "dc=3"), "procedure 'save' has no parameter 'dc'; it takes target, mod"),
    (("stabilize", "skill=1", "attribute=10"), "procedure 'stabilize' needs parameter 'rounds'"),
])
def test_W1_W10_parameter_errors_are_one_line(rules, args, expected):
    for command in ("run", "odds"):
        assert one_line_error(rules(command, "wwn", *args)) == expected


def test_W20_bad_damage_expression_is_one_line(rules):
    message = one_line_error(rules("run", "wwn", "attack", "bonus=1", "ac=12", "damage=1d"))
    assert message.startswith("parameter 'damage' ('1d'): ")
    message = one_line_error(rules("run", "wwn", "attack", "bonus=1", "ac=12", "damage=1d8", "--dice", "21"))
    assert message.endswith("given die 21 is not a face of a d20")


def test_ruleset_validates(rules):
    result = rules("validate", "wwn")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "wwn (bundled): valid"

