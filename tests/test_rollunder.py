"""Roll-under d20 (seed 003): every procedure checked against brute-force enumeration written here."""

from __future__ import annotations

import json
from collections import defaultdict
from fractions import Fraction

import pytest
from helpers import assert_sampling_matches_odds, edited_copy, enumerate_dice, odds, ruleset, run_given

TIER = {"critical_success": 0, "success": 1, "failure": 2}


def tier(roll: int, stat: int) -> str:
    if roll == stat:
        return "critical_success"
    return "success" if roll < stat else "failure"


def better(a: int, b: int, stat: int, key=lambda r: r) -> int:
    """R2: the better of two rolls: a better tier, then the one that helps the roller more."""
    ta, tb = TIER[tier(a, stat)], TIER[tier(b, stat)]
    if ta != tb:
        return a if ta < tb else b
    return a if key(a) >= key(b) else b


def worse(a: int, b: int, stat: int, key=lambda r: r) -> int:
    return b if better(a, b, stat, key) == a else a


def rolls(adv: bool, dis: bool, stat: int, key=lambda r: r):
    """Each kept d20 with its probability, by enumerating one or two dice."""
    if adv == dis:
        return [((n,), Fraction(1, 20), n) for (n,) in enumerate_dice(20)]
    pick = better if adv else worse
    return [(d, Fraction(1, 400), pick(d[0], d[1], stat, key)) for d in enumerate_dice(20, 20)]


@pytest.mark.parametrize("stat,adv,dis", [(12, False, False), (12, True, False), (7, False, True), (20, True, True)])
def test_R1_R2_check_tiers_and_advantage(stat, adv, dis):
    expected: dict[str, Fraction] = defaultdict(Fraction)
    for _, p, kept in rolls(adv, dis, stat):
        expected[tier(kept, stat)] += p
    got = odds("rollunder", "check", {"stat": stat, "advantage": adv, "disadvantage": dis})
    assert got.exact
    assert {k: v for k, v in got.outcomes.items() if v} == dict(expected)


def test_R1_exactly_the_stat_is_a_critical_success():
    assert run_given("rollunder", "check", {"stat": 12}, [12]).outcome == "critical_success"
    assert run_given("rollunder", "check", {"stat": 12}, [11]).outcome == "success"
    assert run_given("rollunder", "check", {"stat": 12}, [13]).outcome == "failure"


def test_R2_advantage_prefers_a_critical_over_a_higher_success():
    result = run_given("rollunder", "check", {"stat": 12, "advantage": "true"}, [12, 11])
    assert (result.outcome, result.values["roll"]) == ("critical_success", 12)
    result = run_given("rollunder", "check", {"stat": 12, "advantage": "true"}, [5, 11])
    assert (result.outcome, result.values["roll"]) == ("success", 11)
    result = run_given("rollunder", "check", {"stat": 12, "disadvantage": "true"}, [5, 11])
    assert result.values["roll"] == 5


def test_R4_zero_hp_table():
    got = odds("rollunder", "zero_hp", {})
    assert got.outcomes == {"standing": Fraction(1, 6), "stable": Fraction(1, 3),
                            "bleeding_out": Fraction(1, 3), "dead": Fraction(1, 6)}
    rounds = got.values["rounds"]
    assert rounds[None] == Fraction(2, 3)
    assert all(rounds[n] == Fraction(1, 3) / 6 for n in range(1, 7))
    result = run_given("rollunder", "zero_hp", {}, [3, 5])
    assert (result.outcome, result.values["rounds"], result.values["hours"]) == ("bleeding_out", 5, None)
    result = run_given("rollunder", "zero_hp", {}, [4, 2])
    assert (result.outcome, result.values["hours"]) == ("stable", 2)
    assert run_given("rollunder", "zero_hp", {}, [1]).outcome == "dead"
    assert run_given("rollunder", "zero_hp", {}, [6]).outcome == "standing"


def attack_damage(roll: int, stat: int) -> int:
    return 0 if roll > stat else roll


