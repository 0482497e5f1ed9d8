"""nwod character sheets (seed 002): creation, the health track, willpower, experience, and safe writes.

Every number here comes from the seed's text, quoted where it matters, never from the ruleset:
attributes start at 1 and get 5/4/3 dots, skills start at 0 and get 11/7/4, "purchasing a 5 ...
requires an extra point", three specialties, 7 merit points, Morality 7 sold to 5 for 5 EP a dot,
health 2 + Stamina x 2, marks `*` `X` `/`, penalties -1/-2/-3, healing 15 minutes / 2 days / a week,
Willpower Resolve + Composure for +3 dice, and the experience costs and study days.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import RULES, checkout_env, edited_copy, ruleset
from helpers import show_sheet as show

from interpreter.load.yaml import load_text
from interpreter.sheet.file import TEMP_MARK

# A legal new character: mental attributes primary (2+2+1 = 5 dots above the free 1), physical
# secondary (1+2+1 = 4), social tertiary (1+1+1 = 3); mental skills 11, physical 7, social 4.
SHEET = """\
# Vera Lind, a night-shift paramedic
ruleset: nwod
name: Vera Lind
traits:
  # attributes: mental 5, physical 4, social 3 dots above the free one
  Intelligence: 3
  Wits: 3
  Resolve: 2
  Strength: 2
  Dexterity: 3
  Stamina: 2
  Presence: 2
  Manipulation: 2
  Composure: 2
  # skills: mental 11, physical 7, social 4
  Academics: 1
  Computer: 1
  Crafts: 0
  Investigation: 2
  Medicine: 4
  Occult: 1
  Politics: 0
  Science: 2
  Athletics: 2
  Brawl: 1
  Drive: 2
  Firearms: 0
  Larceny: 0
  Stealth: 1
  Survival: 1
  Weaponry: 0
  Animal_Ken: 0
  Empathy: 2
  Expression: 0
  Intimidation: 0
  Persuasion: 1
  Socialize: 0
  Streetwise: 1
  Subterfuge: 0
choices:
  attribute_priority: [mental, physical, social]   # primary first
  skill_priority: [mental, physical, social]
  specialties: ["Medicine: Trauma", "Medicine: Triage", "Drive: Ambulance"]
  merits: {Contacts: 2, Resources: 1, Iron Stamina: 3, Common Sense: 1}
  vice: Wrath
  virtue: Patience
state:
  morality: 7          # sold down to 5 at most
  experience: 0
  willpower: 4         # Resolve + Composure
  health: [null, null, null, null, null, null]   # worst first
