"""Lockwood character sheets: creation rules, the two HP numbers, wounds, healing, talents and luck."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import edited_copy, ruleset
from helpers import show_sheet as show

SHEET = """\
# Alice, a courier
ruleset: lockwood
name: Alice
traits:
  # body
  STR: {STR}
  AGI: 11
  END: 11
  KNO: 11
  WIS: 11
  PER: 11
  CHA: 11
  WILL: 11
  LUCK: 12
choices:
  advantages: [Healing, Quick, Sharp eyes]   # three
  disadvantages: [Clumsy, Loud]
  talent: Phase step
  backfire: Ends up one room over
state:
  treatment_days_left: 0
  hp: {{current: {current}, max: {max}}}
  luck_points: 12
  talent_uses: 5
"""


def write(tmp_path: Path, name: str = "alice.yaml", *, STR: int = 11, current: int = 22, max: int = 22,
          text: str | None = None) -> Path:
    path = tmp_path / name
    path.write_text(text if text is not None else SHEET.format(STR=STR, current=current, max=max), encoding="utf-8")
    return path


def hp(rules, path: Path) -> tuple[int, int]:
    track = show(rules, path)["tracks"]["hp"]
    return track["current"], track["max"]


def test_L4_nine_stats_in_three_groups():
    traits = ruleset("lockwood").traits
    groups: dict[str, list[str]] = {}
    for trait in traits.values():
        groups.setdefault(trait.group, []).append(trait.label)
    assert groups == {"body": ["Strength", "Agility", "Endurance"], "mind": ["Knowledge", "Wisdom", "Perception"],
                      "soul": ["Charisma", "Will", "Luck"]}


def test_L5_a_valid_sheet_passes(rules, tmp_path):
    result = rules("sheet", "check", str(write(tmp_path)))
    assert result.exit_code == 0, result.output


def test_L5_points_must_total_100(rules, tmp_path):
    path = write(tmp_path, STR=15)
    result = rules("sheet", "check", "--creation", str(path))
    assert result.exit_code == 1
    assert result.stderr.strip() == f"{path}:6:3: $.traits.STR: stats: 104 points spent; the budget is 100"
    assert rules("sheet", "check", str(path)).exit_code == 0  # the budget binds a new character only


@pytest.mark.parametrize("value,message", [(21, "21 is above the most, 20"), (4, "4 is below the least, 5")])
def test_L5_each_stat_is_5_to_20(rules, tmp_path, value, message):
    path = write(tmp_path, STR=value)
    result = rules("sheet", "check", str(path))
    assert result.exit_code == 1
    assert result.stderr.strip() == f"{path}:6:8: $.traits.STR: traits.STR: {message}"


@pytest.mark.parametrize("top, ok", [(22, True), (21, True), (23, False)])
def test_L17_max_hp_is_never_above_the_derived_hp_in_play(rules, tmp_path, top, ok):
    # L10: HP = END + WILL = 11 + 11 = 22; L17: max HP starts there and only wounds move it
    path = write(tmp_path, current=min(top, 20), max=top)
    result = rules("sheet", "check", str(path))
    assert result.exit_code == (0 if ok else 1), result.output
    if not ok:
        assert result.stderr.strip() == (f"{path}:22:26: $.state.hp.max: max_hp: max HP 23 is above HP 22 (END + WILL): "
                                         "max HP starts at HP and only wounds move it")


def test_L11_three_advantages_two_disadvantages_one_talent(rules, tmp_path):
    text = SHEET.format(STR=11, current=22, max=22).replace("[Healing, Quick, Sharp eyes]", "[Healing, Quick]")
    text = text.replace("[Clumsy, Loud]", "[Clumsy, Loud, Slow]").replace("talent: Phase step", "talent: ''")
    path = write(tmp_path, text=text)
    result = rules("sheet", "check", "--creation", str(path))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"{path}:16:15: $.choices.advantages: advantages: 2 chosen; 3 are needed",
        f"{path}:17:18: $.choices.disadvantages: disadvantages: 3 chosen; 2 are needed",
        f"{path}:18:12: $.choices.talent: talent: expected one entry as text",
    ]


def test_new_sheet_passes_check(rules, tmp_path):
    path = tmp_path / "new.yaml"
    assert rules("sheet", "new", "lockwood", "-o", str(path), "--name", "Bo").exit_code == 0
    assert rules("sheet", "check", str(path)).exit_code == 0
    assert show(rules, path)["name"] == "Bo"
    again = rules("sheet", "new", "lockwood", "-o", str(path))
    assert again.exit_code == 1


def test_L17_current_never_exceeds_max(rules, tmp_path):
    path = write(tmp_path, current=10, max=12)
    result = rules("run", "lockwood", "heal_minor", "healing=20", "--sheet", str(path), "--dice", "15,18,20")
    assert result.exit_code == 0, result.output
    assert hp(rules, path) == (12, 12)


@pytest.mark.parametrize("amount,outcome,after", [
    (2, "minor", (20, 22)),
    (3, "minor", (19, 22)),     # the ruling: exactly 3 is minor
    (4, "major", (18, 18)),
])
def test_L18_minor_wounds_hit_current_major_wounds_hit_max(rules, tmp_path, amount, outcome, after):
    path = write(tmp_path)
    result = rules("run", "lockwood", "take_damage", f"amount={amount}", "--sheet", str(path), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["outcome"] == outcome
    assert hp(rules, path) == after


def test_L18_exactly_three_ruling_is_one_yaml_value(rules, tmp_path):
    text = (Path(ruleset("lockwood").file).read_text() if Path(ruleset("lockwood").file).exists() else None)
    from helpers import edited_copy
    copy = edited_copy(tmp_path, "lockwood", ("exactly_three_is_major: 0", "exactly_three_is_major: 1"))
    sheet = write(tmp_path)
    result = rules("run", str(copy), "take_damage", "amount=3", "--sheet", str(sheet), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["outcome"] == "major"
    assert text is None or "exactly_three_is_major" in text


def test_L19_minor_wounds_at_zero_current_double_onto_max_and_max_zero_is_dead(rules, tmp_path):
    path = write(tmp_path, current=0, max=10)
    result = rules("run", "lockwood", "take_damage", "amount=2", "--sheet", str(path), "--json")
    assert json.loads(result.stdout)["outcome"] == "critical"
    assert hp(rules, path) == (0, 6)
    assert show(rules, path)["status"] == ["critical"]
    result = rules("run", "lockwood", "take_damage", "amount=3", "--sheet", str(path), "--json")
    assert json.loads(result.stdout)["outcome"] == "dead"
    assert hp(rules, path) == (0, 0)
    assert show(rules, path)["status"] == ["dead"]


def test_L20_minor_wounds_heal_overnight_major_after_treatment(rules, tmp_path):
    path = write(tmp_path, current=10, max=18)
    text = path.read_text().replace("treatment_days_left: 0", "treatment_days_left: 1")
    path.write_text(text)
    assert rules("run", "lockwood", "rest", "--sheet", str(path)).exit_code == 0
    assert hp(rules, path) == (18, 18)          # minor wounds healed; the treatment day counted down
    assert show(rules, path)["state"]["treatment_days_left"] == 0
    assert rules("run", "lockwood", "rest", "--sheet", str(path)).exit_code == 0
    assert hp(rules, path) == (19, 19)          # then one point of max HP a day
    assert ruleset("lockwood").constants["treatment_days"] == 14


def test_L20_a_major_wound_starts_the_treatment_period_and_treatment_shortens_it(rules, tmp_path):
    path = write(tmp_path)
    rules("run", "lockwood", "take_damage", "amount=5", "--sheet", str(path))
    assert show(rules, path)["state"]["treatment_days_left"] == 14
    result = rules("run", "lockwood", "heal_major", "healing=8", "--sheet", str(path), "--dice", "7,3,5")
    assert result.exit_code == 0, result.output
    assert show(rules, path)["state"]["treatment_days_left"] == 11


def test_L21_healing_stat_is_derived_and_marked_on_the_sheet(rules, tmp_path):
    shown = show(rules, write(tmp_path))
    assert shown["derived"]["healing"] == (11 + 11) // 2
    assert "healer" not in shown["state"]   # the Healing advantage alone says it (choices.advantages)
    assert ruleset("lockwood").sheet.fields["advantages"].flags["healer"] == "Healing"


def test_L12_talent_uses_run_out_and_come_back_on_rest(rules, tmp_path):
    path = write(tmp_path)
    for _ in range(5):
        assert rules("run", "lockwood", "use_talent", "--sheet", str(path), "--dice", "3").exit_code == 0
    before = path.read_bytes()
    result = rules("run", "lockwood", "use_talent", "--sheet", str(path), "--dice", "3")
    assert result.exit_code == 1
    assert result.stderr.strip() == "no talent attempts left; rest first"
    assert path.read_bytes() == before
    rules("run", "lockwood", "rest", "--sheet", str(path))
    assert show(rules, path)["resources"]["talent_uses"] == {"value": 5, "max": 5}


def test_L6_spending_luck_adds_1dN_and_spends_the_points(rules, tmp_path):
    path = write(tmp_path)
    result = rules("run", "lockwood", "spend_luck", "points=3", "--sheet", str(path), "--dice", "2", "--json")
    data = json.loads(result.stdout)
    assert data["values"] == {"bonus": 2, "luck_points": 9}
    assert data["changes"] == [{"path": "state.luck_points", "old": 12, "new": 9}]
    assert show(rules, path)["resources"]["luck_points"] == {"value": 9, "max": 12}
    before = path.read_bytes()
    refused = rules("run", "lockwood", "spend_luck", "points=10", "--sheet", str(path), "--dice", "2")
    assert refused.exit_code == 1 and path.read_bytes() == before


def test_take_damage_changes_only_the_changed_value(rules, tmp_path):
    path = write(tmp_path)
    before = path.read_text()
    assert rules("run", "lockwood", "take_damage", "amount=2", "--sheet", str(path)).exit_code == 0
    after = path.read_text()
    assert after == before.replace("hp: {current: 22, max: 22}", "hp: {current: 20, max: 22}")
    assert (tmp_path / "alice.yaml.bak").read_text() == before


def test_dry_run_writes_nothing(rules, tmp_path):
    path = write(tmp_path)
    before = path.read_bytes()
    result = rules("run", "lockwood", "take_damage", "amount=5", "--sheet", str(path), "--dry-run")
    assert result.exit_code == 0
    assert "would change" in result.stdout and "state.hp.max: 22 -> 17" in result.stdout
    assert path.read_bytes() == before


@pytest.mark.parametrize("args,message", [
    (("take_damage", "amount=-1"), "parameter 'amount' is -1; the least allowed is 0"),
    (("take_damage", "amont=2"), "procedure 'take_damage' has no parameter 'amont'; did you mean 'amount'?"),
    (("take_damage",), "procedure 'take_damage' needs parameter 'amount'"),
])
def test_bad_input_changes_nothing(rules, tmp_path, args, message):
    path = write(tmp_path)
    before = path.read_bytes()
    result = rules("run", "lockwood", *args, "--sheet", str(path))
    assert result.exit_code == 1
    assert result.stderr.strip() == message
    assert path.read_bytes() == before


def test_a_sheet_of_another_ruleset_is_refused(rules, tmp_path):
    path = write(tmp_path, text=SHEET.format(STR=11, current=22, max=22).replace("ruleset: lockwood", "ruleset: wwn"))
    before = path.read_bytes()
    result = rules("run", "lockwood", "take_damage", "amount=2", "--sheet", str(path))
    assert result.exit_code == 1
    assert result.stderr.strip() == f"{path}:2:10: $.ruleset: the sheet is for ruleset 'wwn', not 'lockwood'"
    assert path.read_bytes() == before


def test_state_procedures_need_a_sheet(rules):
    result = rules("run", "lockwood", "take_damage", "amount=2")
    assert result.exit_code == 1
    assert result.stderr.strip() == "procedure 'take_damage' works on a character sheet: give --sheet FILE"


def test_a_parameter_may_name_a_sheet_value(rules, tmp_path):
    path = write(tmp_path)
    result = rules("run", "lockwood", "check", "stat=STR", "dc=15", "--sheet", str(path), "--dice", "4", "--json")
    assert json.loads(result.stdout)["values"]["total"] == 15


def test_odds_of_a_state_procedure_with_a_sheet(rules, tmp_path):
    path = write(tmp_path, current=2, max=22)
    result = rules("odds", "lockwood", "take_damage", "amount=2", "--sheet", str(path), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["exact"]["minor"] == "1/1"
    assert data["values"]["hp_current"]["distribution"] == {"0": 1.0}


# --- L6 luck from the sheet, L19 critical condition, L15/L18 attack wounds, L23 once a day --------
@pytest.mark.parametrize("procedure, params, dice, total", [
    ("check", ["stat=10", "dc=15"], "8,3", ("total", 21)),                        # 8 + 10 + 3
    ("attack", ["attack=10", "defense=10"], "8,5,3", ("attack_total", 21)),      # attacker's d20, defender's, luck
])
def test_L6_luck_spent_with_a_sheet_comes_out_of_luck_points(rules, tmp_path, procedure, params, dice, total):
    path = write(tmp_path)
    result = rules("run", "lockwood", procedure, *params, "luck=3", "--sheet", str(path), "--dice", dice, "--json")
    data = json.loads(result.stdout)
    assert data["values"][total[0]] == total[1]
    assert data["changes"] == [{"path": "state.luck_points", "old": 12, "new": 9}]
    before = path.read_bytes()
    refused = rules("run", "lockwood", procedure, *params, "luck=10", "--sheet", str(path), "--dice", dice)
    assert (refused.exit_code, refused.stderr) == (1, "not enough luck points: 10 spent, 9 left\n")
    assert path.read_bytes() == before


def test_L6_without_a_sheet_luck_spends_nothing(rules, tmp_path):
    result = rules("run", "lockwood", "check", "stat=10", "dc=15", "luck=30", "--dice", "8,30", "--json")
    assert json.loads(result.stdout)["values"]["total"] == 48


@pytest.mark.parametrize("current, procedure, params, dice, key, expected", [
    (20, "check", ["stat=10", "dc=15"], "8", "total", 18),
    (0, "check", ["stat=10", "dc=15"], "8", "total", 16),          # the ruling: 2 off at 0 current HP
    (1, "check", ["stat=10", "dc=15"], "8", "total", 18),
    (0, "attack", ["attack=10", "defense=5"], "8,4", "attack_total", 16),
])
def test_L19_critical_condition_lowers_the_stats_rolled(rules, tmp_path, current, procedure, params, dice, key,
                                                       expected):
    path = write(tmp_path, current=current, max=20)
    result = rules("run", "lockwood", procedure, *params, "--sheet", str(path), "--dice", dice, "--json")
    assert json.loads(result.stdout)["values"][key] == expected


def test_L19_the_critical_penalty_is_one_yaml_value(rules, tmp_path):
    copy = edited_copy(tmp_path, "lockwood", ("critical_stat_penalty: 2 ", "critical_stat_penalty: 5 "))
    path = write(tmp_path, current=0, max=20, text=SHEET.format(STR=11, current=0, max=20).replace(
        "ruleset: lockwood", f"ruleset: {copy.name}"))
    result = rules("run", str(copy), "check", "stat=10", "dc=15", "--sheet", str(path), "--dice", "8", "--json")
    assert json.loads(result.stdout)["values"]["total"] == 13


@pytest.mark.parametrize("minor_setting, outcome, after", [(1, "minor", (17, 22)), (0, "major", (17, 17))])
def test_L15_L18_an_attacks_damage_is_minor_wounds_by_the_ruling(rules, tmp_path, minor_setting, outcome, after):
    # L15: attack damage is "dealt in minor wounds"; L18 sorts a 5 as major. One constant decides.
    copy = edited_copy(tmp_path, "lockwood", ("attack_wounds_are_minor: 1 ", f"attack_wounds_are_minor: {minor_setting} "))
    path = write(tmp_path, text=SHEET.format(STR=11, current=22, max=22).replace("ruleset: lockwood", f"ruleset: {copy.name}"))
    result = rules("run", str(copy), "take_damage", "amount=5", "from_attack=true", "--sheet", str(path), "--json")
    assert json.loads(result.stdout)["outcome"] == outcome
    assert hp(rules, path) == after
    plain = rules("run", str(copy), "take_damage", "amount=4", "--sheet", str(path), "--json")
    assert json.loads(plain.stdout)["outcome"] == "major"   # a wound that is not an attack's is sorted by size


def test_L23_one_major_wound_treatment_per_patient_per_day(rules, tmp_path):
    path = write(tmp_path)
    rules("run", "lockwood", "take_damage", "amount=5", "--sheet", str(path))
    assert rules("run", "lockwood", "heal_major", "healing=8", "--sheet", str(path), "--dice", "7,3,5").exit_code == 0
    before = path.read_bytes()
    again = rules("run", "lockwood", "heal_major", "healing=8", "--sheet", str(path), "--dice", "7,3,5")
    message = "the patient's major wound was already treated today: one wound per patient per day\n"
    assert (again.exit_code, again.stderr) == (1, message)
    assert path.read_bytes() == before
    rules("run", "lockwood", "rest", "--sheet", str(path))       # the next day
    assert show(rules, path)["state"]["treatment_days_left"] == 14 - 3 - 1
    assert rules("run", "lockwood", "heal_major", "healing=8", "--sheet", str(path), "--dice", "7,4,5").exit_code == 0
    assert show(rules, path)["state"]["treatment_days_left"] == 14 - 3 - 1 - 4


@pytest.mark.parametrize("amount, outcome", [(2, "minor"), (3, "major"), (4, "major")])
def test_L18_with_three_ruled_major_a_2_stays_minor(rules, tmp_path, amount, outcome):
    # L18: minor is "three HP or less", major "at least three": only 3 is in both classes
    copy = edited_copy(tmp_path, "lockwood", ("exactly_three_is_major: 0", "exactly_three_is_major: 1"))
    path = write(tmp_path, text=SHEET.format(STR=11, current=22, max=22).replace("ruleset: lockwood", f"ruleset: {copy.name}"))
    result = rules("run", str(copy), "take_damage", f"amount={amount}", "--sheet", str(path), "--json")
    assert json.loads(result.stdout)["outcome"] == outcome


# --- edges the rules turn on ---------------------------------------------------------------------
STATS = ["STR", "AGI", "END", "KNO", "WIS", "PER", "CHA", "WILL", "LUCK"]


@pytest.mark.parametrize("stat", STATS)
@pytest.mark.parametrize("value, ok", [(4, False), (5, True), (20, True), (21, False)])
def test_L5_every_stat_is_5_to_20_in_play(rules, tmp_path, stat, value, ok):
    # L5: "at least 5 points ... no stat may exceed 20", for each of the nine stats
    text = SHEET.format(STR=11, current=10, max=10).replace("luck_points: 12", "luck_points: 5")
    text = re.sub(rf"^  {stat}: \d+$", f"  {stat}: {value}", text, flags=re.MULTILINE)
    path = write(tmp_path, text=text)
    result = rules("sheet", "check", str(path))
    assert result.exit_code == (0 if ok else 1), result.output


@pytest.mark.parametrize("points, left", [(9, 0), (1, 8)])
def test_L6_every_luck_point_left_may_be_spent(rules, tmp_path, points, left):
    path = write(tmp_path, text=SHEET.format(STR=11, current=22, max=22).replace("luck_points: 12", "luck_points: 9"))
    for procedure, params in (("spend_luck", [f"points={points}"]), ("check", ["stat=5", "dc=5", f"luck={points}"])):
        path.write_text(path.read_text().replace(f"luck_points: {left}", "luck_points: 9"))
        dice = "1" if procedure == "spend_luck" else "10,1"
        result = rules("run", "lockwood", procedure, *params, "--sheet", str(path), "--dice", dice)
        assert result.exit_code == 0, result.output
        assert show(rules, path)["resources"]["luck_points"]["value"] == left


def test_L6_no_luck_spends_nothing_and_a_point_must_be_spent(rules, tmp_path):
    path = write(tmp_path)
    result = rules("run", "lockwood", "spend_luck", "points=0", "--sheet", str(path))
    assert (result.exit_code, result.stderr) == (1, "parameter 'points' is 0; the least allowed is 1\n")
    assert rules("run", "lockwood", "check", "stat=5", "dc=5", "--sheet", str(path), "--dice", "10").exit_code == 0
    assert show(rules, path)["resources"]["luck_points"]["value"] == 12


def test_L18_L19_one_hp_left_takes_a_minor_wound_as_current_hp(rules, tmp_path):
    # L19's doubling starts only once current HP "hits zero": at 1, a 2 is a plain minor wound
    path = write(tmp_path, current=1, max=10)
    result = rules("run", "lockwood", "take_damage", "amount=2", "--sheet", str(path), "--json")
    assert json.loads(result.stdout)["outcome"] == "minor"
    assert hp(rules, path) == (0, 10)


def test_L19_max_hp_1_is_alive_and_0_is_dead(rules, tmp_path):
    path = write(tmp_path, current=0, max=3)
    result = rules("run", "lockwood", "take_damage", "amount=1", "--sheet", str(path), "--json")
    assert (json.loads(result.stdout)["outcome"], hp(rules, path)) == ("critical", (0, 1))
    result = rules("run", "lockwood", "take_damage", "amount=1", "--sheet", str(path), "--json")
    assert (json.loads(result.stdout)["outcome"], hp(rules, path)) == ("dead", (0, 0))


def test_L20_max_hp_heals_up_to_the_derived_hp_and_no_further(rules, tmp_path):
    path = write(tmp_path, current=20, max=21)       # HP = END + WILL = 22
    for expected in (22, 22):
        assert rules("run", "lockwood", "rest", "--sheet", str(path)).exit_code == 0
        assert hp(rules, path) == (expected, expected)


def test_L18_no_damage_is_no_wound(rules, tmp_path):
    path = write(tmp_path)
    result = rules("run", "lockwood", "take_damage", "amount=0", "--sheet", str(path), "--json")
    assert (json.loads(result.stdout)["outcome"], hp(rules, path)) == ("minor", (22, 22))


@pytest.mark.parametrize("current, top, status", [
    (1, 10, []),                 # one HP left: not yet critical
    (0, 10, ["critical"]),       # L19: current HP at 0 is critical condition
    (0, 1, ["critical"]),        # max HP 1 is still alive
    (0, 0, ["dead"]),            # L19: max HP 0 means dead
])
def test_L19_status_critical_at_0_current_hp_and_dead_at_0_max_hp(rules, tmp_path, current, top, status):
    path = write(tmp_path, current=current, max=top)
    assert show(rules, path)["status"] == status


def test_L20_L23_a_new_character_has_no_wound_waiting_to_heal(rules, tmp_path):
    """L20/L23: a new character has no major wound: no treatment days left, none treated today."""
    path = tmp_path / "new.yaml"
    assert rules("sheet", "new", "lockwood", "-o", str(path)).exit_code == 0
    state = show(rules, path)["state"]
    assert (state["treatment_days_left"], state["treated_today"]) == (0, False)