@pytest.mark.parametrize("stat,adv,dis", [(10, False, False), (14, True, False), (14, False, True)])
def test_R6_attack_deals_the_roll_and_exactly_the_stat_stuns(stat, adv, dis):
    outcomes: dict[str, Fraction] = defaultdict(Fraction)
    damage: dict[int, Fraction] = defaultdict(Fraction)
    name = {"critical_success": "critical", "success": "hit", "failure": "miss"}
    for _, p, kept in rolls(adv, dis, stat, key=lambda r: attack_damage(r, stat)):
        outcomes[name[tier(kept, stat)]] += p
        damage[attack_damage(kept, stat)] += p
    got = odds("rollunder", "attack", {"stat": stat, "advantage": adv, "disadvantage": dis})
    assert {k: v for k, v in got.outcomes.items() if v} == dict(outcomes)
    assert got.values["damage"] == dict(sorted(damage.items()))


def defend_taken(roll: int, stat: int, incoming: int) -> int:
    if roll == stat:
        return 0
    return min(stat - roll if roll < stat else roll, incoming)


@pytest.mark.parametrize("stat,incoming,adv", [(12, 6, False), (12, 6, True), (9, 20, True), (15, 3, False)])
def test_R7_defence_damage_taken(stat, incoming, adv):
    outcomes: dict[str, Fraction] = defaultdict(Fraction)
    taken: dict[int, Fraction] = defaultdict(Fraction)
    name = {"critical_success": "counter", "success": "evaded", "failure": "failed"}
    for _, p, kept in rolls(adv, False, stat, key=lambda r: -defend_taken(r, stat, incoming)):
        outcomes[name[tier(kept, stat)]] += p
        taken[defend_taken(kept, stat, incoming)] += p
    got = odds("rollunder", "defend", {"stat": stat, "incoming": incoming, "advantage": adv})
    assert {k: v for k, v in got.outcomes.items() if v} == dict(outcomes)
    assert got.values["damage_taken"] == dict(sorted(taken.items()))


def test_R7_defence_examples():
    assert run_given("rollunder", "defend", {"stat": 12, "incoming": 6}, [10]).values["damage_taken"] == 2
    assert run_given("rollunder", "defend", {"stat": 12, "incoming": 6}, [3]).values["damage_taken"] == 6
    assert run_given("rollunder", "defend", {"stat": 12, "incoming": 6}, [15]).values["damage_taken"] == 6
    assert run_given("rollunder", "defend", {"stat": 12, "incoming": 20}, [15]).values["damage_taken"] == 15
    result = run_given("rollunder", "defend", {"stat": 12, "incoming": 20}, [12])
    assert (result.outcome, result.values["damage_taken"]) == ("counter", 0)


def test_R7_advantage_between_two_failures_keeps_the_lower_damage():
    result = run_given("rollunder", "defend", {"stat": 10, "incoming": 20, "advantage": "true"}, [18, 13])
    assert (result.outcome, result.values["damage_taken"]) == ("failed", 13)


def test_R8_story_rule_is_data_and_maps_to_the_flags(rules):
    note = ruleset("rollunder").notes["story_rule"]
    # the seed: "if you attack a PC ... disadvantage"; "defending a PC's attack ... advantage"
    assert note.data == {"attack_against_pc": "disadvantage", "defending_against_pc_attack": "advantage"}
    assert "defends against a PC's attack is at advantage" in " ".join(note.text.split())
    defend = {p.name: p for p in ruleset("rollunder").procedures["defend"].params}
    assert "against a PC's attack" in defend["advantage"].help
    assert "Story rule for PCs" in rules("describe", "rollunder").stdout
    # an attack against a PC: disadvantage keeps the worse roll
    result = run_given("rollunder", "attack", {"stat": 12, "disadvantage": "true"}, [4, 16])
    assert result.outcome == "miss"


def test_R9_learning_a_ritual_costs_1d6_then_rolls_under_cunning():
    got = odds("rollunder", "learn_ritual", {"cunning": 11})
    assert got.outcomes == {"learned": Fraction(11, 20), "lost": Fraction(9, 20)}
    assert got.values["cost"] == {n: Fraction(1, 6) for n in range(1, 7)}
    result = run_given("rollunder", "learn_ritual", {"cunning": 11}, [4, 11])
    assert (result.outcome, result.values["cost"]) == ("learned", 4)
    assert run_given("rollunder", "learn_ritual", {"cunning": 11}, [4, 12]).outcome == "lost"


@pytest.mark.parametrize("cunning,adv", [(11, False), (11, True), (1, False)])
def test_R10_performing_a_ritual(cunning, adv):
    expected: dict[str, Fraction] = defaultdict(Fraction)
    for _, p, kept in rolls(adv, False, cunning):
        expected[tier(kept, cunning)] += p
    got = odds("rollunder", "perform_ritual", {"cunning": cunning, "advantage": adv})
    assert {k: v for k, v in got.outcomes.items() if v} == dict(expected)