"""
EMPTY6 = "health: [null, null, null, null, null, null]"


def write(tmp_path: Path, *edits: tuple[str, str], name: str = "vera.yaml") -> Path:
    """The sheet above with exact text replacements (each must match once)."""
    text = SHEET
    for old, new in edits:
        assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
        text = text.replace(old, new)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def health(drawn: str) -> tuple[str, str]:
    """An edit setting the health track to a drawing such as '*XX//_' ('_' empty)."""
    words = {"*": '"*"', "X": "X", "/": "/", "_": "null"}
    return EMPTY6, "health: [" + ", ".join(words[c] for c in drawn) + "]"


def run(rules, path: Path, procedure: str, *params: str, dice: str | None = None) -> dict:
    extra = ["--dice", dice] if dice is not None else []
    result = rules("run", "nwod", procedure, *params, "--sheet", str(path), "--json", *extra)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def refused(rules, path: Path, *args: str) -> str:
    """Run a command that must fail: one line on stderr, exit 1, the sheet byte for byte as it was."""
    before = path.read_bytes()
    files = set(path.parent.iterdir())
    result = rules(*args)
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert path.read_bytes() == before
    assert set(path.parent.iterdir()) == files  # no .bak, no temp file, no lock file
    return result.stderr.strip()


def stored_health(path: Path) -> list:
    """The health list as the file holds it."""
    return load_text(path.read_bytes(), str(path)).data["state"]["health"]


def drawn(rules, path: Path) -> str:
    return show(rules, path)["tracks"]["health"]["drawn"]


# --- N7: traits -------------------------------------------------------------------------------
SKILLS = {  # the published game's 24 skills, as the seed's "mental, physical, social" groups
    "mental_skills": ["Academics", "Computer", "Crafts", "Investigation", "Medicine", "Occult", "Politics", "Science"],
    "physical_skills": ["Athletics", "Brawl", "Drive", "Firearms", "Larceny", "Stealth", "Survival", "Weaponry"],
    "social_skills": ["Animal_Ken", "Empathy", "Expression", "Intimidation", "Persuasion", "Socialize", "Streetwise",
                      "Subterfuge"],
}
ATTRIBUTES = {"mental": ["Intelligence", "Wits", "Resolve"], "physical": ["Strength", "Dexterity", "Stamina"],
              "social": ["Presence", "Manipulation", "Composure"]}


def test_N7_N9_nine_attributes_1_to_5_and_24_skills_0_to_5_in_groups():
    traits = ruleset("nwod").traits
    expected = {**{n: (g, 1, 5) for g, ns in ATTRIBUTES.items() for n in ns},
                **{n: (g, 0, 5) for g, ns in SKILLS.items() for n in ns}}
    got = {t.name: (t.group, t.minimum, t.maximum) for t in traits.values()}
    assert got == expected
    assert traits["Animal_Ken"].label == "Animal Ken"


# --- creation: N8-N11, N35, N36 ----------------------------------------------------------------
def test_a_legal_character_passes_check(rules, tmp_path):
    path = write(tmp_path)
    result = rules("sheet", "check", str(path))
    assert (result.exit_code, result.stdout.strip()) == (0, f"{path}: valid")


def test_new_sheet_passes_check(rules, tmp_path):
    path = tmp_path / "new.yaml"
    assert rules("sheet", "new", "nwod", "-o", str(path), "--name", "Ada").exit_code == 0
    result = rules("sheet", "check", str(path))
    assert result.exit_code == 0, result.output
    shown = show(rules, path)
    assert shown["name"] == "Ada"
    assert shown["tracks"]["health"]["size"] == 2 + shown["traits"]["Stamina"] * 2
    assert shown["resources"]["willpower"]["value"] == shown["traits"]["Resolve"] + shown["traits"]["Composure"]
    assert shown["state"]["morality"] == 7


# (rule ids, edits, the exact lines `rules sheet check` prints after FILE:)
VIOLATIONS = [
    pytest.param(  # N8: 3 + 1 + ... one dot too many in the primary group
        [("  Intelligence: 3\n", "  Intelligence: 4\n")],
        ["6:3: $.traits.Intelligence: attributes: 6 dots spent on mental; priority 1 gives 5"],
        id="N8 5/4/3 attribute dots"),
    pytest.param(  # N8: "Purchasing a 5 ... requires an extra point": 4 dots counted plainly, 5 spent
        [("  Intelligence: 3\n", "  Intelligence: 5\n"), ("  Wits: 3\n", "  Wits: 1\n")],
        ["6:3: $.traits.Intelligence: attributes: 6 dots spent on mental; priority 1 gives 5"],
        id="N8 the fifth attribute dot costs two"),
    pytest.param(  # N8: the groups ranked the other way round
        [("attribute_priority: [mental, physical, social]", "attribute_priority: [social, physical, mental]")],
        ["6:3: $.traits.Intelligence: attributes: 5 dots spent on mental; priority 3 gives 3",
         "12:3: $.traits.Presence: attributes: 3 dots spent on social; priority 1 gives 5"],
        id="N8 priorities follow attribute_priority"),
    pytest.param(
        [("attribute_priority: [mental, physical, social]", "attribute_priority: [mental, mental, social]")],
        [("41:23: $.choices.attribute_priority: attributes: attribute_priority must list mental, physical, social "
         "once each, highest priority first")],
        id="N8 each group ranked once"),
    pytest.param(  # N9: 11 dots counted plainly, but Medicine 5 costs 6
        [("  Medicine: 4\n", "  Medicine: 5\n"), ("  Academics: 1\n", "  Academics: 0\n")],
        ["16:3: $.traits.Academics: skills: 12 dots spent on mental; priority 1 gives 11"],
        id="N9 the fifth skill dot costs two"),
    pytest.param(
        [("  Athletics: 2\n", "  Athletics: 3\n")],
        ["24:3: $.traits.Athletics: skills: 8 dots spent on physical; priority 2 gives 7"],
        id="N9 11/7/4 skill dots"),
    pytest.param(  # N10: "not Pistol twice"
        [('"Drive: Ambulance"]', '"Medicine: Trauma"]')],
        ["43:58: $.choices.specialties[2]: specialties: 'Medicine: Trauma' is chosen twice"],
        id="N10 no specialty twice"),
    pytest.param(  # N10: the same specialty in another letter case is the same specialty
        [('"Drive: Ambulance"]', '"medicine:  TRAUMA"]')],
        ["43:58: $.choices.specialties[2]: specialties: 'medicine:  TRAUMA' is chosen twice"],
        id="N10 no specialty twice in any case"),
    pytest.param(  # N10: "Skill: specialty", of a skill that exists
        [('"Drive: Ambulance"]', '"Driving: Ambulance"]')],
        [("43:58: $.choices.specialties[2]: specialties: 'Driving: Ambulance' names no trait of mental_skills, "
         "physical_skills, social_skills; did you mean 'Drive'?")],
        id="N10 a specialty of a skill that exists"),
    pytest.param(  # N10: an attribute has no specialties
        [('"Drive: Ambulance"]', '"Wits: Ambulance"]')],
        [("43:58: $.choices.specialties[2]: specialties: 'Wits: Ambulance' names no trait of mental_skills, "
         "physical_skills, social_skills")],
        id="N10 a specialty of a skill, not an attribute"),
    pytest.param(
        [('"Drive: Ambulance"]', '"Ambulance"]')],
        ["43:58: $.choices.specialties[2]: specialties: 'Ambulance' should read 'TRAIT: detail'"],
        id="N10 a specialty names its skill"),
    pytest.param(
        [('"Drive: Ambulance"]', '"Drive: Ambulance", "Stealth: Crowds"]')],
        ["43:16: $.choices.specialties: specialties: 4 chosen; 3 are needed"],
        id="N10 three specialties"),
    pytest.param(
        [("Common Sense: 1}", "Common Sense: 2}")],
        ["44:11: $.choices.merits: merits: 8 points spent; the budget is 7"],
        id="N11 seven merit points"),
    pytest.param(
        [("  morality: 7 ", "  morality: 4 ")],
        [("48:13: $.state.morality: morality: 4 is outside 5 to 7: Morality starts at 7 and can only be sold "
         "down to 5 at creation")],
        id="N35 Morality sold to 5 at most"),
    pytest.param(
        [("  morality: 7 ", "  morality: 8 ")],
        [("48:13: $.state.morality: morality: 8 is outside 5 to 7: Morality starts at 7 and can only be sold "
         "down to 5 at creation")],
        id="N35 Morality starts at 7"),
    pytest.param(
        [("vice: Wrath", "vice: Hubris"), ("virtue: Patience", "virtue: Wrath")],
        ["45:9: $.choices.vice: vice: 'Hubris' is not one of the options",
         "46:11: $.choices.virtue: virtue: 'Wrath' is not one of the options"],
        id="N36 a deadly sin and its opposite"),
]


@pytest.mark.parametrize("edits, lines", VIOLATIONS)
def test_creation_rules_N8_N9_N10_N11_N35_N36_each_refuse_a_sheet_with_place_and_message(rules, tmp_path,
                                                                                       edits, lines):
    path = write(tmp_path, *edits)
    result = rules("sheet", "check", "--creation", str(path))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [f"{path}:{line}" for line in lines]


STANDING = {"N10 no specialty twice", "N36 a deadly sin and its opposite", "N10 no specialty twice in any case",
            "N10 a specialty of a skill that exists", "N10 a specialty of a skill, not an attribute",
            "N10 a specialty names its skill"}


@pytest.mark.parametrize("edits, lines", VIOLATIONS)
def test_plain_check_refuses_only_what_always_holds(rules, tmp_path, edits, lines, request):
    # budgets, priorities, counts and Morality's starting range are creation rules: play breaks them
    path = write(tmp_path, *edits)
    result = rules("sheet", "check", str(path))
    standing = request.node.callspec.id in STANDING
    assert result.exit_code == (1 if standing else 0), result.output
    if standing:
        assert result.stderr.splitlines() == [f"{path}:{line}" for line in lines]


def test_N10_a_specialty_names_its_skill_by_label_in_any_case(rules, tmp_path):
    path = write(tmp_path, ('"Drive: Ambulance"]', '"animal ken: Dogs"]'))
    assert rules("sheet", "check", "--creation", str(path)).exit_code == 0


def test_N12_experience_spent_in_play_keeps_the_sheet_valid_but_not_a_new_character(rules, tmp_path):
    # N12: Firearms 0 -> 2 costs 3 x 1 + 3 x 2 = 9 (new dots x 3 for a skill), a specialty 3
    path = write(tmp_path, ("  experience: 0", "  experience: 15"))
    assert run(rules, path, "buy", "trait=Firearms", "dots=2")["values"]["experience"] == 6
    assert run(rules, path, "buy_specialty")["values"]["experience"] == 3
    text = path.read_text().replace('"Drive: Ambulance"]', '"Drive: Ambulance", "Firearms: Pistol"]')
    path.write_text(text)
    result = rules("sheet", "check", str(path))
    assert (result.exit_code, result.stderr) == (0, ""), result.output
    creation = rules("sheet", "check", "--creation", str(path))
    assert creation.exit_code == 1
    assert creation.stderr.splitlines() == [
        f"{path}:24:3: $.traits.Athletics: skills: 9 dots spent on physical; priority 2 gives 7",
        f"{path}:43:16: $.choices.specialties: specialties: 4 chosen; 3 are needed"]
    path.write_text(text.replace("  Stamina: 2", "  Stamina: 9"))  # a hand edit past the range is still caught
    assert rules("sheet", "check", str(path)).stderr.strip() == f"{path}:11:12: $.traits.Stamina: traits.Stamina: " \
        "9 is above the most, 5"


def test_N35_morality_is_sold_at_creation_only(rules, tmp_path):
    path = write(tmp_path)
    assert run(rules, path, "sell_morality")["values"] == {"morality": 6, "experience": 5}
    assert run(rules, path, "begin_play")["outcome"] == "started"
    assert refused(rules, path, "run", "nwod", "sell_morality", "--sheet", str(path)) == \
        "Morality is sold at creation only, and this character is in play (state in_play)"
    assert show(rules, path)["state"]["morality"] == 6


def test_N8_N9_a_fifth_dot_paid_for_passes(rules, tmp_path):
    # Intelligence 5 costs 4 + 1 extra; with Wits 1 and Resolve 1 that is the primary group's 5 dots
    # ("requires that you at least one 1"); Medicine 5 costs 4 + 1, paid for by Science 2 -> 0
    path = write(tmp_path, ("  Intelligence: 3\n", "  Intelligence: 5\n"), ("  Wits: 3\n", "  Wits: 1\n"),
                 ("  Resolve: 2\n", "  Resolve: 1\n"), ("  Medicine: 4\n", "  Medicine: 5\n"),
                 ("  Science: 2\n", "  Science: 0\n"), ("  willpower: 4 ", "  willpower: 3 "))
    result = rules("sheet", "check", str(path))
    assert result.exit_code == 0, result.output


def test_N10_two_specialties_may_share_a_skill(rules, tmp_path):
    path = write(tmp_path)  # "Medicine: Trauma" and "Medicine: Triage": like Pistol and Rifle
    assert rules("sheet", "check", str(path)).exit_code == 0


def test_N36_vices_are_the_seven_deadly_sins_and_virtues_their_opposites():
    fields = ruleset("nwod").sheet.fields
    assert set(fields["vice"].options) == {"Pride", "Greed", "Envy", "Wrath", "Lust", "Gluttony", "Sloth"}
    assert set(fields["virtue"].options) == {"Humility", "Charity", "Kindness", "Patience", "Chastity",
                                             "Temperance", "Diligence"}


def test_N35_selling_morality_gives_5_experience_a_dot_down_to_5(rules, tmp_path):
    path = write(tmp_path)
    got = [run(rules, path, "sell_morality")["values"] for _ in range(2)]
    assert got == [{"morality": 6, "experience": 5}, {"morality": 5, "experience": 10}]
    assert rules("sheet", "check", str(path)).exit_code == 0
    assert refused(rules, path, "run", "nwod", "sell_morality", "--sheet", str(path)) == \
        "Morality is sold at creation only, from 7 down to 5"


# --- the health track: N15-N21 -----------------------------------------------------------------
@pytest.mark.parametrize("stamina, boxes", [(1, 4), (2, 6), (3, 8), (5, 12)])
def test_N15_health_is_2_plus_stamina_times_2(rules, tmp_path, stamina, boxes):
    # the track written empty: its size comes from Stamina alone (a longer one breaks the rule and is refused)
    path = write(tmp_path, ("  Stamina: 2\n", f"  Stamina: {stamina}\n"), (EMPTY6, "health: []"))
    track = show(rules, path)["tracks"]["health"]
    assert (track["kind"], track["size"], len(track["marks"])) == ("boxes", boxes, boxes)


def test_N16_seed_example_one_lethal_on_star_XX_slash_slash(rules, tmp_path):
    # "if you have 1 Agg wound, 2 Lethal, 2 Bashing (*XX//), and you take another lethal ... (*XXX//)"
    path = write(tmp_path, health("*XX//_"))
    before = show(rules, path)["tracks"]["health"]
    assert before["marks"] == ["aggravated", "lethal", "lethal", "bashing", "bashing", None]
    assert before["drawn"] == "*XX//_"
    data = run(rules, path, "take_damage", "amount=1", "type=lethal")
    after = show(rules, path)["tracks"]["health"]
    assert after["marks"] == ["aggravated", "lethal", "lethal", "lethal", "bashing", "bashing"]
    assert after["drawn"] == "*XXX//"
    assert data["changes"] == [{"path": "state.health",   # written as the sheet draws it
                                "old": ["*", "X", "X", "/", "/", None],
                                "new": ["*", "X", "X", "X", "/", "/"]}]
    assert stored_health(path) == ["*", "X", "X", "X", "/", "/"]   # in the sheet's own marks
    result = rules("sheet", "show", str(path))
    assert "health: [*XXX//]  penalty -3" in result.stdout


def test_N16_N18_full_five_box_track_star_XX_slash_slash_plus_lethal_gives_star_XXX_slash(rules, tmp_path):
    """The same example on a full five-box track: the new lethal promotes the leftmost bashing (*XXX/)."""
    copy = edited_copy(tmp_path, "nwod", ("  health_base: 2 ", "  health_base: 1 "))
    path = write(tmp_path, health("*XX//"), ("ruleset: nwod", f"ruleset: {copy.name}"))
    assert json.loads(rules("sheet", "show", str(path), "--json").stdout)["tracks"]["health"]["drawn"] == "*XX//"
    result = rules("run", str(copy), "take_damage", "amount=1", "type=lethal", "--sheet", str(path), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(rules("sheet", "show", str(path), "--json").stdout)["tracks"]["health"]["drawn"] == "*XXX/"


@pytest.mark.parametrize("start, kind, amount, end", [
    ("______", "aggravated", 1, "*_____"),
    ("/_____", "lethal", 1, "X/____"),      # worse wounds go left of milder ones
    ("X/____", "aggravated", 1, "*X/___"),
    ("______", "bashing", 3, "///___"),
])
def test_N16_worst_first_aggravated_lethal_bashing(rules, tmp_path, start, kind, amount, end):
    path = write(tmp_path, health(start))
    run(rules, path, "take_damage", f"amount={amount}", f"type={kind}")
    assert drawn(rules, path) == end


@pytest.mark.parametrize("start, kind, end, promoted", [
    ("XXX///", "bashing", "XXXX//", 1),     # "locate the leftmost bashing damage and it now becomes a lethal wound"
    ("*X////", "bashing", "*XX///", 1),
    ("XXXXXX", "bashing", "*XXXXX", 1),     # "If no bashing wound levels exist, you upgrade a lethal level to agg"
    ("XXXXXX", "lethal", "*XXXXX", 1),
    ("*****X", "bashing", "******", 1),
    ("XXXXX/", "bashing", "XXXXXX", 1),
])
def test_N18_a_full_track_promotes_the_leftmost_mildest_wound(rules, tmp_path, start, kind, end, promoted):
    path = write(tmp_path, health(start))
    data = run(rules, path, "take_damage", "amount=1", f"type={kind}")
    assert drawn(rules, path) == end
    assert data["values"]["promoted"] == promoted


@pytest.mark.parametrize("kind", ["lethal", "aggravated"])
def test_N18_the_ruling_every_type_on_a_full_track_promotes_as_bashing_does(rules, tmp_path, kind):
    # the seed speaks of "a point of bashing damage" only; the ruling (docs/systems/nwod.md) reads every
    # type the same way, so an aggravated point on a track full of bashing leaves no aggravated box
    path = write(tmp_path, health("//////"))
    data = run(rules, path, "take_damage", "amount=1", f"type={kind}")
    assert drawn(rules, path) == "X/////"
    assert (data["values"]["promoted"], data["values"]["aggravated_boxes"]) == (1, 0)


def test_N18_more_damage_than_room_fills_then_promotes(rules, tmp_path):
    path = write(tmp_path, health("XX____"))
    data = run(rules, path, "take_damage", "amount=6", "type=bashing")
    # 4 boxes fill with bashing, then two promotions turn the leftmost bashing to lethal
    assert drawn(rules, path) == "XXXX//"
    assert (data["values"]["promoted"], data["values"]["boxes_left"]) == (2, 0)


@pytest.mark.parametrize("filled, penalty", [(0, 0), (1, 0), (2, 0), (3, -1), (4, -2), (5, -3)])
def test_N17_wound_penalties_on_the_last_three_boxes(rules, tmp_path, filled, penalty):
    # "-1 if you are on your third to last, -2 if you are on your second to last, -3 if you are on your last"
    path = write(tmp_path, health("/" * filled + "_" * (6 - filled)))
    data = run(rules, path, "take_damage", "amount=1", "type=bashing")
    assert data["values"]["penalty"] == penalty
    assert show(rules, path)["tracks"]["health"]["penalty"] == penalty
    assert data["outcome"] == {0: "damaged", -1: "wounded", -2: "wounded", -3: "unconscious"}[penalty]


@pytest.mark.parametrize("start, kind, outcome, status", [
    ("XXXX/_", "bashing", "unconscious", ["wounded", "unconscious_risk"]),
    ("XXXX/_", "lethal", "unconscious", ["wounded", "unconscious_risk"]),   # the lethal goes left of the bashing
    ("XXXXX_", "lethal", "bleeding", ["wounded", "unconscious_risk", "bleeding"]),
    ("*****_", "aggravated", "dead", ["wounded", "dead"]),
])
def test_N19_the_rightmost_box_decides_unconscious_bleeding_or_dead(rules, tmp_path, start, kind, outcome, status):
    path = write(tmp_path, health(start))
    assert run(rules, path, "take_damage", "amount=1", f"type={kind}")["outcome"] == outcome
    assert show(rules, path)["status"] == status


def test_N19_staying_conscious_is_a_plain_stamina_roll(rules, tmp_path):
    path = write(tmp_path, health("XXXX//"))   # -3 wound penalty, but the roll is unmodified: 2 dice
    data = run(rules, path, "stay_conscious", dice="7,8")
    assert (data["outcome"], data["values"]["successes"], data["rolls"][0]["expr"]) == \
        ("conscious", 1, "2d10x>=10cs>=8")
    odds = rules("odds", "nwod", "stay_conscious", "--sheet", str(path), "--json")
    assert json.loads(odds.stdout)["outcomes"]["conscious"] == pytest.approx(1 - 0.7 ** 2, abs=1e-9)
    fine = write(tmp_path, health("XX____"), name="fine.yaml")
    assert run(rules, fine, "stay_conscious", dice="")["values"] == {"successes": 0, "rolled": False}


@pytest.mark.parametrize("kind, start, amount, end, minutes, days", [
    ("bashing", "X///__", 2, "X/____", 30, 0),          # "1 pt/15 minutes"
    ("lethal", "*XX/__", 1, "*X/___", 2 * 1440, 2),     # "1 pt/2 days"
    ("aggravated", "**X___", 2, "X_____", 14 * 1440, 14),  # "1 week/pt"
    ("lethal", "*X____", 3, "*_____", 2 * 1440, 2),     # only the one lethal box heals
])
def test_N20_healing_clears_boxes_and_reports_the_time(rules, tmp_path, kind, start, amount, end, minutes, days):
    path = write(tmp_path, health(start))
    data = run(rules, path, "heal", f"type={kind}", f"amount={amount}")
    assert drawn(rules, path) == end
    assert (data["outcome"], data["values"]["minutes"], data["values"]["days"]) == ("healed", minutes, days)


def test_N20_nothing_to_heal_writes_nothing(rules, tmp_path):
    path = write(tmp_path, health("X_____"))
    before = path.read_bytes()
    data = run(rules, path, "heal", "type=bashing", "amount=2")
    assert (data["outcome"], data["values"]["boxes_healed"], data["written"]) == ("nothing_to_heal", 0, False)
    assert path.read_bytes() == before


def test_N21_temporary_boxes_absorb_first_but_not_aggravated_and_recover_on_rest(rules, tmp_path):
    path = write(tmp_path)
    run(rules, path, "gain_temporary_health", "boxes=2")
    agg = run(rules, path, "take_damage", "amount=1", "type=aggravated")   # "Agg damage completely ignores temp"
    assert (agg["values"]["absorbed"], drawn(rules, path)) == (0, "*_____")
    hit = run(rules, path, "take_damage", "amount=3", "type=lethal")       # two absorbed, one on the track
    assert (hit["values"]["absorbed"], hit["values"]["temporary_health"], drawn(rules, path)) == (2, 0, "*X____")
    soft = run(rules, path, "take_damage", "amount=1", "type=bashing")
    assert (soft["values"]["absorbed"], drawn(rules, path)) == (0, "*X/___")
    # "remain damaged if you deactivate or reactivate the power ... until [the next rest]"
    run(rules, path, "gain_temporary_health", "boxes=0")
    assert run(rules, path, "gain_temporary_health", "boxes=3")["values"]["temporary_health"] == 1
    assert run(rules, path, "rest")["values"]["temporary_health"] == 3
    all_absorbed = run(rules, path, "take_damage", "amount=2", "type=bashing")
    assert (all_absorbed["outcome"], drawn(rules, path)) == ("unharmed", "*X/___")


# --- willpower: N34 ----------------------------------------------------------------------------
def test_N34_willpower_is_resolve_plus_composure(rules, tmp_path):
    assert show(rules, write(tmp_path))["resources"]["willpower"] == {"value": 4, "max": 4}
    path = write(tmp_path, ("  Resolve: 2\n", "  Resolve: 4\n"), ("  willpower: 4 ", "  willpower: 6 "), name="b.yaml")
    assert show(rules, path)["resources"]["willpower"] == {"value": 6, "max": 6}


def test_N34_spent_willpower_adds_three_dice_to_the_next_action_once(rules, tmp_path):
    path = write(tmp_path)
    spent = run(rules, path, "spend_willpower")
    assert spent["values"] == {"willpower": 3, "bonus_dice": 3}
    assert refused(rules, path, "run", "nwod", "spend_willpower", "--sheet", str(path)) == \
        "Willpower is already spent on the next roll (one point a roll)"
    # Dexterity 3 + Medicine 4, +3 dice: 10 dice
    first = run(rules, path, "action", "pool=Dexterity", "skill=Medicine", dice="1,2,3,4,5,6,7,8,9,8")
    assert (first["rolls"][0]["expr"], first["values"]["successes"], first["values"]["willpower_dice"]) == \
        ("10d10x>=10cs>=8", 3, 3)
    assert first["changes"] == [{"path": "state.willpower_bonus", "old": True, "new": False}]
    second = run(rules, path, "action", "pool=Dexterity", "skill=Medicine", dice="1,2,3,4,5,6,7")
    assert (second["rolls"][0]["expr"], second["values"]["willpower_dice"], second["changes"]) == \
        ("7d10x>=10cs>=8", 0, [])


def test_N17_an_action_with_a_sheet_takes_the_wound_penalty(rules, tmp_path):
    path = write(tmp_path, health("XXXXX_"))   # second to last box filled: -2
    data = run(rules, path, "action", "pool=Dexterity", "skill=Medicine", dice="8,8,8,8,8")
    assert (data["rolls"][0]["expr"], data["values"]["wound_penalty"]) == ("5d10x>=10cs>=8", -2)


def test_N34_spending_at_zero_is_refused_and_regaining_follows_the_source(rules, tmp_path):
    path = write(tmp_path, ("  willpower: 4 ", "  willpower: 0 "))
    assert refused(rules, path, "run", "nwod", "spend_willpower", "--sheet", str(path)) == "no Willpower left to spend"
    assert run(rules, path, "regain_willpower", "source=vice")["values"] == {"willpower": 1, "regained_points": 1}
    assert run(rules, path, "rest")["values"]["willpower"] == 2
    assert run(rules, path, "regain_willpower", "source=virtue")["values"] == {"willpower": 4, "regained_points": 2}
    assert run(rules, path, "regain_willpower", "source=arc")["values"]["willpower"] == 4    # never above the max
    power = run(rules, path, "spend_willpower", "for_power=true")  # powering an ability gives no dice
    assert (power["values"], show(rules, path)["state"]["willpower_bonus"]) == ({"willpower": 3, "bonus_dice": 0}, False)


# --- experience: N12, N13 ----------------------------------------------------------------------
def test_N13_study_time_seed_example_nine_days_three_with_a_teacher(rules):
    # "raise your firearms from 2 to 3 you could do so for 9 EP and 9 days ... an instructor would cut it to 3"
    result = rules("run", "nwod", "study", "cost=9", "--json")
    assert json.loads(result.stdout)["values"] == {"days": 9, "days_with_source": 5, "days_with_teacher": 3,
                                                   "hours": 72}


@pytest.mark.parametrize("trait, start, dots, cost", [
    ("Firearms", 0, 1, 3),      # skill: new dots x 3
    ("Medicine", 4, 1, 15),
    ("Drive", 2, 2, 21),        # 3 x 3 + 4 x 3
    ("Wits", 3, 1, 20),         # attribute: new dots x 5
    ("Composure", 2, 2, 35),    # 3 x 5 + 4 x 5
])
def test_N12_buying_attributes_and_skills_costs_new_dots_times_5_or_3(rules, tmp_path, trait, start, dots, cost):
    path = write(tmp_path, ("  experience: 0\n", "  experience: 40\n"))
    data = run(rules, path, "buy", f"trait={trait}", f"dots={dots}")
    assert data["values"]["cost"] == cost
    assert data["values"]["experience"] == 40 - cost
    assert show(rules, path)["traits"][trait] == start + dots
    assert show(rules, path)["state"]["experience"] == 40 - cost


def test_N12_N13_buy_refuses_short_experience_and_reports_study_time(rules, tmp_path):
    path = write(tmp_path, ("  Firearms: 0\n", "  Firearms: 2\n"), ("  Drive: 2\n", "  Drive: 0\n"),
                 ("  experience: 0\n", "  experience: 8\n"))
    assert refused(rules, path, "run", "nwod", "buy", "trait=Firearms", "--sheet", str(path)) == \
        "not enough experience for that purchase"
    path.write_text(path.read_text().replace("experience: 8", "experience: 9"))
    data = run(rules, path, "buy", "trait=Firearms")
    assert data["values"] == {"cost": 9, "experience": 0, "rating": 3, "teacher_needs": 3, "study_days": 9,
                              "study_days_with_source": 5, "study_days_with_teacher": 3}


def test_N7_buy_stops_at_five_for_humans(rules, tmp_path):
    path = write(tmp_path, ("  experience: 0\n", "  experience: 99\n"))
    assert refused(rules, path, "run", "nwod", "buy", "trait=Medicine", "dots=2", "--sheet", str(path)) == \
        "a human's attributes and skills go no higher than 5"


@pytest.mark.parametrize("procedure, params, cost, changed", [
    ("buy_specialty", [], 3, {}),                                     # "Skill Specialty - 3 Points"
    ("buy_merit", ["rating=1", "dots=2"], 10, {}),                    # "New Dots x 2": 2 x 2 + 3 x 2
    ("buy_morality", [], 24, {"morality": 8}),                        # "New Dots x 3": 8 x 3
    ("buy_willpower", [], 8, {"willpower_bought": 1}),                # "8 Points/Dot"
])
def test_N12_specialties_merits_morality_and_willpower_cost_experience(rules, tmp_path, procedure, params, cost,
                                                                       changed):
    path = write(tmp_path, ("  experience: 0\n", "  experience: 30\n"))
    data = run(rules, path, procedure, *params)
    assert (data["values"]["cost"], data["values"]["experience"]) == (cost, 30 - cost)
    assert data["values"]["study_days"] == cost   # N13: a day per experience point
    state = show(rules, path)["state"]
    assert {k: state[k] for k in changed} == changed
    if procedure == "buy_willpower":
        assert show(rules, path)["resources"]["willpower"] == {"value": 5, "max": 5}
    poor = write(tmp_path, ("  experience: 0\n", "  experience: 2\n"), name="poor.yaml")
    assert refused(rules, poor, "run", "nwod", procedure, *params, "--sheet", str(poor)) == \
        "not enough experience for that purchase"


# --- the file: round trip, concurrency, crashes, bad input -------------------------------------
def test_round_trip_one_take_damage_changes_only_the_health_line(rules, tmp_path):
    path = write(tmp_path)
    before = path.read_text(encoding="utf-8").splitlines(keepends=True)
    run(rules, path, "take_damage", "amount=2", "type=bashing")
    after = path.read_text(encoding="utf-8").splitlines(keepends=True)
    changed = [(a, b) for a, b in zip(before, after, strict=False) if a != b]
    assert len(before) == len(after)
    assert changed == [("  health: [null, null, null, null, null, null]   # worst first\n",
                        "  health: [bashing, bashing, null, null, null, null]   # worst first\n")]
    assert (tmp_path / "vera.yaml.bak").read_text(encoding="utf-8") == "".join(before)


def test_twenty_processes_at_once_lose_no_damage(tmp_path):
    # Stamina 5: 12 boxes. 20 bashing fill 12 boxes, then 8 promote bashing to lethal: XXXXXXXX////.
    # Every lost update would leave a different mix, so the count proves all 20 were applied.
    path = write(tmp_path, ("  Stamina: 2\n", "  Stamina: 5\n"))
    cmd = [*RULES, "run", "nwod", "take_damage", "amount=1", "type=bashing", "--sheet", str(path)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=checkout_env())
             for _ in range(20)]
    try:
        errors = [p.communicate(timeout=120)[1] for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert [p.returncode for p in procs] == [0] * 20, errors
    assert stored_health(path) == ["lethal"] * 8 + ["bashing"] * 4


def test_a_write_killed_midway_leaves_the_old_sheet_whole(tmp_path):
    path = write(tmp_path)
    old = path.read_bytes()
    new = old.replace(b"health: [null, null", b"health: [lethal, null")
    slow = [sys.executable, str(Path(__file__).resolve().parent / "slow_write.py"), "2", "rules"]  # pauses twice
    proc = subprocess.Popen([*slow, "run", "nwod", "take_damage", "amount=1", "type=lethal", "--sheet", str(path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    caught = None
    try:
        deadline = time.monotonic() + 30
        while caught is None and proc.poll() is None and time.monotonic() < deadline:
            for tmp in tmp_path.glob(f".{path.name}{TEMP_MARK}*"):
                try:
                    if tmp.stat().st_size > 0:
                        caught = tmp
                except FileNotFoundError:
                    pass
            time.sleep(0.01)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=20)
    assert caught is not None, "the slow write was not seen"
    assert path.read_bytes() == old                       # killed mid-write: the old sheet, whole
    assert new.startswith(caught.read_bytes()) and len(caught.read_bytes()) < len(new)
    # the lock died with the process: the next run goes through and writes the new sheet
    done = subprocess.run([*RULES, "run", "nwod", "take_damage", "amount=1", "type=lethal", "--sheet", str(path)],
                          capture_output=True, timeout=60, check=False, env=checkout_env())
    assert done.returncode == 0, done.stderr
    assert path.read_bytes() == new
    assert not list(tmp_path.glob(f".{path.name}{TEMP_MARK}*"))  # and removed the killed writer's temporary file


BAD = [
    pytest.param([("  Stamina: 2\n", "  Stamina: two\n")], ["take_damage", "amount=1", "type=lethal"],
                 "{path}:11:12: $.traits.Stamina: trait 'Stamina' must be a whole number, not 'two'", id="invalid sheet"),
    pytest.param([(EMPTY6, "health: [lethal, burn]")], ["take_damage", "amount=1", "type=lethal"],
                 "{path}:51:20: $.state.health[1]: 'burn' is not a damage type of health (aggravated, lethal, bashing)",
                 id="unknown mark"),
    pytest.param([("name: Vera Lind\n", "name: [Vera\n")], ["take_damage", "amount=1", "type=lethal"],
                 "{path}:4:7: $.name: expected ',' or ']', but got ':' (while parsing a flow sequence "
                 "at line 3, column 7)", id="broken yaml"),
    pytest.param([], ["buy", "trait=Firearm"], "parameter 'trait': 'Firearm' is not a trait of nwod; did you mean "
                 "'Firearms'?", id="unknown trait"),
    pytest.param([], ["take_damage", "amount=-1", "type=lethal"], "parameter 'amount' is -1; the least allowed is 0",
                 id="negative amount"),
    pytest.param([], ["heal", "type=lethal", "amount=-2"], "parameter 'amount' is -2; the least allowed is 0",
                 id="negative heal"),
    pytest.param([], ["take_damage", "amount=1001", "type=lethal"], "parameter 'amount' is 1001; the most allowed is 1000",
                 id="more boxes than the loop limit"),
    pytest.param([("  experience: 0\n", "  experience: 50\n")], ["buy_merit", "rating=4", "dots=2"],
                 "a merit has at most 5 dots", id="a sixth merit dot"),
    pytest.param([], ["take_damage", "amount=1", "type=fire"],
                 "parameter 'type' must be one of bashing, lethal, aggravated, not 'fire'", id="unknown damage type"),
    pytest.param([("ruleset: nwod\n", "ruleset: lockwood\n")], ["take_damage", "amount=1", "type=lethal"],
                 "{path}:2:10: $.ruleset: the sheet is for ruleset 'lockwood', not 'nwod'", id="another ruleset"),
]


@pytest.mark.parametrize("edits, args, message", BAD)
def test_bad_input_changes_nothing(rules, tmp_path, edits, args, message):
    path = write(tmp_path, *edits)
    got = refused(rules, path, "run", "nwod", *args, "--sheet", str(path))
    assert got == message.format(path=path)


def test_odds_of_take_damage_with_a_sheet(rules, tmp_path):
    path = write(tmp_path, health("*XX//_"))
    result = rules("odds", "nwod", "take_damage", "amount=1", "type=lethal", "--sheet", str(path), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["exact"]["unconscious"] == "1/1"
    assert data["values"]["penalty"]["exact"] == {"-3": "1/1"}
    assert drawn(rules, path) == "*XX//_"   # odds never write


def test_dry_run_shows_the_change_and_writes_nothing(rules, tmp_path):
    path = write(tmp_path)
    before = path.read_bytes()
    result = rules("run", "nwod", "take_damage", "amount=1", "type=aggravated", "--sheet", str(path), "--dry-run")
    assert result.exit_code == 0, result.output
    assert "state.health: [null, null, null, null, null, null] -> [aggravated, null, null, null, null, null]" \
        in result.stdout
    assert path.read_bytes() == before


def test_N16_a_track_written_with_marks_is_written_back_with_marks(rules, tmp_path):
    path = write(tmp_path, health("*XX//_"))   # drawn with the track's marks, not type words
    run(rules, path, "take_damage", "amount=1", "type=lethal")
    written = load_text(path.read_text(), "vera.yaml").data["state"]["health"]
    assert written == ["*", "X", "X", "X", "/", "/"]
    assert drawn(rules, path) == "*XXX//"


# --- N10: a specialty on a sheet ---------------------------------------------------------------
def test_N10_an_action_with_a_specialty_needs_one_in_that_skill(rules, tmp_path):
    # Vera: Dexterity 3, Drive 2, Medicine 4; specialties in Medicine (twice) and Drive, none in Stealth
    path = write(tmp_path, ('"Drive: Ambulance"]', '"drive:  Ambulance"]'))
    got = run(rules, path, "action", "pool=Dexterity", "skill=Drive", "specialty=true", dice="8,8,8,8,8,8")
    assert got["values"]["successes"] == 6                        # 3 + 2 + the specialty's 1
    assert refused(rules, path, "run", "nwod", "action", "pool=Dexterity", "skill=Stealth", "specialty=true",
                   "--sheet", str(path)) == "the sheet has no specialty in that skill (choices.specialties, N10)"
    # a skill given as a number is the player's word, as without a sheet
    got = run(rules, path, "action", "pool=Dexterity", "skill=1", "specialty=true", dice="8,8,8,8,8")
    assert got["values"]["successes"] == 5


def test_N11_N12_a_merit_may_be_bought_up_to_its_fifth_dot(rules, tmp_path):
    """N12: merit new dots x 2; a merit has at most 5 dots (the published game's cap, the guide's ruling).

    From 3 dots, 2 more reach the fifth: new dots 4 and 5 cost 4 x 2 + 5 x 2 = 18."""
    path = write(tmp_path, ("  experience: 0\n", "  experience: 20\n"))
    got = run(rules, path, "buy_merit", "rating=3", "dots=2")
    assert (got["outcome"], got["values"]["cost"], got["values"]["experience"]) == ("bought", 18, 2)
    assert refused(rules, path, "run", "nwod", "buy_merit", "rating=5", "dots=1", "--sheet", str(path)) == \
        "a merit has at most 5 dots"


def test_N12_N37_morality_is_bought_up_to_10_and_no_further(rules, tmp_path):
    """N37/N38: the sin table rates acts 10 down to 1, so Morality tops out at 10; N12: the new dot x 3.

    From 9 the tenth dot costs 10 x 3 = 30; at 10 there is no dot to buy, and 10 is a legal sheet."""
    path = write(tmp_path, ("  morality: 7 ", "  morality: 9 "), ("  experience: 0\n", "  experience: 30\n"))
    got = run(rules, path, "buy_morality")
    assert (got["values"]["cost"], got["values"]["morality"], got["values"]["experience"]) == (30, 10, 0)
    assert rules("sheet", "check", str(path)).exit_code == 0
    assert refused(rules, path, "run", "nwod", "buy_morality", "--sheet", str(path)) == "Morality is at most 10"


@pytest.mark.parametrize("source, regained", [("virtue", 4), ("vice", 1), ("rest", 1), ("arc", 4)])
def test_N34_each_way_of_regaining_willpower_from_empty(rules, tmp_path, source, regained):
    """N34: the virtue (a session) and the end of a story arc restore all Willpower; the vice (a scene)
    and a rest one point. From 0 of Resolve 2 + Composure 2 = 4, so every row's effect shows."""
    path = write(tmp_path, ("  willpower: 4 ", "  willpower: 0 "))
    got = run(rules, path, "regain_willpower", f"source={source}")
    assert got["values"] == {"willpower": regained, "regained_points": regained}


