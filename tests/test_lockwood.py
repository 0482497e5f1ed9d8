"""Lockwood (seed 000): every procedure checked against brute-force enumeration written here."""

from __future__ import annotations

import json
from collections import defaultdict
from fractions import Fraction

import pytest
from helpers import assert_sampling_matches_odds, edited_copy, enumerate_dice, odds, ruleset, run_given

D20 = range(1, 21)


def check_outcome(natural: int, total: int, dc: int) -> str:
    if natural == 20:
        return "critical_success"
    if natural == 1:
        return "critical_failure"
    return "success" if total >= dc else "failure"


def brute_check(stat: int, dc: int, mod: int = 0, adv: bool = False, dis: bool = False, luck: int = 0):
    """P(outcome) by enumerating every d20 (two with advantage) and every luck die."""
    dist: dict[str, Fraction] = defaultdict(Fraction)
    two = adv != dis
    for dice in enumerate_dice(*([20, 20] if two else [20])):
        natural = (max(dice) if adv else min(dice)) if two else dice[0]
        for extra in (range(1, luck + 1) if luck else [0]):
            weight = Fraction(1, 20 ** len(dice)) / (luck if luck else 1)
            dist[check_outcome(natural, natural + stat + mod + extra, dc)] += weight
    return dict(dist)


def nonzero(outcomes):
    return {k: v for k, v in outcomes.items() if v}


@pytest.mark.parametrize("stat,dc,mod", [(12, 15, 0), (3, 25, 2), (15, 10, -3), (0, 30, 0)])
def test_L1_check_is_d20_plus_stat_against_dc(stat, dc, mod):
    expected = brute_check(stat, dc, mod)
    got = odds("lockwood", "check", {"stat": stat, "dc": dc, "mod": mod})
    assert got.exact
    assert nonzero(got.outcomes) == expected


def test_L1_success_when_total_meets_dc_exactly():
    result = run_given("lockwood", "check", {"stat": 10, "dc": 15}, [5])
    assert (result.outcome, result.values["total"]) == ("success", 15)
    result = run_given("lockwood", "check", {"stat": 10, "dc": 15}, [4])
    assert (result.outcome, result.values["total"]) == ("failure", 14)


@pytest.mark.parametrize("adv,dis", [(True, False), (False, True), (True, True)])
def test_L2_advantage_keeps_higher_disadvantage_lower_both_cancel(adv, dis):
    expected = brute_check(11, 16, adv=adv, dis=dis)
    got = odds("lockwood", "check", {"stat": 11, "dc": 16, "advantage": adv, "disadvantage": dis})
    assert nonzero(got.outcomes) == expected


def test_L2_advantage_keeps_the_higher_given_die():
    result = run_given("lockwood", "check", {"stat": 5, "dc": 15, "advantage": "true"}, [4, 13])
    assert result.values["natural"] == 13
    result = run_given("lockwood", "check", {"stat": 5, "dc": 15, "disadvantage": "true"}, [4, 13])
    assert result.values["natural"] == 4


def test_L3_natural_20_always_succeeds_and_natural_1_always_fails():
    assert run_given("lockwood", "check", {"stat": -50, "dc": 99}, [20]).outcome == "critical_success"
    assert run_given("lockwood", "check", {"stat": 50, "dc": 2}, [1]).outcome == "critical_failure"
    got = odds("lockwood", "check", {"stat": 100, "dc": 5})
    assert got.outcomes["critical_failure"] == Fraction(1, 20)
    assert got.outcomes["failure"] == 0


def test_L6_luck_points_add_one_die_of_that_size():
    expected = brute_check(8, 20, luck=3)
    got = odds("lockwood", "check", {"stat": 8, "dc": 20, "luck": 3})
    assert nonzero(got.outcomes) == expected
    result = run_given("lockwood", "check", {"stat": 15, "dc": 30, "luck": 3}, [12, 3])
    assert (result.values["total"], result.outcome) == (30, "success")


def test_L6_luck_ruling_is_one_yaml_value(tmp_path):
    """The ruling '1d(luck)' lives in `dice: luck_die`; changing it changes the roll."""
    path = edited_copy(tmp_path, "lockwood", ("luck_die: 1d(luck)", "luck_die: 1d(luck) + 100"))
    result = run_given(str(path), "check", {"stat": 0, "dc": 50, "luck": 2}, [10, 1])
    assert result.values["total"] == 111