def brute_advance(stat: int):
    outcomes: dict[str, Fraction] = defaultdict(Fraction)
    hp: dict[int, Fraction] = defaultdict(Fraction)
    for a, b in enumerate_dice(20, 20):
        p = Fraction(1, 400)
        not_over = (a <= stat) + (b <= stat)
        after = min(18, stat + 1) if not_over == 2 else (stat - 1 if not_over == 0 else stat)
        outcomes["improved" if after > stat else "worsened" if after < stat else "unchanged"] += p
        exact = (a == stat) + (b == stat)
        for dice in enumerate_dice(*[6] * exact):
            hp[sum(dice)] += p / 6 ** exact
    return outcomes, hp


@pytest.mark.parametrize("stat", [12, 18, 1])
def test_R11_advancement_rolls_2d20_against_the_stat(stat):
    outcomes, hp = brute_advance(stat)
    got = odds("rollunder", "advance_stat", {"stat": stat})
    assert {k: v for k, v in got.outcomes.items() if v} == dict(outcomes)
    assert got.values["hp_gain"] == dict(sorted(hp.items()))


@pytest.mark.parametrize("dice,outcome,stat,hp", [
    ("2,6", "improved", 13, 0),
    ("2,14", "unchanged", 12, 0),
    ("14,16", "worsened", 11, 0),
    ("12,14,4", "unchanged", 12, 4),
    ("2,12,5", "improved", 13, 5),
    ("12,12,3,6", "improved", 13, 9),
])
def test_R12_advancement_examples_at_stat_12(rules, dice, outcome, stat, hp):
    result = rules("run", "rollunder", "advance_stat", "stat=12", "--dice", dice, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["outcome"] == outcome
    assert data["values"] == {"stat": stat, "hp_gain": hp}


def test_R11_stats_stop_at_18():
    result = run_given("rollunder", "advance_stat", {"stat": 18}, [2, 3])
    assert (result.outcome, result.values["stat"]) == ("unchanged", 18)


def test_R13_st_points_are_data():
    note = ruleset("rollunder").notes["st_points"]
    assert note.refs == ("R13",)
    assert "advantage" in note.data["effect"]


def test_R3_rest_heals_1d6():
    assert odds("rollunder", "rest", {}).values["healed"] == {n: Fraction(1, 6) for n in range(1, 7)}


@pytest.mark.parametrize("procedure,params", [
    ("check", {"stat": 12, "advantage": "true"}),
    ("attack", {"stat": 9, "disadvantage": "true"}),
    ("defend", {"stat": 13, "incoming": 7, "advantage": "true"}),
    ("zero_hp", {}),
    ("learn_ritual", {"cunning": 8}),
    ("perform_ritual", {"cunning": 14}),
    ("advance_stat", {"stat": 12}),
    ("rest", {}),
])
def test_sampled_outcomes_agree_with_exact_odds(procedure, params):
    assert_sampling_matches_odds("rollunder", procedure, params)


def test_sampled_values_agree_with_exact_odds():
    assert_sampling_matches_odds("rollunder", "defend", {"stat": 13, "incoming": 7}, value="damage_taken")
    assert_sampling_matches_odds("rollunder", "advance_stat", {"stat": 12}, value="hp_gain")


def test_R4_zero_hp_row_is_yaml_data(tmp_path):
    path = edited_copy(tmp_path, "rollunder",
                       ("- {on: 1, outcome: dead, text: you die}", "- {on: 1, outcome: standing, text: lucky}"),
                       ("- {on: 6, outcome: standing,", "- {on: 6, outcome: dead,"))
    assert run_given(str(path), "zero_hp", {}, [1]).outcome == "standing"
    assert run_given(str(path), "zero_hp", {}, [6]).outcome == "dead"


def test_R11_stat_cap_is_one_yaml_number(tmp_path):
    path = edited_copy(tmp_path, "rollunder", ("stat_cap: 18 ", "stat_cap: 20 "))
    assert run_given(str(path), "advance_stat", {"stat": 18}, [2, 3]).values["stat"] == 19


def test_R2_advantage_dice_is_one_yaml_number(tmp_path):
    path = edited_copy(tmp_path, "rollunder", ("advantage_dice: 2 ", "advantage_dice: 3 "))
    got = odds(str(path), "check", {"stat": 2, "advantage": "true"})
    assert got.outcomes["failure"] == Fraction(18, 20) ** 3


# --- R13: an ST point is an advantage or disadvantage die on any roll ------------------------------
def test_R13_learn_ritual_advantage_pays_the_lower_of_two_cost_dice():
    cost: dict[int, Fraction] = defaultdict(Fraction)
    for a, b in enumerate_dice(6, 6):
        cost[min(a, b)] += Fraction(1, 36)
    got = odds("rollunder", "learn_ritual", {"cunning": 11, "advantage": True})
    assert got.values["cost"] == dict(cost)                    # 1 comes 11 times in 36
    assert got.outcomes == {"learned": Fraction(11, 20), "lost": Fraction(9, 20)}
    result = run_given("rollunder", "learn_ritual", {"cunning": 11, "advantage": "true"}, [5, 2, 11])
    assert (result.outcome, result.values["cost"]) == ("learned", 2)


ZERO_HP_RANK = {6: 0, 4: 1, 5: 1, 2: 2, 3: 2, 1: 3}           # R4: standing, stable, bleeding out, dead


@pytest.mark.parametrize("adv,dis", [(True, False), (False, True)])
def test_R13_R4_zero_hp_with_an_st_point_keeps_the_better_or_worse_row(adv, dis):
    names = ["standing", "stable", "bleeding_out", "dead"]
    expected: dict[str, Fraction] = defaultdict(Fraction)
    for a, b in enumerate_dice(6, 6):
        ranks = sorted([ZERO_HP_RANK[a], ZERO_HP_RANK[b]])
        expected[names[ranks[0] if adv else ranks[1]]] += Fraction(1, 36)
    got = odds("rollunder", "zero_hp", {"advantage": adv, "disadvantage": dis})
    assert {k: v for k, v in got.outcomes.items() if v} == dict(expected)


@pytest.mark.parametrize("stat", [12, 5])
def test_R13_R11_advance_stat_with_an_st_point_keeps_the_better_pair(stat):
    def result(a: int, b: int) -> int:
        return 1 if a <= stat and b <= stat else (-1 if a > stat and b > stat else 0)
    single: dict[int, Fraction] = defaultdict(Fraction)
    for a, b in enumerate_dice(20, 20):
        single[result(a, b)] += Fraction(1, 400)
    best: dict[int, Fraction] = defaultdict(Fraction)
    for x, px in single.items():
        for y, py in single.items():
            best[max(x, y)] += px * py
    got = odds("rollunder", "advance_stat", {"stat": stat, "advantage": True})
    assert got.outcomes["improved"] == best[1]
    assert got.outcomes["worsened"] == best[-1]
    assert stat != 12 or got.outcomes["improved"] == Fraction(369, 625)   # 1 - (1 - 0.36)^2


def test_R13_R3_rest_with_an_st_point_keeps_the_higher_d6():
    healed: dict[int, Fraction] = defaultdict(Fraction)
    for a, b in enumerate_dice(6, 6):
        healed[max(a, b)] += Fraction(1, 36)
    assert odds("rollunder", "rest", {"advantage": True}).values["healed"] == dict(healed)


def test_R4_stable_wakes_in_1d6_hours_and_bleeding_out_dies_in_1d6_rounds():
    got = odds("rollunder", "zero_hp", {})
    # rows 4-5 (1/3) then 1d6 hours; rows 2-3 (1/3) then 1d6 rounds; the other rows roll neither
    assert {k: v for k, v in got.values["hours"].items() if k is not None} == {n: Fraction(1, 18) for n in range(1, 7)}
    assert {k: v for k, v in got.values["rounds"].items() if k is not None} == {n: Fraction(1, 18) for n in range(1, 7)}


def test_R7_an_attack_of_0_damage_does_none():
    # "the difference ... (or the damage rolled by the attacker if it is less)": less than 0 is nothing
    assert run_given("rollunder", "defend", {"stat": 12, "incoming": 0}, [10]).values["damage_taken"] == 0
    assert run_given("rollunder", "defend", {"stat": 12, "incoming": 0}, [15]).values["damage_taken"] == 0


def test_R9_a_cunning_of_0_never_learns():
    # a d20 never rolls 0 or under
    assert odds("rollunder", "learn_ritual", {"cunning": 0}).outcomes == {"learned": 0, "lost": 1}