@pytest.mark.parametrize("start, amount, promoted", [("______", 2, 0), ("XX____", 4, 0), ("XX____", 5, 1)])
def test_N18_only_damage_past_the_last_empty_box_promotes(rules, tmp_path, start, amount, promoted):
    """N18: promotion happens on a full track only: 4 bashing fill the 4 empty boxes of XX____ with
    nothing promoted; a fifth promotes one; 2 on an empty track promote none."""
    path = write(tmp_path, health(start))
    assert run(rules, path, "take_damage", f"amount={amount}", "type=bashing")["values"]["promoted"] == promoted


def test_N18_N21_damage_the_temporary_boxes_take_never_promotes(rules, tmp_path):
    """N21: temporary boxes take the first damage; N18: only what is left past the last empty box
    promotes. 2 temporary boxes and XX____: 5 bashing is 2 absorbed and 3 marked, one box left, none
    promoted."""
    path = write(tmp_path, health("XX____"))
    run(rules, path, "gain_temporary_health", "boxes=2")
    values = run(rules, path, "take_damage", "amount=5", "type=bashing")["values"]
    assert (values["absorbed"], values["promoted"], values["boxes_left"]) == (2, 0, 1)


def test_N20_heal_left_without_an_amount_clears_one_box(rules, tmp_path):
    """N20: healing goes a box at a time (one bashing box in 15 minutes); `heal` alone clears one."""
    path = write(tmp_path, health("X//___"))
    values = run(rules, path, "heal", "type=bashing")["values"]
    assert (values["boxes_healed"], values["minutes"]) == (1, 15)
    assert drawn(rules, path) == "X/____"