def crit(natural: int) -> int:
    """L3 on one side's roll: 1 for a natural 20 (always succeeds), -1 for a natural 1 (always fails)."""
    return 1 if natural == 20 else -1 if natural == 1 else 0


def contest(a: int, at: int, d: int, dt: int) -> tuple[bool, bool]:
    """(the actor won, it was a tie) for naturals a, d and totals at, dt: a crit on either side decides
    (the same crit on both is a tie), else the higher total wins; the defender wins ties (L3, L7)."""
    ca, cd = crit(a), crit(d)
    if ca or cd:
        return ca > cd, ca == cd
    return at > dt, at == dt


def attack_damage(a: int, at: int, d: int, dt: int, plain: int | None = None) -> int:
    """The damage of an attack (L15): the margin of a hit (capped by luck's rule when `plain` is given),
    at least 1 on a hit a crit decided, 0 on a miss."""
    won, _ = contest(a, at, d, dt)
    margin = max(0, at - dt) if plain is None else min(max(0, at - dt), plain + 2)
    return max(margin, 1) if won else 0


def brute_opposed(actor: int, defender: int, adv=False, dis=False):
    dist: dict[tuple[str, bool], Fraction] = defaultdict(Fraction)
    two = adv != dis
    for dice in enumerate_dice(*([20, 20, 20] if two else [20, 20])):
        a = (max(dice[:2]) if adv else min(dice[:2])) if two else dice[0]
        d = dice[-1]
        won, tied = contest(a, a + actor, d, d + defender)
        dist[("success" if won else "failure", tied)] += Fraction(1, 20 ** len(dice))
    return dist


@pytest.mark.parametrize("actor,defender,adv", [(10, 10, False), (14, 9, False), (7, 12, True)])
def test_L7_opposed_higher_total_wins_defender_wins_ties(actor, defender, adv):
    expected = brute_opposed(actor, defender, adv=adv)
    got = odds("lockwood", "opposed", {"actor": actor, "defender": defender, "advantage": adv})
    wins = sum(p for (o, _), p in expected.items() if o == "success")
    assert got.outcomes["success"] == wins
    ties = sum(p for (_, tie), p in expected.items() if tie)
    assert got.values["defenders_clause"].get(True, 0) == ties


def test_L7_tie_goes_to_the_defender():
    result = run_given("lockwood", "opposed", {"actor": 5, "defender": 8}, [13, 10])
    assert result.outcome == "failure"
    assert result.values["actor_total"] == result.values["defender_total"] == 18


def test_L8_defenders_clause_is_flagged_on_a_tie_only():
    assert run_given("lockwood", "opposed", {"actor": 5, "defender": 8}, [13, 10]).values["defenders_clause"] is True
    assert run_given("lockwood", "opposed", {"actor": 5, "defender": 8}, [13, 9]).values["defenders_clause"] is False


def test_L9_opposing_stat_pairs_are_data(rules):
    pairs = ruleset("lockwood").notes["opposed_stats"].data
    assert pairs["notice_a_sneak"] == {"actor": "PER", "defender": "AGI"}
    assert pairs["persuade_the_resisting"] == {"actor": "CHA", "defender": "WILL"}
    assert "notice_a_sneak" in rules("describe", "lockwood").stdout


@pytest.mark.parametrize("name,traits,expected", [
    ("HP", {"END": 12, "WILL": 9}, 21),
    ("melee_attack", {"STR": 13, "AGI": 10}, 11),
    ("ranged_attack", {"KNO": 7, "PER": 8}, 7),
    ("physical_defense", {"STR": 9, "END": 12}, 10),
    ("dodge_defense", {"AGI": 15, "PER": 14}, 14),
])
def test_L10_derived_stats_round_down(name, traits, expected):
    formula = ruleset("lockwood").derived[name].formula
    assert formula.evaluate(traits) == expected


