"""Issue 16: derived values may read the sheet's state values; wwn's PC saves (W7) are such values.

Expected saves come from the published rule written out here (16 - level - the better modifier
of the pair, modifiers from the published table), not from rulesets/wwn.yaml.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest
from helpers import show_sheet as show

from interpreter.load.bundled import rulesets_dir

PUBLISHED_MODS = {3: -2, **{s: -1 for s in range(4, 8)}, **{s: 0 for s in range(8, 14)},
                  **{s: 1 for s in range(14, 18)}, 18: 2}
PAIRS = {"physical": ("STR", "CON"), "evasion": ("DEX", "INT"), "mental": ("WIS", "CHA"), "luck": ()}

HOUSE = """\
extends: wwn
ruleset: wwn-house
procedures:
  pc_save:
    sheet: optional
  level_up:
    summary: One more level.
    sheet: required
    outcomes: {done: done}
    values: {level: the new level, mental_save: the Mental save after}
    steps:
      - update: {level: level + 1}
      - decide: [{outcome: done}]
"""


def published_save(kind: str, traits: dict[str, int], level: int) -> int:
    mods = [PUBLISHED_MODS[traits[t]] for t in PAIRS[kind]]
    return 16 - level - (max(mods) if mods else 0)


def sheet(rules, tmp_path: Path, ruleset: str = "wwn", level: int = 2, **traits: int) -> Path:
    path = tmp_path / "pc.yaml"
    if path.exists():
        path.unlink()
    assert rules("sheet", "new", "wwn", "-o", str(path)).exit_code == 0
    text = path.read_text(encoding="utf-8").replace("ruleset: wwn\n", f"ruleset: {ruleset}\n")
    text = re.sub(r"^(  level: )\d+", rf"\g<1>{level}", text, flags=re.MULTILINE)
    for name, value in traits.items():
        text = re.sub(rf"^(  {name}: )\d+", rf"\g<1>{value}", text, flags=re.MULTILINE)
    path.write_text(text, encoding="utf-8")
    return path


TRAITS = {"STR": 14, "CON": 18, "DEX": 6, "INT": 9, "WIS": 3, "CHA": 15}


@pytest.mark.parametrize("level", [1, 2, 5])
def test_W7_sheet_show_lists_the_four_saves_as_derived_values(rules, tmp_path, level):
    shown = show(rules, sheet(rules, tmp_path, level=level, **TRAITS))
    for kind in PAIRS:
        assert shown["derived"][f"{kind}_save"] == published_save(kind, TRAITS, level), kind


@pytest.mark.parametrize("kind", list(PAIRS))
def test_W7_pc_save_rolls_against_the_derived_save_with_exact_odds(rules, tmp_path, kind):
    path = sheet(rules, tmp_path, **TRAITS)
    result = rules("odds", "wwn", "pc_save", f"kind={kind}", "--sheet", str(path), "--json")
    assert result.exit_code == 0, result.output
    target = published_save(kind, TRAITS, 2)
    success = sum(Fraction(1, 20) for roll in range(1, 21) if roll >= target)
    assert Fraction(json.loads(result.stdout)["exact"]["success"]) == success


def test_W7_a_derived_value_follows_an_update_of_the_state_it_reads(rules, tmp_path):
    house = tmp_path / "house.yaml"
    house.write_text(HOUSE, encoding="utf-8")
    path = sheet(rules, tmp_path, ruleset="house.yaml", level=1, **TRAITS)
    result = rules("run", str(house), "level_up", "--sheet", str(path), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["values"] == {"level": 2, "mental_save": published_save("mental", TRAITS, 2)}
    assert show(rules, path)["derived"]["mental_save"] == published_save("mental", TRAITS, 2)


def test_W7_without_a_sheet_a_derived_value_of_sheet_state_is_a_one_line_error(rules, tmp_path):
    house = tmp_path / "house.yaml"
    house.write_text(HOUSE, encoding="utf-8")
    text = (rulesets_dir() / "wwn.yaml").read_text(encoding="utf-8")
    lines = text.splitlines()
    line = next(i for i, x in enumerate(lines) if "mental_save if kind == 3" in x)
    col = lines[line].index("mental_save if") + 1
    result = rules("run", str(house), "pc_save", "kind=mental", "--dice", "10")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [(
        f"wwn (bundled):{line + 1}:{col}: $.procedures.pc_save.steps[0].let.target: 'mental_save' needs a sheet: "
        "it is a derived value that reads sheet state (level); give --sheet FILE")]
    path = sheet(rules, tmp_path, ruleset="house.yaml", **TRAITS)
    given = rules("run", str(house), "pc_save", "kind=mental", "--sheet", str(path), "--dice", "13", "--json")
    assert json.loads(given.stdout)["values"] == {"target": 13, "roll": 13}


def test_a_state_default_may_not_use_a_derived_value_of_state(rules, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(HOUSE.replace("procedures:\n", "sheet:\n  state:\n    grit: {type: int, default: luck_save}\n"
                                 "procedures:\n"), encoding="utf-8")
    result = rules("validate", str(bad))
    assert result.exit_code == 1
    lines = bad.read_text(encoding="utf-8").splitlines()
    line = next(i for i, x in enumerate(lines) if "grit:" in x)
    assert result.output.strip().splitlines() == [(
        f"{bad}:{line + 1}:{lines[line].index('luck_save') + 1}: $.sheet.state.grit.default: the default of state "
        "value 'grit' uses derived value 'luck_save', which reads sheet state (level); "
        "a default may use traits and the derived values of traits only")]


def test_the_format_guide_example_of_a_derived_value_of_state(rules, tmp_path):
    guide = (Path(__file__).resolve().parent.parent / "docs" / "format.md").read_text(encoding="utf-8")
    block = next(b for b in guide.split("```yaml\n")[1:] if "physical_save" in b).split("```")[0]
    ruleset = tmp_path / "saves.yaml"
    ruleset.write_text(
        "ruleset: saves\ntitle: Saves\nconstants: {save_base: 16}\n"
        "traits: {STR: {default: 14}, CON: {default: 9}}\n"
        + block.replace("derived:\n", "derived:\n  STR_mod: (STR - 10) // 2\n  CON_mod: (CON - 10) // 2\n")
        + "procedures:\n  show:\n    sheet: required\n    outcomes: {done: done}\n    values: {physical_save: the save}\n"
          "    steps: [{decide: [{outcome: done}]}]\n", encoding="utf-8")
    assert rules("validate", str(ruleset)).exit_code == 0
    pc = tmp_path / "pc.yaml"
    pc.write_text("ruleset: saves.yaml\nname: A\ntraits: {STR: 14, CON: 9}\nstate: {level: 3}\n", encoding="utf-8")
    result = rules("run", str(ruleset), "show", "--sheet", str(pc), "--json")
    assert json.loads(result.stdout)["values"] == {"physical_save": 16 - 3 - 2}


def test_W7_sampling_without_a_sheet_gives_the_same_one_line_error(tmp_path):
    """Many runs at once (interpreter.sample) report reading the save without a sheet as one run does."""
    import interpreter
    from interpreter.errors import RulesError

    house = tmp_path / "house.yaml"
    house.write_text(HOUSE, encoding="utf-8")
    house.write_text(HOUSE + """\
  low_save:
    sheet: optional
    outcomes: {low: low, high: high}
    steps:
      - roll: {d: 1d6}
      - decide: [{when: mental_save == d, outcome: low}, {outcome: high}]
""", encoding="utf-8")
    for procedure, params in (("pc_save", {"kind": "mental"}), ("low_save", {})):
        with pytest.raises(RulesError) as caught:
            interpreter.sample(house, procedure, params, times=5, seed=1)
        assert str(caught.value).endswith("'mental_save' needs a sheet: it is a derived value that reads sheet state "
                                          "(level); give sheet= (a sheet file's path)"), procedure  # library words
    counted = interpreter.sample(house, "save", {"target": 11}, times=50, seed=1)  # reads no save: counted
    assert sum(counted.outcomes.values()) == 50