def test_N21_a_rest_clears_the_damage_the_temporary_boxes_took(rules, tmp_path):
    """N21: temporary boxes "remain damaged ... until the next rest": 2 boxes, 2 lethal absorbed; the
    power ended (boxes=0) leaves 0 undamaged; after a rest, 3 new boxes are 3 undamaged, not 3 - 2."""
    path = write(tmp_path)
    run(rules, path, "gain_temporary_health", "boxes=2")
    assert run(rules, path, "take_damage", "amount=2", "type=lethal")["values"]["absorbed"] == 2
    assert run(rules, path, "gain_temporary_health", "boxes=0")["values"]["temporary_health"] == 0
    run(rules, path, "rest")
    assert run(rules, path, "gain_temporary_health", "boxes=3")["values"]["temporary_health"] == 3


def test_N34_the_last_point_of_willpower_can_be_spent(rules, tmp_path):
    """N34: a point of Willpower buys 3 dice; the last point too (1 left -> 0)."""
    path = write(tmp_path, ("  willpower: 4 ", "  willpower: 1 "))
    assert run(rules, path, "spend_willpower")["values"] == {"willpower": 0, "bonus_dice": 3}


def test_N12_a_purchase_left_without_dots_or_rating_is_one_new_dot(rules, tmp_path):
    """N12: new dots x 3 for a skill, x 2 for a merit. Stealth 1 -> 2 costs 2 x 3 = 6; a new merit's
    first dot (rating 0 -> 1) costs 1 x 2 = 2. Left out, dots is 1 and a merit's rating is 0."""
    path = write(tmp_path, ("  experience: 0", "  experience: 20"))
    bought = run(rules, path, "buy", "trait=Stealth")["values"]
    assert (bought["rating"], bought["cost"], bought["experience"]) == (2, 6, 14)
    merit = run(rules, path, "buy_merit")["values"]
    assert (merit["cost"], merit["experience"]) == (2, 12)