def test_L12_talent_roll_is_a_d4_table():
    got = odds("lockwood", "talent", {})
    assert got.outcomes == {"success": Fraction(1, 2), "failure": Fraction(1, 4), "backfire": Fraction(1, 4)}
    assert run_given("lockwood", "talent", {}, [1]).outcome == "backfire"
    assert run_given("lockwood", "talent", {}, [2]).outcome == "failure"
    assert run_given("lockwood", "talent", {}, [3]).outcome == "success"
    assert ruleset("lockwood").constants["talent_attempts"] == 5


def test_L13_turn_order_is_descriptive_data(rules):
    notes = ruleset("lockwood").notes
    assert notes["turn_order"].data["initiative_roll"] is False
    assert notes["action_economy"].data["actions_per_turn"] == 1
    text = rules("describe", "lockwood").stdout
    assert "Turn order" in text and "no initiative roll" in text


def test_L14_moving_is_a_static_dc_5_roll_that_imposes_disadvantage():
    got = odds("lockwood", "move", {"agility": 0})
    # naturals 5..20 reach DC 5, except that 1 always fails (and 20 always succeeds)
    assert got.outcomes["success"] == Fraction(16, 20)
    assert got.values["disadvantage_this_turn"][True] == Fraction(4, 20)
    assert ruleset("lockwood").constants["move_dc"] == 5


def test_L15_attack_damage_is_attack_minus_defense_never_negative():
    expected: dict[int, Fraction] = defaultdict(Fraction)
    hit = Fraction(0)
    for a, d in enumerate_dice(20, 20):
        expected[attack_damage(a, a + 11, d, d + 9)] += Fraction(1, 400)
        hit += Fraction(1, 400) if contest(a, a + 11, d, d + 9)[0] else 0
    got = odds("lockwood", "attack", {"attack": 11, "defense": 9})
    assert got.values["damage"] == dict(expected)
    assert got.outcomes["hit"] == hit
    result = run_given("lockwood", "attack", {"attack": 11, "defense": 9}, [15, 6])
    assert (result.outcome, result.values["damage"]) == ("hit", 11)


@pytest.mark.parametrize("perception,in_the_way", [(10, 2), (4, 5), (12, 0)])
def test_L16_friendly_fire_dc_is_three_per_character_in_the_way(perception, in_the_way):
    dc = 3 * in_the_way
    expected: dict[str, Fraction] = defaultdict(Fraction)
    for (n,) in enumerate_dice(20):
        ok = n == 20 or (n != 1 and n + perception >= dc)
        expected["success" if ok else "failure"] += Fraction(1, 20)
    got = odds("lockwood", "friendly_fire", {"perception": perception, "in_the_way": in_the_way})
    assert nonzero(got.outcomes) == dict(expected)
    assert got.values["dc"] == {dc: 1}


@pytest.mark.parametrize("healing", [1, 4, 9])
def test_L22_minor_healing_adds_the_middle_of_three_rolls(healing):
    expected: dict[int, Fraction] = defaultdict(Fraction)
    for dice in enumerate_dice(healing, healing, healing):
        expected[sorted(dice)[1]] += Fraction(1, healing ** 3)
    assert odds("lockwood", "heal_minor", {"healing": healing}).values["healed"] == dict(expected)
    assert run_given("lockwood", "heal_minor", {"healing": 9}, [7, 2, 5]).values["healed"] == 5


@pytest.mark.parametrize("healing", [1, 5, 8])
def test_L23_major_treatment_takes_the_lowest_of_three_rolls(healing):
    expected: dict[int, Fraction] = defaultdict(Fraction)
    for dice in enumerate_dice(healing, healing, healing):
        expected[min(dice)] += Fraction(1, healing ** 3)
    assert odds("lockwood", "heal_major", {"healing": healing}).values["days"] == dict(expected)
    assert run_given("lockwood", "heal_major", {"healing": 8}, [7, 2, 5]).values["days"] == 2


@pytest.mark.parametrize("procedure,params", [
    ("check", {"stat": 9, "dc": 18, "advantage": "true"}),
    ("check", {"stat": 9, "dc": 18, "disadvantage": "true", "luck": 4}),
    ("opposed", {"actor": 10, "defender": 12}),
    ("attack", {"attack": 10, "defense": 10}),
    ("talent", {}),
    ("friendly_fire", {"perception": 9, "in_the_way": 4}),
    ("move", {"agility": 3}),
    ("heal_minor", {"healing": 6}),
    ("heal_major", {"healing": 6}),
])
def test_sampled_outcomes_agree_with_exact_odds(procedure, params):
    assert_sampling_matches_odds("lockwood", procedure, params)


