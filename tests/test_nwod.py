"""nwod (seed 002): every procedure checked against an oracle written here with icepool and recurrences.

The oracle never reads the ruleset: its numbers come from the seed (target 8, contested 7,
10-again, the sin table, the autofire bonuses) and, for the chance die, from the published game
(one d10 that succeeds only on 10, a 1 being a dramatic failure).
"""

from __future__ import annotations

import json
from collections import defaultdict
from fractions import Fraction
from functools import cache

import icepool
import pytest
from helpers import assert_sampling_matches_odds, edited_copy, odds, ruleset, run_given

TOL = 1e-9

# --- numbers from the seed --------------------------------------------------------------------
UNCONTESTED, CONTESTED, STRENGTH_TARGET = 8, 7, 7
SIN_DICE = {10: 5, 9: 5, 8: 4, 7: 4, 6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2}  # N37, as the seed lists it
AUTOFIRE_BONUS = {"burst": 1, "short": 2, "long": 3}                      # N32
BASHING, LETHAL = "bashing", "lethal"  # damage_type is reported by name (issue 16)


# --- the oracle -------------------------------------------------------------------------------
def one_die(target: int, again: int) -> icepool.Die:
    """Successes of one exploding d10: faces >= again add a die; faces >= target count one."""
    mark = 1000  # an exploding face carries 1000 so icepool's explode can see it; dropped after
    base = icepool.d10.map(lambda f: (mark if f >= again else 0) + (1 if f >= target else 0))
    return base.explode(lambda o: o >= mark, depth=40).map(lambda x: x % mark)


@cache
def successes(dice: int, target: int, again: int = 10) -> dict[int, float]:
    """The distribution of successes of a pool; 0 dice or fewer is the chance die."""
    if dice <= 0:
        return {0: 0.9, 1: 0.1}
    die = dice @ one_die(target, again)
    return {o: float(die.probability(o)) for o in die.outcomes() if die.probability(o) > 1e-17}


def chance_outcomes() -> dict[str, float]:
    return {"success": 0.1, "failure": 0.8, "dramatic_failure": 0.1}


def max_of_two(dist: dict[int, float]) -> dict[int, float]:
    """The better of two independent rolls."""
    keys = sorted(dist)
    out, below = {}, 0.0
    for k in keys:
        upto = below + dist[k]
        out[k] = upto * upto - below * below
        below = upto
    return out


def attack_oracle(attack_pool, defense_pool, weapon, strength=0, armor=0, mod=0, actions=1, called_shot=0,
                  full_defense=False, attacker=1):
    attack = successes(attack_pool + mod - 3 * (actions - 1) - 2 * called_shot, CONTESTED)
    ddice = max(0, defense_pool - (attacker - 1))
    defense = successes(ddice, CONTESTED) if ddice > 0 else {0: 1.0}
    if full_defense:
        defense = max_of_two(defense)
    strength_roll = successes(strength, STRENGTH_TARGET) if strength > 0 else {0: 1.0}
    outcomes: dict[str, float] = defaultdict(float)
    damage: dict[int, float] = defaultdict(float)
    hits: dict[int, float] = defaultdict(float)
    for a, pa in attack.items():
        for d, pd in defense.items():
            p = pa * pd
            if a > d:
                outcomes["hit"] += p
                hits[a - d] += p
                for s, ps in strength_roll.items():
                    damage[max(0, weapon + (a - d) + s + called_shot - armor)] += p * ps
            else:
                outcomes["miss"] += p
                hits[0] += p
                damage[0] += p
    return dict(outcomes), {"damage": dict(damage), "hits": dict(hits)}


def autofire_oracle(mode, attack_pool, defense_pool, weapon, armor=0, targets=1):
    penalty = 0 if mode == "burst" else 2 * (targets - 1)
    attack = successes(attack_pool + AUTOFIRE_BONUS[mode] - penalty, CONTESTED)
    defense = successes(defense_pool, CONTESTED) if defense_pool > 0 else {0: 1.0}
    per_bullet = max(0, weapon - armor)
    outcomes: dict[str, float] = defaultdict(float)
    bullets: dict[int, float] = defaultdict(float)
    damage: dict[int, float] = defaultdict(float)
    for a, pa in attack.items():
        for d, pd in defense.items():
            n = max(0, a - d)
            outcomes["hit" if n else "miss"] += pa * pd
            bullets[n] += pa * pd
            damage[n * per_bullet] += pa * pd
    return dict(outcomes), {"bullets": dict(bullets), "damage": dict(damage)}