def test_N13_a_purchase_of_no_experience_needs_no_study(rules):
    """N13: a day of study per experience point: 0 points, 0 days (and 0 hours)."""
    data = json.loads(rules("run", "nwod", "study", "cost=0", "--json").stdout)
    assert (data["values"]["days"], data["values"]["hours"], data["values"]["days_with_teacher"]) == (0, 0, 0)


def test_N11_N12_a_new_merit_may_be_bought_to_5_at_once_and_no_higher(rules, tmp_path):
    """N12: new dots x 2 for a merit; 0 -> 5 costs 2 x (1+2+3+4+5) = 30. Six dots are past the
    merit's five: refused as a parameter before anything is worked out, naming the 5."""
    path = write(tmp_path, ("  experience: 0", "  experience: 30"))
    assert run(rules, path, "buy_merit", "dots=5")["values"]["cost"] == 30
    message = refused(rules, path, "run", "nwod", "buy_merit", "dots=6", "--sheet", str(path))
    assert "dots" in message and "5" in message and "a merit has at most 5 dots" not in message



def test_N12_morality_may_be_bought_with_exactly_the_experience_it_costs(rules, tmp_path):
    """N12: Morality's new dots cost x 3: 7 -> 8 is 24 experience; 24 is enough and leaves 0, 23 is not."""
    path = write(tmp_path, ("  experience: 0", "  experience: 24"))
    values = run(rules, path, "buy_morality")["values"]
    assert (values["cost"], values["experience"], values["morality"]) == (24, 0, 8)
    short = write(tmp_path, ("  experience: 0", "  experience: 23"), name="short.yaml")
    assert refused(rules, short, "run", "nwod", "buy_morality", "--sheet", str(short)) == \
        "not enough experience for that purchase"