def test_sampled_values_agree_with_exact_odds():
    assert_sampling_matches_odds("lockwood", "heal_minor", {"healing": 6}, value="healed")
    assert_sampling_matches_odds("lockwood", "attack", {"attack": 12, "defense": 8}, value="damage")


def test_L3_critwin_face_is_one_yaml_number(tmp_path):
    path = edited_copy(tmp_path, "lockwood", ("critwin: 20 ", "critwin: 19 "))
    got = odds(str(path), "check", {"stat": -100, "dc": 50})
    assert got.outcomes["critical_success"] == Fraction(2, 20)  # critwin is the least critical face
    assert run_given(str(path), "check", {"stat": -100, "dc": 50}, [19]).outcome == "critical_success"
    assert run_given(str(path), "check", {"stat": -100, "dc": 50}, [20]).outcome == "critical_success"
    assert run_given(str(path), "check", {"stat": -100, "dc": 50}, [18]).outcome == "failure"


def test_L2_advantage_count_is_one_yaml_number(tmp_path):
    path = edited_copy(tmp_path, "lockwood", ("\n  advantage_dice: 2 ", "\n  advantage_dice: 3 "))
    got = odds(str(path), "check", {"stat": 0, "dc": 21, "advantage": "true"})
    assert got.outcomes["critical_success"] == 1 - Fraction(19, 20) ** 3
    assert run_given(str(path), "check", {"stat": 0, "dc": 5, "advantage": "true"}, [2, 3, 17]).values["natural"] == 17


def test_L16_friendly_fire_multiplier_is_one_yaml_number(tmp_path):
    path = edited_copy(tmp_path, "lockwood", ("friendly_fire_per_character: 3", "friendly_fire_per_character: 4"))
    assert odds(str(path), "friendly_fire", {"perception": 0, "in_the_way": 3}).values["dc"] == {12: 1}