def extended_oracle(dice, required, max_rolls=None, target=UNCONTESTED):
    """Roll by roll: a roll with no success fails; reaching the requirement succeeds."""
    per_roll = successes(dice, target)
    outcomes: dict[str, float] = defaultdict(float)
    rolls: dict[int, float] = defaultdict(float)
    state, r = {0: 1.0}, 0
    while state and (max_rolls is None or r < max_rolls):
        r += 1
        nxt: dict[int, float] = defaultdict(float)
        for got, p in state.items():
            for k, q in per_roll.items():
                if k == 0:
                    outcomes["failure"] += p * q
                    rolls[r] += p * q
                elif got + k >= required:
                    outcomes["success"] += p * q
                    rolls[r] += p * q
                else:
                    nxt[got + k] += p * q
        state = {k: v for k, v in nxt.items() if v > 1e-18}
    for p in state.values():
        outcomes["failure"] += p
        rolls[r] += p
    return dict(outcomes), dict(rolls)


def degeneration_oracle(morality, sin, at_or_below=False, sin_dice=SIN_DICE, target=UNCONTESTED):
    if not (sin < morality or (at_or_below and sin == morality)):
        return {"no_check": 1.0}, {morality: 1.0}
    p0 = successes(sin_dice[sin], target)[0]
    q0 = successes(morality - 1, target)[0]
    outcomes = {"held": 1 - p0, "degenerated": p0 * (1 - q0), "derangement": p0 * q0}
    return outcomes, {morality: 1 - p0, morality - 1: p0}


# --- comparing --------------------------------------------------------------------------------
def assert_close(got, expected, what=""):
    for key in set(got) | set(expected):
        assert abs(float(got.get(key, 0)) - float(expected.get(key, 0))) < TOL, (what, key, got.get(key), expected.get(key))


def _key(text: str):
    if text in ("true", "false"):
        return text == "true"
    if text == "null":
        return None
    return text if text.isalpha() else int(text)  # a word value (damage_type) stays a word


