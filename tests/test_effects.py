"""Effects with selectors (docs/format.md, "Effects"): the audit's L8, L14 and R13, the five bundled effects
(lockwood's failed move and defender's clause, rollunder's ST point die, nwod's specialty die, wwn's Frail),
exact odds under an effect against brute-force enumeration of traced runs, and the mistakes refused."""

from __future__ import annotations

import json
import re
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from helpers import assert_sampling_matches_odds, enumerate_dice, odds, one_line_error, ruleset, run_given

ROOT = Path(__file__).resolve().parent.parent


def run_json(rules, *args: str) -> dict:
    result = rules("run", *args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def brute_force(ref, procedure: str, params: dict, *sides: int) -> dict[str, Fraction]:
    """The outcomes of a procedure by running it once for every combination of faces of these dice."""
    counts: Counter[str] = Counter(run_given(ref, procedure, params, list(faces)).outcome
                                   for faces in enumerate_dice(*sides))
    total = sum(counts.values())
    return {o: Fraction(n, total) for o, n in counts.items() if n}


def exact(ref, procedure: str, params: dict) -> dict[str, Fraction]:
    return {o: Fraction(p) for o, p in odds(ref, procedure, params).outcomes.items() if p}


# ----------------------------------------------------------------------------- lockwood: L8, L14

def test_L8_attack_reports_the_defenders_clause_as_opposed_does(rules):
    """`attack attack=10 defense=10 --dice 10,10 --json`: a tie goes to the defender, and the defender's
    follow-up roll is at disadvantage: the value, and the flag the follow-up run takes."""
    attack = run_json(rules, "lockwood", "attack", "attack=10", "defense=10", "--dice", "10,10")
    assert attack["outcome"] == "miss" and attack["values"]["defenders_clause"] is True
    assert attack["follow_up"] == {"defenders_clause": True}
    opposed = run_json(rules, "lockwood", "opposed", "actor=10", "defender=10", "--dice", "10,10")
    assert opposed["values"]["defenders_clause"] is True and opposed["follow_up"] == {"defenders_clause": True}
    clear = run_json(rules, "lockwood", "attack", "attack=10", "defense=10", "--dice", "11,10")
    assert clear["values"]["defenders_clause"] is False and "follow_up" not in clear


def test_L8_the_defenders_clause_is_a_disadvantage_on_the_follow_up_roll(rules):
    """The defender's next roll, whatever it is, keeps the lower of two d20: a check (its own best_of), an
    attack (the attacker's d20 only, not the defense) and a friendly-fire roll (the effect's die)."""
    check = run_json(rules, "lockwood", "check", "stat=10", "dc=15", "defenders_clause=true", "--dice", "15,9")
    assert check["values"]["natural"] == 9 and check["outcome"] == "success"
    attack = run_json(rules, "lockwood", "attack", "attack=10", "defense=10", "defenders_clause=true",
                      "--dice", "15,9,10")
    assert [r["result"] for r in attack["rolls"]] == [15, 9, 10]
    assert attack["values"]["attack_total"] == 19 and attack["outcome"] == "miss"
    shot = run_json(rules, "lockwood", "friendly_fire", "perception=5", "in_the_way=4", "defenders_clause=true",
                    "--dice", "15,6")
    assert shot["outcome"] == "failure" and shot["values"]["total"] == 11
    assert any("defenders_clause" in note for note in shot["notes"])
    # the clause and a disadvantage are one die, not two; an advantage cancels it
    both = run_json(rules, "lockwood", "friendly_fire", "perception=5", "in_the_way=4", "defenders_clause=true",
                    "disadvantage=true", "--dice", "15,6")
    assert both["values"]["total"] == 11
    cancelled = run_json(rules, "lockwood", "friendly_fire", "perception=5", "in_the_way=4",
                         "defenders_clause=true", "advantage=true", "--dice", "15")
    assert cancelled["values"]["total"] == 20


def test_L14_friendly_fire_takes_the_disadvantage_of_a_failed_move(rules):
    """`friendly_fire perception=5 in_the_way=4 disadvantage=true` is accepted and keeps the lower d20;
    a failed `move` says so for the rest of the turn; `move` takes an advantage."""
    result = rules("run", "lockwood", "friendly_fire", "perception=5", "in_the_way=4", "disadvantage=true",
                   "--dice", "15,6")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == "lockwood friendly_fire: failure"
    assert "natural: {1d20,1d20}kl1: [~~15~~] [6] = 6" in result.stdout
    assert "effect disadvantage (disadvantage=true): disadvantage die (two d20, the lower kept) on natural" in result.stdout
    move = run_json(rules, "lockwood", "move", "agility=3", "--dice", "1")
    assert move["outcome"] == "failure" and move["follow_up"] == {"disadvantage": True}
    assert "follow-up: disadvantage=true (effect disadvantage)" in rules(
        "run", "lockwood", "move", "agility=3", "--dice", "1").stdout
    helped = run_json(rules, "lockwood", "move", "agility=0", "advantage=true", "--dice", "3,5")
    assert helped["outcome"] == "success" and helped["values"]["total"] == 5


def test_L14_odds_under_the_failed_move_equal_the_enumeration_of_its_runs():
    params = {"perception": 5, "in_the_way": 4, "disadvantage": "true"}
    found = exact("lockwood", "friendly_fire", params)
    assert found == brute_force("lockwood", "friendly_fire", params, 20, 20)
    assert found["success"] == Fraction(14 * 14, 400)  # both d20 at least 7 (5 + 7 = 12 = 3 x 4)
    both = {**params, "advantage": "true"}
    assert exact("lockwood", "friendly_fire", both) == brute_force("lockwood", "friendly_fire", both, 20)
    assert_sampling_matches_odds("lockwood", "friendly_fire", params, value="total")


def test_L8_odds_of_the_follow_up_roll_equal_the_enumeration_of_its_runs():
    params = {"agility": 0, "defenders_clause": "true"}
    assert exact("lockwood", "move", params) == brute_force("lockwood", "move", params, 20, 20)
    check = {"stat": 10, "dc": 15, "defenders_clause": "true"}
    assert exact("lockwood", "check", check) == brute_force("lockwood", "check", check, 20, 20)


# ----------------------------------------------------------------------------- rollunder: R13

def new_rollunder_sheet(rules, tmp_path: Path, hp: int) -> Path:
    path = tmp_path / "hero.yaml"
    assert rules("sheet", "new", "rollunder", "-o", str(path)).exit_code == 0
    text = path.read_text(encoding="utf-8")
    text, n = re.subn(r"hp: \{current: \d+, max: (\d+)\}", rf"hp: {{current: {hp}, max: \g<1>}}", text)
    assert n == 1
    text = text.replace("rituals_discovered: 0", "rituals_discovered: 1")   # R14: a ritual to learn
    path.write_text(text, encoding="utf-8")
    return path


def test_R13_an_ST_point_die_reaches_learn_ritual_and_rest(rules):
    """`learn_ritual ... disadvantage=true` and `rest disadvantage=true` are accepted; learn_ritual's own d20
    takes the die (roll under Cunning: the worse is the higher), the cost die does not."""
    ritual = run_json(rules, "rollunder", "learn_ritual", "cunning=12", "disadvantage=true", "--dice", "3,5,15")
    assert ritual["outcome"] == "lost" and ritual["values"] == {"cost": 3, "roll": 15}
    assert [r["expr"] for r in ritual["rolls"]] == ["1d6", "1d20", "1d20"]   # learn_ritual's own best_of
    rest = run_json(rules, "rollunder", "rest", "disadvantage=true", "--dice", "2,5")
    assert rest["values"]["healed"] == 2
    cancelled = run_json(rules, "rollunder", "rest", "disadvantage=true", "advantage=true", "--dice", "2")
    assert cancelled["values"]["healed"] == 2 and len(cancelled["rolls"]) == 1
    # the seed's own example keeps its meaning: advantage=true is the cost die, rolled twice, the lower paid
    own = run_json(rules, "rollunder", "learn_ritual", "cunning=12", "advantage=true", "--dice", "3,5,15")
    assert own["values"] == {"cost": 3, "roll": 15}


def test_R13_an_ST_point_die_reaches_the_0_HP_roll_inside_take_damage(rules, tmp_path):
    """`take_damage ... advantage=true`: the flag goes on through fall to zero_hp, whose table roll keeps the
    better row."""
    sheet = new_rollunder_sheet(rules, tmp_path, hp=4)
    helped = run_json(rules, "rollunder", "take_damage", "amount=4", "advantage=true", "--sheet", str(sheet),
                      "--dry-run", "--dice", "1,6")
    assert helped["outcome"] == "standing" and helped["values"]["roll"] == 6
    plain = run_json(rules, "rollunder", "take_damage", "amount=4", "--sheet", str(sheet), "--dry-run",
                     "--dice", "1")
    assert plain["outcome"] == "dead"
    hurt = run_json(rules, "rollunder", "take_damage", "amount=4", "disadvantage=true", "--sheet", str(sheet),
                    "--dry-run", "--dice", "6,1")
    assert hurt["outcome"] == "dead"


def test_R13_one_point_is_one_die_for_one_roll(rules, tmp_path):
    """The die given to learn_ritual's Cunning roll does not also reach the 0-HP roll a paid cost brings
    (`first: true`): the table is rolled once, the d20 twice."""
    sheet = new_rollunder_sheet(rules, tmp_path, hp=3)
    text = sheet.read_text(encoding="utf-8")
    sheet.write_text(re.sub(r"hp: \{current: 3, max: \d+\}", "hp: {current: 3, max: 3}", text), encoding="utf-8")
    ran = run_json(rules, "rollunder", "learn_ritual", "pay=hp", "disadvantage=true", "--sheet", str(sheet),
                   "--dry-run", "--dice", "3,6,5,15")
    assert [(r["name"], r["result"]) for r in ran["rolls"]] == [("cost", 3), ("zero_zero_hp", 6), ("roll", 5),
                                                                 ("roll", 15)]
    assert ran["values"]["roll"] == 15
    assert ran["outcome"] == "lost"
    assert "first such roll of a run only" in rules("describe", "rollunder").stdout


FOLLOW = """extends: lockwood
ruleset: lockwood-follow
procedures:
  follow:
    summary: a d20 of its own, then a check
    outcomes: {done: done}
    values: {first: its own d20, second: the check's d20}
    steps:
      - roll: {natural: check_die}
      - call: check
        with: {stat: 0, dc: 1}
        as: then
      - let: {first: natural, second: then_natural}
      - decide: [{outcome: done}]
"""


def test_L8_the_defenders_clause_reaches_the_next_roll_only(tmp_path):
    """`first: true`: a procedure whose own d20 takes the clause does not pass it on to the check it calls."""
    house = tmp_path / "follow.yaml"
    house.write_text(FOLLOW, encoding="utf-8")
    ran = run_given(house, "follow", {"defenders_clause": "true"}, [15, 9, 4])
    assert (ran.values["first"], ran.values["second"]) == (9, 4)
    both = run_given(house, "follow", {"disadvantage": "true"}, [15, 9, 4, 8])  # a disadvantage reaches both
    assert (both.values["first"], both.values["second"]) == (9, 4)


def test_R13_odds_under_an_ST_point_die_equal_the_enumeration_of_its_runs():
    params = {"cunning": 12, "disadvantage": "true"}
    found = exact("rollunder", "learn_ritual", params)
    assert found == brute_force("rollunder", "learn_ritual", params, 6, 20, 20)
    assert found["learned"] == Fraction(12 * 12, 400)  # both d20 at most 12
    assert exact("rollunder", "rest", {"disadvantage": "true"}) == brute_force(
        "rollunder", "rest", {"disadvantage": "true"}, 6, 6)
    healed = odds("rollunder", "rest", {"disadvantage": "true"}).values["healed"]
    assert {k: Fraction(v) for k, v in healed.items()} == {h: Fraction(2 * (6 - h) + 1, 36) for h in range(1, 7)}


# ----------------------------------------------------------------------------- nwod: N10; wwn: W9

def test_N10_the_specialty_die_is_one_effect_on_every_acting_pool(rules):
    """One more die before the pool is rolled: a pool of 0 with a specialty rolls one die (not the chance
    die), and extended, attack and autofire take the flag too."""
    chance = run_json(rules, "nwod", "action", "pool=0", "specialty=true", "--dice", "9")
    assert chance["outcome"] == "success" and chance["values"]["chance"] is False
    extended = run_json(rules, "nwod", "extended", "pool=2", "required=1", "specialty=true", "--dice", "1,1,9")
    assert extended["outcome"] == "success" and len(extended["rolls"][0]["dice"]) == 3
    attack = run_json(rules, "nwod", "attack", "attack_pool=1", "defense_pool=0", "weapon=2", "specialty=true",
                      "--dice", "8,8")
    assert attack["values"]["hits"] == 2
    contested = run_json(rules, "nwod", "contested", "actor=1", "defender=1", "specialty=true",
                         "--dice", "7,7,1")
    assert contested["outcome"] == "success"
    burst = run_json(rules, "nwod", "autofire", "mode=burst", "attack_pool=1", "defense_pool=0", "weapon=2",
                     "specialty=true", "--dice", "1,1,1")
    assert len(burst["rolls"][0]["dice"]) == 3  # the pool, the burst's die and the specialty's
    assert odds("nwod", "extended", {"pool": 2, "required": 2, "max_rolls": 2, "specialty": "true"}).outcomes == \
        odds("nwod", "extended", {"pool": 3, "required": 2, "max_rolls": 2}).outcomes


def new_wwn_sheet(rules, tmp_path: Path, frail: bool) -> Path:
    path = tmp_path / f"{'frail' if frail else 'hale'}.yaml"
    assert rules("sheet", "new", "wwn", "-o", str(path)).exit_code == 0
    text = path.read_text(encoding="utf-8")
    text, n = re.subn(r"^(  frail: )false", rf"\g<1>{'true' if frail else 'false'}", text, flags=re.MULTILINE)
    assert n == 1
    path.write_text(text, encoding="utf-8")
    return path


def test_W9_W11_frail_on_the_sheet_makes_an_injury_at_0_HP_unsurvivable(rules, tmp_path):
    frail = new_wwn_sheet(rules, tmp_path, frail=True)
    result = rules("run", "wwn", "take_damage", "amount=50", "--sheet", str(frail), "--dry-run")
    assert result.exit_code == 0 and result.stdout.startswith("wwn take_damage: dead")
    assert "effect frail (the sheet: frail): unsurvivable on" in result.stdout
    other = new_wwn_sheet(rules, tmp_path, frail=False)
    result = rules("run", "wwn", "take_damage", "amount=50", "--sheet", str(other), "--dry-run")
    assert result.stdout.startswith("wwn take_damage: dying") and "effect frail" not in result.stdout


def test_the_bundled_effects_are_data_the_python_does_not_name():
    """The five examples live in the rulesets' YAML; no module of the interpreter names one of them."""
    declared = {ref: set(ruleset(ref).effects) for ref in ("lockwood", "rollunder", "nwod", "wwn")}
    assert declared == {"lockwood": {"advantage", "disadvantage", "defenders_clause"},
                        "rollunder": {"st_advantage", "st_disadvantage"}, "nwod": {"specialty"}, "wwn": {"frail"}}
    words = ("defenders_clause", "st_advantage", "st_disadvantage", "specialty", "frail", "skill_roll",
             "check_die", "unsurvivable")
    for path in [*(ROOT / "interpreter").rglob("*.py"), ROOT / "cli.py"]:
        text = path.read_text(encoding="utf-8").lower()
        assert not [w for w in words if w in text], path


# ----------------------------------------------------------------------------- overlays: modifier, floor, sheet

DAZED = """extends: lockwood
ruleset: lockwood-dazed
effects:
  dazed:
    summary: at 0 HP every d20 of a check is at -5, and at least 1
    param: dazed
    when: hp_current <= 0
    reaches: {procedures: [check], dice: [check_die]}
    change: {modifier: -5, floor: 1}
"""


def test_a_modifier_and_a_floor_change_the_roll_and_its_odds_follow(tmp_path):
    house = tmp_path / "dazed.yaml"
    house.write_text(DAZED, encoding="utf-8")
    params = {"stat": 0, "dc": 4, "dazed": "true"}
    result = run_given(house, "check", params, [3])
    assert result.values["natural"] == 1 and result.outcome == "critical_failure"
    found = exact(house, "check", params)
    assert found == brute_force(house, "check", params, 20)
    assert found["critical_failure"] == Fraction(6, 20)  # 1 to 6, less 5, floored at 1
    both = {**params, "disadvantage": "true"}  # check's own best_of around the effect's roll
    assert exact(house, "check", both) == brute_force(house, "check", both, 20, 20)
    assert_sampling_matches_odds(house, "check", params, value="natural")  # the flag is rebound: picked as it runs


def test_a_reroll_rolls_a_low_die_once_more_and_its_odds_follow(rules, tmp_path):
    house = tmp_path / "lucky.yaml"
    house.write_text("extends: lockwood\nruleset: lockwood-lucky\neffects:\n  lucky:\n"
                     "    reaches: {procedures: [move]}\n    change: {reroll: 1}\n", encoding="utf-8")
    params = {"agility": 0, "lucky": "true"}
    assert run_given(house, "move", params, [1, 7]).values["total"] == 7
    counts: Counter[str] = Counter()
    for first, second in enumerate_dice(20, 20):  # a 1 is rolled again; any other face stands
        counts[run_given(house, "move", params, [first, second] if first == 1 else [first]).outcome] += 1
    assert exact(house, "move", params) == {o: Fraction(n, 400) for o, n in counts.items()}
    assert exact(house, "move", params)["success"] == Fraction(16, 20) * Fraction(21, 20)
    wide = tmp_path / "wide.yaml"
    wide.write_text("extends: lockwood\nruleset: lockwood-wide\neffects:\n  lucky:\n"
                    "    reaches: {procedures: [two]}\n    change: {reroll: 1}\nprocedures:\n  two:\n"
                    "    outcomes: {done: done}\n    steps:\n      - roll: {x: 1d6 + 1d4}\n"
                    "      - decide: [{outcome: done}]\n", encoding="utf-8")
    line = one_line_error(rules("validate", str(wide)))
    assert line.startswith(f"{wide}:11:19: $.procedures.two.steps[0].roll.x: ") and "effect 'lucky' rerolls dice, and '1d6 + 1d4' is not one dice term" in line


def test_an_effect_switched_on_by_the_sheet_has_the_odds_of_its_runs(rules, tmp_path):
    """`when`: the sheet turns the flag on as the run starts, so the roll picks its dice as it goes; the exact
    odds with --sheet are those of one run per face."""
    house = tmp_path / "dazed.yaml"
    house.write_text(DAZED + "  shaken:\n    when: hp_current <= 0\n    reaches: {procedures: [check]}\n"
                     "    change: {modifier: -1}\n", encoding="utf-8")  # no flag of its own: the sheet's only
    sheet = tmp_path / "hero.yaml"
    assert rules("sheet", "new", "lockwood", "-o", str(sheet)).exit_code == 0
    text = sheet.read_text(encoding="utf-8")
    sheet.write_text(re.sub(r"hp: \{current: \d+,", "hp: {current: 0,", text), encoding="utf-8")
    args = ["check", "stat=10", "dc=15", "--sheet", str(sheet)]
    shown = rules("odds", str(house), *args, "--json")
    assert shown.exit_code == 0, shown.stderr
    odds_found = {o: Fraction(p) for o, p in json.loads(shown.stdout)["exact"].items()
                  if Fraction(p)}
    counts: Counter[str] = Counter()
    for face in range(1, 21):
        ran = run_json(rules, str(house), *args, "--dry-run", "--dice", str(face))
        counts[ran["outcome"]] += 1
        if face == 8:  # 8 - 5 - 1
            assert ran["values"]["natural"] == 2 and any("effect dazed (dazed=true, or the sheet: hp_current <= 0)" in n for n in ran["notes"])
            assert any("effect shaken (the sheet: hp_current <= 0): -1 on natural" in n for n in ran["notes"])
    assert odds_found == {o: Fraction(n, 20) for o, n in counts.items()}


# ----------------------------------------------------------------------------- describe, mistakes

def test_describe_says_which_effects_reach_a_procedure_and_how(rules):
    shown = rules("describe", "lockwood", "friendly_fire").stdout
    assert "Effects:" in shown
    assert "- `disadvantage` (`disadvantage=true`, a result of `move` with `disadvantage_this_turn` true " \
           "(for the next run)): disadvantage die (two d20, the lower kept) on the roll of `natural`" in shown
    assert "turns on its own `disadvantage` flag" in rules("describe", "lockwood", "check").stdout
    assert "`pool` +1" in rules("describe", "nwod", "extended").stdout
    whole = rules("describe", "rollunder").stdout
    assert "## Effects" in whole and "- `st_disadvantage` (R13, R2)" in whole


@pytest.mark.parametrize("effect,message", [
    ("reaches: {procedures: [chekc]}\n    change: {modifier: 1}",
     "$.effects.bad.reaches.procedures[0]: unknown procedure 'chekc'"),
    ("reaches: {dice: [check_dei]}\n    change: {modifier: 1}",
     "$.effects.bad.reaches.dice[0]: unknown named dice 'check_dei'"),
    ("after: {move: failed}\n    change: {modifier: 1}",
     "$.effects.bad.after.move: procedure 'move' reports no value 'failed'"),
    ("reaches: {traits: [Stealth]}\n    change: {modifier: 1}",
     "$.effects.bad.reaches.traits[0]: unknown trait 'Stealth'"),
    ("change: {die: advantag}", "$.effects.bad.change.die: 'advantag' is not one of"),
])
def test_a_mistaken_effect_is_one_line_at_its_place(rules, tmp_path, effect, message):
    house = tmp_path / "house.yaml"
    house.write_text(f"extends: lockwood\nruleset: lockwood-bad\neffects:\n  bad:\n    {effect}\n", encoding="utf-8")
    result = rules("validate", str(house))
    assert result.exit_code != 0
    line = one_line_error(result)
    assert line.startswith(f"{house}:") and message in line, line


def test_more_effects_on_one_roll_than_it_is_written_for_are_refused(rules, tmp_path):
    house = tmp_path / "house.yaml"
    effects = "".join(f"  e{i}:\n    reaches: {{procedures: [move]}}\n    change: {{modifier: {i + 1}}}\n"
                      for i in range(5))
    house.write_text(f"extends: lockwood\nruleset: lockwood-many\neffects:\n{effects}", encoding="utf-8")
    result = rules("validate", str(house))
    assert result.exit_code != 0
    assert one_line_error(result).endswith(
        "$.procedures.move.steps[0].roll.natural: 8 effects reach this roll (advantage, disadvantage, "
        "defenders_clause, e0, e1, e2, e3, e4); at most 4 may; narrow their reaches")


def test_the_cookbook_effect_recipe_shows_the_diff_it_prints(rules, tmp_path):
    """docs/cookbook.md, "Stealth at night": the overlay of a few lines, and the odds part of its diff as shown."""
    page = (ROOT / "docs" / "cookbook.md").read_text(encoding="utf-8")
    section = page[page.index("## Stealth at night"):]
    overlay = re.search(r"```yaml\n(.*?)```", section, flags=re.DOTALL).group(1)
    shown = re.search(r"```text\n(.*?)```", section, flags=re.DOTALL).group(1)
    assert len(overlay.splitlines()) <= 8
    (tmp_path / "night.yaml").write_text(overlay, encoding="utf-8")
    sheet = tmp_path / "hero.yaml"
    assert rules("sheet", "new", "nwod", "-o", str(sheet)).exit_code == 0
    diff = rules("diff", "nwod", str(tmp_path / "night.yaml"), "action", "pool=Dexterity", "skill=Stealth",
                 "night=true", "--sheet", str(sheet))
    assert diff.exit_code == 0, diff.stderr
    assert shown in diff.stdout