def test_run_json_follows_the_contract(rules):
    result = rules("run", "lockwood", "check", "stat=12", "dc=15", "advantage=true", "--dice", "4,13", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["ruleset"] == "lockwood" and data["procedure"] == "check"
    assert data["outcome"] == "success"
    assert data["values"] == {"natural": 13, "total": 25}
    assert [r["result"] for r in data["rolls"]] == [4, 13]
    assert all({"expr", "dice", "result"} <= set(r) for r in data["rolls"])


def test_odds_json_follows_the_contract(rules):
    result = rules("odds", "lockwood", "check", "stat=12", "dc=15", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["outcomes"] == {"critical_success": 0.05, "success": 0.85, "failure": 0.05, "critical_failure": 0.05}
    assert data["exact"]["success"] == "17/20"
    assert abs(sum(data["outcomes"].values()) - 1) < 1e-9
    assert data["values"]["total"]["mean"] == pytest.approx(22.5)


# --- advantage on both sides of attack and opposed (L2, L7, L14), luck on attack (L6) -------------
def kept_d20(adv: bool, dis: bool) -> dict[int, Fraction]:
    """The kept d20 of L2, by enumerating both dice: two of a kind cancel."""
    if adv == dis:
        return {face: Fraction(1, 20) for face in D20}
    dist: dict[int, Fraction] = defaultdict(Fraction)
    for a, b in enumerate_dice(20, 20):
        dist[max(a, b) if adv else min(a, b)] += Fraction(1, 400)
    return dict(dist)


FLAGS = [(True, False, False, False), (False, True, False, False), (False, False, True, False),
         (False, False, False, True), (True, True, False, False), (False, False, True, True),
         (True, False, False, True), (False, True, True, False)]


@pytest.mark.parametrize("adv,dis,dadv,ddis", FLAGS)
def test_L2_L14_L15_attack_takes_advantage_and_disadvantage_on_both_sides(adv, dis, dadv, ddis):
    damage: dict[int, Fraction] = defaultdict(Fraction)
    for a, pa in kept_d20(adv, dis).items():
        for d, pd in kept_d20(dadv, ddis).items():
            damage[attack_damage(a, a + 11, d, d + 9)] += pa * pd
    got = odds("lockwood", "attack", {"attack": 11, "defense": 9, "advantage": adv, "disadvantage": dis,
                                      "defender_advantage": dadv, "defender_disadvantage": ddis})
    assert got.exact
    assert got.values["damage"] == dict(damage)
    assert got.outcomes["hit"] == sum(p for dmg, p in damage.items() if dmg > 0)


@pytest.mark.parametrize("adv,dis,dadv,ddis", FLAGS)
def test_L2_L7_opposed_rolls_both_stats_with_their_advantages(adv, dis, dadv, ddis):
    wins = ties = Fraction(0)
    for a, pa in kept_d20(adv, dis).items():
        for d, pd in kept_d20(dadv, ddis).items():
            won, tied = contest(a, a + 12, d, d + 10)
            wins += pa * pd if won else 0
            ties += pa * pd if tied else 0
    got = odds("lockwood", "opposed", {"actor": 12, "defender": 10, "advantage": adv, "disadvantage": dis,
                                       "defender_advantage": dadv, "defender_disadvantage": ddis})
    assert got.outcomes["success"] == wins
    assert got.values["defenders_clause"].get(True, 0) == ties


def test_L2_L15_the_attackers_dice_come_first_then_the_defenders(rules):
    result = rules("run", "lockwood", "attack", "attack=11", "defense=9", "advantage=true", "--dice", "15,6,3", "--json")
    data = json.loads(result.stdout)
    assert data["values"] == {"attack_total": 26, "defense_total": 12, "damage": 14, "defenders_clause": False}
    given = run_given("lockwood", "attack", {"attack": 11, "defense": 9, "defender_disadvantage": "true"}, [6, 15, 3])
    assert (given.values["attack_total"], given.values["defense_total"], given.values["damage"]) == (17, 12, 5)
    given = run_given("lockwood", "opposed", {"actor": 5, "defender": 5, "defender_advantage": "true"}, [10, 4, 12])
    assert (given.values["defender_total"], given.outcome) == (17, "failure")


def test_L6_luck_on_an_attack_adds_1dN_but_at_most_2_damage():
    damage: dict[int, Fraction] = defaultdict(Fraction)
    for a, d, luck in enumerate_dice(20, 20, 3):
        plain = max(0, (a + 10) - (d + 10))
        damage[attack_damage(a, a + 10 + luck, d, d + 10, plain)] += Fraction(1, 1200)
    got = odds("lockwood", "attack", {"attack": 10, "defense": 10, "luck": 3})
    assert got.values["damage"] == dict(damage)
    # a tie turned into a hit by luck 6: 6 more on the attack, 2 damage; a hit of 5 raised by 6: 7
    assert run_given("lockwood", "attack", {"attack": 10, "defense": 10, "luck": 6}, [10, 10, 6]).values["damage"] == 2
    assert run_given("lockwood", "attack", {"attack": 10, "defense": 10, "luck": 6}, [15, 10, 6]).values["damage"] == 7
    assert run_given("lockwood", "attack", {"attack": 10, "defense": 10, "luck": 1}, [15, 10, 1]).values["damage"] == 6


@pytest.mark.parametrize("procedure", ["heal_minor", "heal_major"])
def test_L22_L23_a_healing_stat_of_0_cannot_be_rolled(rules, procedure):
    # "roll the healing stat": 1d(healing), and there is no die of 0 faces; 1 is the least (a 1d1)
    result = rules("run", "lockwood", procedure, "healing=0")
    assert (result.exit_code, result.stderr) == (1, "parameter 'healing' is 0; the least allowed is 1\n")
    assert run_given("lockwood", procedure, {"healing": 1}, [1, 1, 1]).outcome == "done"


def test_L1_modifiers_add_and_no_luck_is_allowed():
    result = run_given("lockwood", "check", {"stat": 10, "dc": 15, "mod": 2, "luck": 0}, [3])
    assert (result.values["total"], result.outcome) == (15, "success")
    result = run_given("lockwood", "check", {"stat": 10, "dc": 15, "mod": -2}, [6])
    assert (result.values["total"], result.outcome) == (14, "failure")