def test_N12_a_purchase_of_no_dots_is_refused(rules, tmp_path):
    """N12 prices new dots: buying 0 dots is no purchase, refused as a parameter below its least (1)."""
    path = write(tmp_path, ("  experience: 0", "  experience: 20"))
    message = refused(rules, path, "run", "nwod", "buy", "trait=Stealth", "dots=0", "--sheet", str(path))
    assert "dots" in message and "1" in message


def test_N12_N34_a_bought_dot_of_willpower_costs_8_and_adds_one_point(rules, tmp_path):
    """N12: "Willpower - 8 Points/Dot". With exactly 8 experience, a dot is bought: the most rises
    from 4 (Resolve 2 + Composure 2) to 5 and the current points from 2 to 3, one new point."""
    path = write(tmp_path, ("  experience: 0", "  experience: 8"), ("  willpower: 4 ", "  willpower: 2 "))
    values = run(rules, path, "buy_willpower")["values"]
    assert (values["cost"], values["experience"], values["willpower"]) == (8, 0, 3)
    assert show(rules, path)["resources"]["willpower"] == {"value": 3, "max": 5}


def test_N12_N21_N35_N37_a_new_character_has_no_experience_and_morality_may_fall_to_0(rules, tmp_path):
    """A new character has spent nothing and has earned nothing yet: 0 experience (N12's purchases
    come later), Morality 7 (N35). Morality runs down to 0 (N37's table reaches rating 1 acts), so a
    sheet at Morality 0 still passes the standing rules."""
    path = tmp_path / "new.yaml"
    assert rules("sheet", "new", "nwod", "-o", str(path)).exit_code == 0
    state = show(rules, path)["state"]
    assert (state["experience"], state["morality"]) == (0, 7)
    # nothing bought, no Willpower spent, no power granting temporary boxes (N21), not yet in play (N35)
    assert [state[k] for k in ("willpower_bought", "willpower_bonus", "temporary_health", "temporary_health_max",
                               "temporary_health_damaged", "in_play")] == [0, False, 0, 0, 0, False]
    fallen = write(tmp_path, ("  morality: 7 ", "  morality: 0 "), name="fallen.yaml")
    result = rules("sheet", "check", str(fallen))
    assert (result.exit_code, result.stdout.strip()) == (0, f"{fallen}: valid")