def cli_odds(rules, procedure, ref="nwod", **params):
    """`rules odds REF PROCEDURE ... --json` as (outcomes, values), checked to sum to 1."""
    args = [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in params.items()]
    result = rules("odds", str(ref), procedure, *args, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert abs(sum(data["outcomes"].values()) - 1) < TOL
    values = {name: {_key(k): p for k, p in v["distribution"].items()} for name, v in data["values"].items()}
    return data["outcomes"], values


def cli_run(rules, procedure, dice, ref="nwod", **params):
    args = [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in params.items()]
    result = rules("run", str(ref), procedure, *args, "--dice", ",".join(map(str, dice)), "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def nonzero(d):
    return {k: v for k, v in d.items() if v}


# --- N1-N4: the dice pool ---------------------------------------------------------------------
def test_N1_pool_is_traits_plus_modifiers(rules):
    """Dexterity 3 + Larceny 4 - 2 rolls five dice: exactly five given dice are used."""
    data = cli_run(rules, "action", [1, 2, 3, 4, 5], pool=7, mod=-2)
    assert data["outcome"] == "failure" and [r["expr"] for r in data["rolls"]] == ["5d10x>=10cs>=8"]
    _got_outcomes, got_values = cli_odds(rules, "action", pool=7, mod=-2)
    assert_close(got_values["successes"], successes(5, UNCONTESTED))


def test_N2_uncontested_target_is_8(rules):
    source = "N2: any result of 8 or more equates to one success"
    expected = 0.7 ** 5
    got, values = cli_odds(rules, "action", pool=5)
    assert abs(got["failure"] - expected) < TOL, source
    assert_close(values["successes"], successes(5, UNCONTESTED))
    assert cli_run(rules, "action", [7, 8, 9], pool=3)["values"]["successes"] == 2


@pytest.mark.parametrize("again,mean", [(10, Fraction(1, 3)), (9, Fraction(3, 8)), (8, Fraction(3, 7))])
def test_N3_again_mean_successes_per_die(rules, again, mean):
    """One die: a success 3 times in 10, and every exploding face adds another die."""
    _, values = cli_odds(rules, "action", pool=1, again=again)
    got = sum(k * p for k, p in values["successes"].items())
    assert abs(got - float(mean)) < TOL
    assert_close(values["successes"], successes(1, UNCONTESTED, again))


@pytest.mark.parametrize("again", [10, 9, 8])
def test_N3_explosions_follow_again_for_a_pool(again):
    got = odds("nwod", "action", {"pool": 4, "again": again})
    assert_close(got.values["successes"], successes(4, UNCONTESTED, again))
    assert_close(got.outcomes, {"failure": 0.7 ** 4,
                                "exceptional_success": sum(p for k, p in successes(4, UNCONTESTED, again).items() if k >= 5),
                                "success": sum(p for k, p in successes(4, UNCONTESTED, again).items() if 1 <= k < 5)})


def test_N3_explosion_rerolls_again_and_again_breadth_first():
    """8-again: 8 explodes into 9, which explodes into 10, which explodes into a 1."""
    result = run_given("nwod", "action", {"pool": 2, "again": 8}, [8, 3, 9, 10, 1])
    assert result.values["successes"] == 3
    result = run_given("nwod", "action", {"pool": 2}, [8, 9])  # 10-again: nothing explodes
    assert result.values["successes"] == 2


def test_N4_ones_have_no_effect(rules):
    a = cli_run(rules, "action", [1, 1, 8], pool=3)
    b = cli_run(rules, "action", [2, 2, 8], pool=3)
    assert a["values"]["successes"] == b["values"]["successes"] == 1
    assert ruleset("nwod").notes["ones"].data["ones_remove_successes"] is False


# --- the chance die ---------------------------------------------------------------------------
@pytest.mark.parametrize("pool,mod", [(0, 0), (2, -2), (1, -5), (-3, 0)])
def test_N1_chance_die_when_pool_is_zero_or_less(rules, pool, mod):
    got, _values = cli_odds(rules, "action", pool=pool, mod=mod)
    assert_close(nonzero(got), chance_outcomes())
    exact = odds("nwod", "action", {"pool": pool, "mod": mod})
    assert exact.exact and exact.outcomes["success"] == Fraction(1, 10)
    assert cli_run(rules, "action", [10], pool=pool, mod=mod)["outcome"] == "success"
    assert cli_run(rules, "action", [9], pool=pool, mod=mod)["outcome"] == "failure"
    one = cli_run(rules, "action", [1], pool=pool, mod=mod)
    assert one["outcome"] == "dramatic_failure" and one["values"]["chance"] is True


def test_N1_chance_die_for_an_attack_cut_to_nothing(rules):
    data = cli_run(rules, "attack", [10, 1], attack_pool=2, mod=-4, defense_pool=1, weapon=1)
    assert data["outcome"] == "hit" and data["values"]["damage"] == 2
    got, _ = cli_odds(rules, "attack", attack_pool=0, defense_pool=0, weapon=1)
    assert_close(got, {"hit": 0.1, "miss": 0.9})


def test_N1_exceptional_success_at_five(rules):
    assert cli_run(rules, "action", [8, 8, 8, 8, 8], pool=5)["outcome"] == "exceptional_success"
    assert cli_run(rules, "action", [8, 8, 8, 8, 1], pool=5)["outcome"] == "success"


# --- N5: contested ----------------------------------------------------------------------------
def test_N5_contested_defender_wins_ties(rules):
    data = cli_run(rules, "contested", [7, 1, 7], actor=2, defender=1)
    assert (data["outcome"], data["values"]["actor_successes"], data["values"]["defender_successes"]) == ("failure", 1, 1)
    assert cli_run(rules, "contested", [7, 7, 7], actor=2, defender=1)["outcome"] == "success"


@pytest.mark.parametrize("actor,defender", [(3, 4), (5, 2), (0, 2)])
def test_N5_contested_odds_at_target_7(rules, actor, defender):
    a, d = successes(actor, CONTESTED), successes(defender, CONTESTED)
    win = sum(pa * pd for x, pa in a.items() for y, pd in d.items() if x > y)
    got, values = cli_odds(rules, "contested", actor=actor, defender=defender)
    assert_close(got, {"success": win, "failure": 1 - win})
    assert_close(values["actor_successes"], a)
    assert_close(values["defender_successes"], d)


# --- N6: extended -----------------------------------------------------------------------------
@pytest.mark.parametrize("pool,required,max_rolls", [(5, 5, None), (3, 4, None), (6, 10, 3), (0, 2, None)])
def test_N6_extended_odds(rules, pool, required, max_rolls):
    expected, rolls = extended_oracle(pool, required, max_rolls)
    params = {"pool": pool, "required": required}
    if max_rolls:
        params["max_rolls"] = max_rolls
    got, values = cli_odds(rules, "extended", **params)
    assert_close(got, expected)
    assert_close(values["rolls"], rolls)


def test_N6_a_roll_with_no_success_fails_the_attempt():
    result = run_given("nwod", "extended", {"pool": 2, "required": 3}, [8, 9, 1, 2])
    assert (result.outcome, result.values["rolls"], result.values["successes"]) == ("failure", 2, 2)
    result = run_given("nwod", "extended", {"pool": 2, "required": 3}, [8, 9, 10, 1, 8])
    assert (result.outcome, result.values["rolls"], result.values["successes"]) == ("success", 2, 4)
    result = run_given("nwod", "extended", {"pool": 2, "required": 5, "max_rolls": 1}, [8, 9])
    assert (result.outcome, result.values["rolls"]) == ("failure", 1)


# --- N14: Defense -----------------------------------------------------------------------------
@pytest.mark.parametrize("wits,dexterity", [(1, 1), (2, 3), (3, 4), (5, 5), (4, 1)])
def test_N14_defense_is_wits_plus_dexterity_halved_down(wits, dexterity):
    rs = ruleset("nwod")
    got = rs.derived["defense"].formula.evaluate({"Wits": wits, "Dexterity": dexterity}, {})
    assert got == (wits + dexterity) // 2
    assert "N14" in rs.derived["defense"].refs


def test_N7_nine_attributes_rated_one_to_five():
    traits = ruleset("nwod").traits
    groups = {"mental": {"Intelligence", "Wits", "Resolve"}, "physical": {"Strength", "Dexterity", "Stamina"},
              "social": {"Presence", "Manipulation", "Composure"}}
    assert set().union(*groups.values()) <= {t.name for t in traits.values()}
    for group, names in groups.items():
        for name in names:
            assert (traits[name].group, traits[name].minimum, traits[name].maximum) == (group, 1, 5)


# --- N22-N27: actions and combat procedure ----------------------------------------------------
def test_N22_action_types_are_data(rules):
    note = ruleset("nwod").notes["action_types"]
    assert note.data["kinds"] == ["extended", "instant", "reflexive"] and "N22" in note.refs
    assert "reflexive" in rules("describe", "nwod").stdout


@pytest.mark.parametrize("actions", [2, 3])
def test_N23_multiple_actions_cost_three_dice_each(rules, actions):
    got, values = cli_odds(rules, "action", pool=8, actions=actions)
    assert_close(values["successes"], successes(8 - 3 * (actions - 1), UNCONTESTED))
    outcomes, _ = attack_oracle(6, 2, 1, actions=actions)
    got, _ = cli_odds(rules, "attack", attack_pool=6, defense_pool=2, weapon=1, actions=actions)
    assert_close(got, outcomes)
    assert ruleset("nwod").notes["multiple_actions"].data["penalty_per_extra_action"] == 3


def test_N24_initiative_is_composure_plus_dexterity_plus_d10(rules):
    _got, values = cli_odds(rules, "initiative", composure=2, dexterity=3)
    assert_close(values["initiative"], {5 + face: 0.1 for face in range(1, 11)})
    assert cli_run(rules, "initiative", [7], composure=3, dexterity=4)["values"]["initiative"] == 14
    assert ruleset("nwod").notes["initiative_order"].data["order"] == "descending"


@pytest.mark.parametrize("attack_pool,defense_pool,weapon,strength,armor", [(5, 3, 2, 3, 1), (4, 4, 0, 0, 0), (3, 0, 1, 2, 0)])
def test_N25_N28_N29_melee_attack_odds(rules, attack_pool, defense_pool, weapon, strength, armor):
    expected, values = attack_oracle(attack_pool, defense_pool, weapon, strength, armor)
    got, got_values = cli_odds(rules, "attack", attack_pool=attack_pool, defense_pool=defense_pool, weapon=weapon,
                               strength=strength, armor=armor)
    assert_close(got, expected)
    assert_close(got_values["damage"], values["damage"])
    assert_close(got_values["hits"], values["hits"])


def test_N25_defender_wins_ties_in_melee(rules):
    data = cli_run(rules, "attack", [7, 1, 8, 2], attack_pool=2, defense_pool=2, weapon=3, strength=2)
    assert data["outcome"] == "miss" and data["values"]["damage"] == 0  # no Strength dice rolled on a miss


def test_N25_N26_which_pools_are_data(rules):
    notes = ruleset("nwod").notes
    assert notes["melee_pools"].data["defense"] == ["Defense + Weaponry", "Wits + Dexterity", "Defense + Brawl"]
    assert notes["melee_pools"].data["brawl_defends_against_weapons"] is False
    assert notes["ranged_pools"].data["defense"] == "Defense"
    text = rules("describe", "nwod").stdout
    assert "Dexterity + Firearms" in text and "Defense + Brawl" in text


def test_N26_ranged_defense_of_zero_rolls_no_dice(rules):
    data = cli_run(rules, "attack", [8, 9], attack_pool=2, defense_pool=0, weapon=2, firearm=True)
    assert (data["outcome"], data["values"]["damage"]) == ("hit", 4)


@pytest.mark.parametrize("pool,attacker", [(3, 1), (4, 2), (1, 3)])
def test_N27_full_defense_keeps_the_better_of_two(rules, pool, attacker):
    dice = max(0, pool - (attacker - 1))
    expected = max_of_two(successes(dice, CONTESTED)) if dice else {0: 1.0}
    _, values = cli_odds(rules, "full_defense", defense_pool=pool, attacker=attacker)
    assert_close(values["successes"], expected)


def test_N27_full_defense_in_an_attack(rules):
    expected, values = attack_oracle(5, 3, 2, full_defense=True, attacker=2)
    got, got_values = cli_odds(rules, "attack", attack_pool=5, defense_pool=3, weapon=2, full_defense=True, attacker=2)
    assert_close(got, expected)
    assert_close(got_values["damage"], values["damage"])
    data = cli_run(rules, "attack", [7, 7, 1, 2, 7, 8], attack_pool=2, defense_pool=2, weapon=2, full_defense=True)
    assert data["outcome"] == "miss" and data["values"]["defense_successes"] == 2


def test_N28_damage_is_weapon_plus_net_successes(rules):
    data = cli_run(rules, "attack", [8, 9, 7, 1, 3], attack_pool=4, defense_pool=1, weapon=2)
    assert data["values"]["hits"] == 3 and data["values"]["damage"] == 5 and data["values"]["damage_type"] == LETHAL
    data = cli_run(rules, "attack", [8, 1, 1], attack_pool=2, defense_pool=1, weapon=2, damage_type="bashing")
    assert data["values"]["damage_type"] == BASHING


def test_N29_strength_roll_at_7_only_in_melee(rules):
    data = cli_run(rules, "attack", [7, 1, 7, 6], attack_pool=1, defense_pool=1, weapon=0, strength=2)
    assert data["values"]["strength_successes"] == 1 and data["values"]["damage"] == 2
    data = cli_run(rules, "attack", [7, 1], attack_pool=1, defense_pool=1, weapon=0)  # strength=0: no dice
    assert data["values"]["damage"] == 1


def test_N30_armor_subtracts_and_never_below_zero(rules):
    data = cli_run(rules, "attack", [8, 1], attack_pool=1, defense_pool=1, weapon=1, armor=5)
    assert (data["outcome"], data["values"]["damage"]) == ("hit", 0)
    data = cli_run(rules, "attack", [8, 1], attack_pool=1, defense_pool=1, weapon=3, armor=3, armor_piercing=2)
    assert data["values"]["damage"] == 3  # 3 + 1 net success - (3 - 2) armor
    armor = ruleset("nwod").notes["armor"].data
    assert (armor["light_kevlar"]["ballistic"], armor["light_kevlar"]["melee"]) == (2, 1)
    assert (armor["heavy_kevlar"]["ballistic"], armor["heavy_kevlar"]["melee"]) == (3, 2)
    assert "light_kevlar" in rules("describe", "nwod").stdout


def test_N31_bulletproof_turns_firearm_lethal_into_bashing(rules):
    common = {"attack_pool": 1, "defense_pool": 1, "weapon": 3, "armor": 1, "firearm": True, "bulletproof": True}
    assert cli_run(rules, "attack", [8, 1], **common)["values"]["damage_type"] == BASHING
    assert cli_run(rules, "attack", [8, 1], **{**common, "armor_piercing": 2})["values"]["damage_type"] == LETHAL
    assert cli_run(rules, "attack", [8, 1], **{**common, "firearm": False})["values"]["damage_type"] == LETHAL


def test_N31_ruling_is_one_value(tmp_path, rules):
    """Flip constants.bulletproof_downgrades to 0: the Uzi example's wounds stay lethal, as the seed writes."""
    path = edited_copy(tmp_path, "nwod", ("bulletproof_downgrades: 1", "bulletproof_downgrades: 0"))
    data = cli_run(rules, "autofire", [1, 2, 3, 4, 7, 8, 9, 7, 2], ref=path, mode="short", attack_pool=5,
                   defense_pool=2, weapon=3, armor=2, bulletproof=True)
    assert (data["values"]["damage"], data["values"]["damage_type"]) == (2, LETHAL)


@pytest.mark.parametrize("mode,attack_pool,defense_pool,weapon,armor,targets",
                         [("burst", 4, 2, 2, 0, 1), ("short", 5, 2, 3, 2, 1), ("long", 3, 3, 4, 1, 3),
                          ("burst", 4, 1, 2, 0, 3), ("short", 2, 0, 2, 3, 2)])
def test_N32_autofire_odds(rules, mode, attack_pool, defense_pool, weapon, armor, targets):
    expected, values = autofire_oracle(mode, attack_pool, defense_pool, weapon, armor, targets)
    got, got_values = cli_odds(rules, "autofire", mode=mode, attack_pool=attack_pool, defense_pool=defense_pool,
                               weapon=weapon, armor=armor, targets=targets)
    assert_close(got, expected)
    assert_close(got_values["bullets"], values["bullets"])
    assert_close(got_values["damage"], values["damage"])


def test_N32_armor_applies_to_every_bullet(rules):
    data = cli_run(rules, "autofire", [8, 8, 8, 8], mode="burst", attack_pool=3, defense_pool=0, weapon=3, armor=1)
    assert (data["values"]["bullets"], data["values"]["damage"]) == (4, 8)


def test_N33_called_shot_costs_two_dice_per_damage(rules):
    data = cli_run(rules, "attack", [8, 1], attack_pool=5, called_shot=2, defense_pool=1, weapon=2)
    assert (data["values"]["hits"], data["values"]["damage"]) == (1, 5)
    expected, values = attack_oracle(6, 2, 1, called_shot=1)
    got, got_values = cli_odds(rules, "attack", attack_pool=6, defense_pool=2, weapon=1, called_shot=1)
    assert_close(got, expected)
    assert_close(got_values["damage"], values["damage"])
    assert ruleset("nwod").notes["called_shot"].data["dice_per_level"] == -2


# --- N37, N38: morality -----------------------------------------------------------------------
def test_N37_sin_table_as_the_seed_lists_it():
    rs = ruleset("nwod")
    rows = {row.low: row.value.evaluate(rs.constants, {}) for row in rs.tables["sins"].rows}
    assert rows == SIN_DICE


@pytest.mark.parametrize("morality,sin", [(7, 4), (10, 9), (3, 1), (2, 1), (7, 7), (5, 8), (10, 3)])
def test_N38_degeneration_odds(rules, morality, sin):
    expected, values = degeneration_oracle(morality, sin)
    got, got_values = cli_odds(rules, "degeneration", morality=morality, sin=sin)
    assert_close(got, expected)
    assert_close(got_values["morality"], values)


def test_N38_degeneration_steps_with_given_dice(rules):
    data = cli_run(rules, "degeneration", [1, 2, 8], morality=7, sin=5)  # 3 dice, one success
    assert (data["outcome"], data["values"]["morality"]) == ("held", 7)
    data = cli_run(rules, "degeneration", [1, 2, 3] + [1, 2, 3, 4, 5, 9], morality=7, sin=5)
    assert (data["outcome"], data["values"]["morality"]) == ("degenerated", 6)
    data = cli_run(rules, "degeneration", [1, 2, 3] + [1] * 6, morality=7, sin=5)
    assert (data["outcome"], data["values"]["morality"]) == ("derangement", 6)


def test_N38_lower_than_versus_at_or_below_is_one_value(tmp_path, rules):
    got, _ = cli_odds(rules, "degeneration", morality=7, sin=7)
    assert got["no_check"] == 1
    path = edited_copy(tmp_path, "nwod", ("degeneration_at_or_below: 0", "degeneration_at_or_below: 1"))
    expected, _ = degeneration_oracle(7, 7, at_or_below=True)
    got, _ = cli_odds(rules, "degeneration", ref=path, morality=7, sin=7)
    assert_close(got, expected)
    expected, _ = degeneration_oracle(1, 1, at_or_below=True)  # Morality 0 afterwards: the chance die
    got, _ = cli_odds(rules, "degeneration", ref=path, morality=1, sin=1)
    assert_close(got, expected)


# --- N39: the worked examples, through the CLI -------------------------------------------------
EXAMPLES = [
    ("lockpicking", "action", {"pool": 7, "mod": -2}, [1, 3, 5, 7, 10, 8], "success", {"successes": 2}),
    ("the guard's contest", "contested", {"actor": 3, "defender": 4}, [1, 5, 10, 3, 2, 4, 6, 7], "failure",
     {"actor_successes": 1, "defender_successes": 1}),
    ("the safe", "extended", {"pool": 7, "mod": -2, "required": 5}, [3, 5, 7, 7, 9, 1, 3, 5, 5, 6], "failure",
     {"rolls": 2}),
    ("Samurai Jack", "attack", {"attack_pool": 5, "defense_pool": 2, "weapon": 3, "strength": 4},
     [7, 8, 9, 2, 3, 1, 4, 7, 8, 2, 3], "hit", {"hits": 3, "strength_successes": 2, "damage": 8, "damage_type": LETHAL}),
    ("Samurai Jack against two armor", "attack", {"attack_pool": 5, "defense_pool": 2, "weapon": 3, "strength": 4, "armor": 2},
     [7, 8, 9, 2, 3, 1, 4, 7, 8, 2, 3], "hit", {"damage": 6}),
    ("the pistol", "attack", {"attack_pool": 3, "defense_pool": 2, "weapon": 2, "firearm": True}, [8, 9, 4, 3, 5],
     "hit", {"hits": 2, "damage": 4, "damage_type": LETHAL}),
    ("Marco's spray", "autofire", {"mode": "short", "attack_pool": 5, "defense_pool": 2, "weapon": 3, "armor": 2,
                                   "bulletproof": True},
     [1, 2, 3, 4, 7, 8, 9, 7, 2], "hit", {"attack_successes": 3, "defense_successes": 1, "bullets": 2, "damage": 2}),
]


@pytest.mark.parametrize("name,procedure,params,dice,outcome,values", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_N39_worked_example_through_the_cli(rules, name, procedure, params, dice, outcome, values):
    data = cli_run(rules, procedure, dice, **params)
    assert data["outcome"] == outcome
    for key, value in values.items():
        assert data["values"][key] == value, key


def test_N39_examples_are_in_the_ruleset():
    shipped = {(e.procedure, tuple(e.dice)) for e in ruleset("nwod").examples}
    for _, procedure, _, dice, _, _ in EXAMPLES:
        assert (procedure, tuple(dice)) in shipped


def test_N39_safe_counts_three_successes_only_at_target_7(tmp_path, rules):
    """The ruling constants.extended_target: 8 gives the first roll 1 success; the seed's count of 3 needs 7."""
    assert cli_run(rules, "extended", [3, 5, 7, 7, 9, 1, 3, 5, 5, 6], pool=5, required=5)["values"]["successes"] == 1
    path = edited_copy(tmp_path, "nwod", ("extended_target: uncontested_target", "extended_target: 7"))
    data = cli_run(rules, "extended", [3, 5, 7, 7, 9, 1, 3, 5, 5, 6], ref=path, pool=5, required=5)
    assert (data["outcome"], data["values"]["successes"]) == ("failure", 3)


# --- house-ruling by editing numbers ----------------------------------------------------------
def test_three_numbers_changed_in_the_yaml_change_the_behaviour(tmp_path, rules):
    path = edited_copy(
        tmp_path, "nwod",
        ("uncontested_target: 8 ", "uncontested_target: 9 "),
        ("default_again: 10 ", "default_again: 9 "),
        ("{on: 7, value: 4, text: petty theft}", "{on: 7, value: 2, text: petty theft}"),
    )
    got, values = cli_odds(rules, "action", ref=path, pool=5)
    assert abs(got["failure"] - 0.8 ** 5) < TOL
    assert_close(values["successes"], successes(5, 9, 9))
    _, values = cli_odds(rules, "action", ref=path, pool=1)
    assert abs(sum(k * p for k, p in values["successes"].items()) - 0.25) < TOL  # 2/10 succeed, 2/10 explode
    expected, _ = degeneration_oracle(8, 7, sin_dice={**SIN_DICE, 7: 2}, target=9)
    got, _ = cli_odds(rules, "degeneration", ref=path, morality=8, sin=7)
    assert_close(got, expected)
    # the contested target did not move, but the default again did
    got, values = cli_odds(rules, "contested", ref=path, actor=2, defender=2)
    assert_close(values["actor_successes"], successes(2, CONTESTED, 9))


# --- parameters and the command line ----------------------------------------------------------
@pytest.mark.parametrize("args,word", [
    (("action", "pool=5", "again=7"), "again"),
    (("action", "pool=5", "agian=9"), "agian"),
    (("action",), "pool"),
    (("degeneration", "morality=7", "sin=11"), "sin"),
    (("autofire", "mode=auto", "attack_pool=3", "defense_pool=1", "weapon=2"), "mode"),
    (("action", "pool=five"), "pool"),
])
def test_parameter_errors_are_one_line_exit_1(rules, args, word):
    result = rules("run", "nwod", *args, "--dice", "8,8,8,8,8")
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and word in lines[0] and "Traceback" not in result.output


@pytest.mark.parametrize("dice", ["1,2", "1,2,3,4,5,6", "1,2,3,4,0"])
def test_given_dice_too_few_too_many_or_impossible(rules, dice):
    result = rules("run", "nwod", "action", "pool=5", "--dice", dice)
    assert result.exit_code == 1 and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("note,ref,datum", [
    ("action_types", "N22", "kinds: extended, instant, reflexive"),
    ("multiple_actions", "N23", "penalty_per_extra_action: 3"),
    ("initiative_order", "N24", "order: descending"),
    ("melee_pools", "N25", "brawl_defends_against_weapons: False"),
    ("ranged_pools", "N26", "point_blank_defense: melee defense"),
    ("full_defense", "N27", "rolls: 2"),
    ("damage", "N28", "aggravated: magic weapons, explosives, flamethrowers"),
    ("armor", "N30", "riot_gear: ballistic: 4; melee: 3; defense: -2; speed: -2"),
    ("bulletproof", "N31", "converts: lethal to bashing"),
    ("autofire", "N32", "extra_target: -2"),
    ("called_shot", "N33", "dice_per_level: -2"),
])
def test_N22_to_N33_descriptive_rules_render_in_describe(rules, note, ref, datum):
    """Rules without dice are notes with data; `rules describe nwod` shows each with its id."""
    entry = ruleset("nwod").notes[note]
    assert ref in entry.refs
    text = rules("describe", "nwod").stdout
    assert f"### {entry.title} ({', '.join(entry.refs)})" in text
    assert f"- {datum}" in text


def test_validate_and_describe(rules):
    assert rules("validate", "nwod").exit_code == 0
    text = rules("describe", "nwod").stdout
    for needle in ["`defense`", "(Wits + Dexterity) // 2", "mass murder", "Multiple actions", "Called shot",
                   "Bulletproof armor", "chance_die", "full_defense", "riot_gear"]:
        assert needle in text, needle


# --- sampling agrees with the odds ------------------------------------------------------------
@pytest.mark.parametrize("procedure,params,value", [
    ("action", {"pool": 6, "again": 9}, None),
    ("action", {"pool": 4}, "successes"),
    ("pool", {"dice": 0, "target": 8}, None),
    ("contested", {"actor": 4, "defender": 3}, None),
    ("extended", {"pool": 4, "required": 6}, "rolls"),
    ("initiative", {"composure": 2, "dexterity": 2}, "initiative"),
    ("full_defense", {"defense_pool": 3}, "successes"),
    ("attack", {"attack_pool": 4, "defense_pool": 2, "weapon": 2, "strength": 2}, "damage"),
    ("autofire", {"mode": "long", "attack_pool": 3, "defense_pool": 2, "weapon": 2, "armor": 1}, "damage"),
    ("degeneration", {"morality": 7, "sin": 3}, None),
])
def test_sampling_matches_odds(procedure, params, value):
    assert_sampling_matches_odds("nwod", procedure, params, n=2000, seed=2002, value=value)


# --- N10: a specialty adds one die ---------------------------------------------------------------
@pytest.mark.parametrize("pool,skill", [(2, 1), (0, 0), (3, 2)])
def test_N10_specialty_adds_one_die_to_an_action(rules, pool, skill):
    _, values = cli_odds(rules, "action", pool=pool, skill=skill, specialty=True)
    assert_close(values["successes"], successes(pool + skill + 1, UNCONTESTED))
    assert cli_run(rules, "action", [8, 8, 8, 8], pool=2, skill=1, specialty=True)["values"]["successes"] == 4


@pytest.mark.parametrize("specialty,defender_specialty", [(True, False), (False, True), (True, True)])
def test_N10_specialty_adds_one_die_to_either_side_of_a_contest(rules, specialty, defender_specialty):
    a, d = successes(3 + specialty, CONTESTED), successes(2 + defender_specialty, CONTESTED)
    win = sum(pa * pd for x, pa in a.items() for y, pd in d.items() if x > y)
    got, values = cli_odds(rules, "contested", actor=3, defender=2, specialty=specialty,
                           defender_specialty=defender_specialty)
    assert_close(got, {"success": win, "failure": 1 - win})
    assert_close(values["actor_successes"], a)