def test_N12_a_skill_dot_may_be_bought_with_exactly_its_price(rules, tmp_path):
    """N12: new dots x 3 for a skill: Stealth 1 -> 2 is 6 experience; 6 is enough and leaves 0."""
    path = write(tmp_path, ("  experience: 0", "  experience: 6"))
    values = run(rules, path, "buy", "trait=Stealth", "dots=1")["values"]
    assert (values["cost"], values["experience"], values["rating"]) == (6, 0, 2)


def test_N11_N12_a_merit_rated_0_to_5_and_no_more(rules, tmp_path):
    """N12: a new merit (rating 0) costs 2 for its first dot; a merit has at most 5 dots, so a
    rating of 6 is refused as a parameter, before the purchase is worked out."""
    path = write(tmp_path, ("  experience: 0", "  experience: 20"))
    assert run(rules, path, "buy_merit", "rating=0", "dots=1")["values"]["cost"] == 2
    message = refused(rules, path, "run", "nwod", "buy_merit", "rating=6", "--sheet", str(path))
    assert "rating" in message and "5" in message and "a merit has at most 5 dots" not in message


def test_N35_morality_sold_down_to_5_and_no_further_at_creation(rules, tmp_path):
    """N35: Morality starts at 7 and "can be sold down to 5": a new character at 5 passes the
    creation rules, one at 4 does not."""
    at_five = write(tmp_path, ("  morality: 7 ", "  morality: 5 "), name="five.yaml")
    result = rules("sheet", "check", str(at_five), "--creation")
    assert (result.exit_code, result.stdout.strip()) == (0, f"{at_five}: valid")
    at_four = write(tmp_path, ("  morality: 7 ", "  morality: 4 "), name="four.yaml")
    assert rules("sheet", "check", str(at_four), "--creation").exit_code == 1


@pytest.mark.parametrize("drawn, status", [("______", []), ("XXX___", []), ("XXXX__", ["wounded"])])
def test_N17_wounded_only_once_a_wound_penalty_applies(rules, tmp_path, drawn, status):
    """N17: the penalties (-1, -2, -3) start at the third box from the right; an unhurt character,
    or one with only the first boxes filled, takes no penalty and is not wounded."""
    assert show(rules, write(tmp_path, health(drawn)))["status"] == status


@pytest.mark.parametrize("procedure, params, cost", [
    ("buy_specialty", [], 3),                     # "Skill Specialty - 3 Points"
    ("buy_merit", ["rating=1", "dots=2"], 10),    # "New Dots x 2": 2 x 2 + 3 x 2
    ("buy_willpower", [], 8),                     # "8 Points/Dot"
])
def test_N12_each_purchase_may_spend_the_last_point_of_experience(rules, tmp_path, procedure, params, cost):
    """N12: experience equal to the price is enough, and leaves 0."""
    path = write(tmp_path, ("  experience: 0\n", f"  experience: {cost}\n"))
    assert run(rules, path, procedure, *params)["values"]["experience"] == 0
