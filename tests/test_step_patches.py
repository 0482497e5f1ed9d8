"""Overlays that change one step without copying its list: named steps replaced (merged), removed or
inserted around, nested steps reached by name, lists appended to; every error located in the file that
wrote it, with a suggestion for a misspelt name; and the two house rules of issue #32 in a few lines."""

from __future__ import annotations

import itertools
import json
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter.errors import Invalid
from interpreter.load.bundled import schema_path
from interpreter.load.patches import NESTED
from interpreter.pipeline import compile_ref

sys.path.insert(0, str(Path(__file__).parent))
from helpers import odds, run_given

BASE = """ruleset: demo
title: Demo
constants: {bonus: 2}
tables:
  loot:
    die: 1d2
    rows:
      - {on: 1, outcome: copper}
      - {on: 2, outcome: silver}
procedures:
  check:
    params:
      stat: {type: int, default: 3}
    outcomes: {crit: rolled best, hit: rolled well, miss: rolled badly}
    values: {total: the total, note: a note}
    steps:
      - name: die
        roll: {r: 1d6}
      - name: total
        let: {total: r + stat + bonus, spare: 0}
      - name: outcome
        decide: [{when: total >= 8, outcome: hit}, {outcome: miss}]
      - name: after
        if: outcome == hit
        then:
          - name: hit_note
            let: {note: 1}
        else:
          - name: miss_note
            let: {note: 0}
"""


@pytest.fixture
def base(tmp_path: Path) -> Path:
    (tmp_path / "demo.yaml").write_text(BASE, encoding="utf-8")
    return tmp_path


def overlay(folder: Path, text: str, name: str = "house.yaml") -> Path:
    path = folder / name
    path.write_text("ruleset: house\nextends: demo.yaml\n" + text, encoding="utf-8")
    return path


def steps_of(path: Path, procedure: str = "check") -> list[tuple[str | None, str]]:
    return [(step.name, step.kind) for step in compile_ref(str(path)).procedures[procedure].steps]


def error_of(path: Path) -> str:
    with pytest.raises(Invalid) as caught:
        compile_ref(str(path))
    return "\n".join(f"{p.where}: {p.where.path}: {p.message}" + (f"; {p.hint}" if p.hint else "")
                     for p in caught.value.problems)


def test_a_named_step_is_merged_with_its_patch_and_the_rest_of_the_list_is_kept(base: Path) -> None:
    source = overlay(base, "procedures:\n  check:\n    steps:\n      total: {let: {total: r + stat}}\n")
    expected = Fraction(2, 6)  # r + 3 >= 8: r is 5 or 6 (the bonus of 2 is gone)
    got = odds(source, "check", {}).outcomes["hit"]
    assert got == expected
    assert steps_of(source) == [("die", "roll"), ("total", "let"), ("outcome", "decide"), ("after", "if")]
    kept = [a.name for a in compile_ref(str(source)).procedures["check"].steps[1].spec.assign]
    assert kept == ["total", "spare"]  # merged onto the step, not replacing it


def test_null_removes_a_named_step(base: Path) -> None:
    source = overlay(base, "procedures:\n  check:\n    values: {note: null}\n    steps:\n      after: null\n")
    assert steps_of(source) == [("die", "roll"), ("total", "let"), ("outcome", "decide")]


def test_steps_are_inserted_before_and_after_a_named_step(base: Path) -> None:
    source = overlay(base, "procedures:\n  check:\n    steps:\n      total:\n"
                           "        before: [{let: {stat: stat * 2}}]\n"
                           "        after: [{name: lucky, let: {total: total + 1}}]\n")
    assert steps_of(source) == [("die", "roll"), (None, "let"), ("total", "let"), ("lucky", "let"),
                                ("outcome", "decide"), ("after", "if")]
    expected = Fraction(sum(1 for r in range(1, 7) if r + 6 + 2 + 1 >= 8), 6)
    assert odds(source, "check", {}).outcomes["hit"] == expected
    assert run_given(source, "check", {"stat": 1}, [4]).values["total"] == 4 + 2 + 2 + 1


def test_a_nested_step_is_found_by_its_name(base: Path) -> None:
    source = overlay(base, "procedures:\n  check:\n    steps:\n      miss_note: {let: {note: -1}}\n"
                           "      hit_note: {after: [{let: {note: note + 10}}]}\n")
    assert run_given(source, "check", {"stat": 0}, [1]).values["note"] == -1
    assert run_given(source, "check", {"stat": 6}, [6]).values["note"] == 11


def test_a_decide_and_a_table_are_added_to_without_copying_them(base: Path) -> None:
    source = overlay(base, "procedures:\n  check:\n    outcomes: {crit: rolled best}\n    steps:\n"
                           "      outcome: {decide: {prepend: [{when: r == 6, outcome: crit}]}}\n"
                           "tables:\n  loot:\n    die: 1d3\n    rows: {append: [{on: 3, outcome: gold}]}\n")
    got = odds(source, "check", {"stat": 0}).outcomes
    assert (got["crit"], got.get("hit", 0)) == (Fraction(1, 6), 0)  # 6 + 0 + 2 < 8: only the new branch decides
    rows = compile_ref(str(source)).tables["loot"]
    assert [row.outcome for row in rows.rows] == ["copper", "silver", "gold"]


def test_a_misspelt_step_name_is_one_located_error_with_a_suggestion(base: Path) -> None:
    source = overlay(base, "procedures:\n  check:\n    steps:\n      totl: null\n")
    assert error_of(source) == (f"{source}:6:7: $.procedures.check.steps.totl: no step named 'totl' in check; "
                                "did you mean 'total'?")


def test_a_patch_of_a_procedure_the_base_lacks_is_refused_with_a_suggestion(base: Path) -> None:
    source = overlay(base, "procedures:\n  chek:\n    steps:\n      total: null\n")
    assert error_of(source) == (f"{source}:4:3: $.procedures.chek: no procedure 'chek' in 'demo' to change; "
                                "did you mean 'check'?")


def test_two_steps_of_one_procedure_may_not_share_a_name(base: Path) -> None:
    source = overlay(base, "procedures:\n  check:\n    steps:\n      die: {after: [{name: total, let: {x: 1}}]}\n")
    expected = (f"{base / 'demo.yaml'}:19:15: $.procedures.check.steps[2].name: procedure 'check' has two steps "
                f"named 'total'; the other is at {source}:6:21; step names are unique within a procedure")
    assert error_of(source) == expected


def test_an_error_in_an_inserted_step_points_at_the_overlay_and_one_in_an_inherited_step_at_the_base(
        base: Path) -> None:
    source = overlay(base, "procedures:\n  check:\n    steps:\n      die:\n"
                           "        before: [{let: {a: 1}}, {let: {b: nowhere}}]\n")
    assert error_of(source).startswith(f"{source}:7:43: $.procedures.check.steps[1].let.b: unknown name 'nowhere'")
    broken = base / "demo.yaml"
    broken.write_text(BASE.replace("r + stat + bonus", "r + stat + bonnus"), encoding="utf-8")
    assert error_of(source).splitlines()[1] == (f"{broken}:20:33: $.procedures.check.steps[3].let.total: "
                                                "unknown name 'bonnus'; did you mean 'bonus'?")


def test_the_nested_step_lists_the_patches_walk_are_those_of_the_schema() -> None:
    schema = json.loads(schema_path().read_text(encoding="utf-8"))
    keys = {key for branch in schema["$defs"]["step"]["oneOf"] for key, value in branch["properties"].items()
            if value.get("items", {}).get("$ref") == "#/$defs/step"}
    assert keys == set(NESTED)


# -- the house rules of issue #32 (rollunder's: tests/test_rollunder_critical_low.py) -------------------------

SHOCK_ON_A_20 = """ruleset: wwn_shock20
extends: wwn
procedures:
  attack:
    steps:
      shock:
        after:
          - let: {shock_damage: "shock_damage * 2 if natural >= critwin else shock_damage"}
"""



def _lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip())


def _wwn_attack_oracle(shock_doubles: bool) -> dict[tuple[str, int], Fraction]:
    """The attack of WWN (W20-W23) counted by hand over d20 x d6: bonus 3, AC 14, damage 1d6+1, Shock 2 to AC 15."""
    bonus, ac, damage_bonus, shock, shock_ac = 3, 14, 1, 2, 15
    out: dict[tuple[str, int], Fraction] = {}
    for natural, rolled in itertools.product(range(1, 21), range(1, 7)):
        shock_damage = shock + damage_bonus
        if shock_doubles and natural == 20:
            shock_damage *= 2
        reaches = ac <= shock_ac
        hit = natural != 1 and (natural == 20 or natural + bonus >= ac)
        damage = max(rolled + damage_bonus, shock_damage if reaches else 0) if hit else shock_damage if reaches else 0
        key = ("hit" if hit else "miss", damage)
        out[key] = out.get(key, Fraction(0)) + Fraction(1, 120)
    return out


@pytest.mark.parametrize("doubles", [False, True])
def test_wwn_shock_doubles_on_a_natural_20_as_counted_by_hand(tmp_path: Path, doubles: bool) -> None:
    source = tmp_path / "shock20.yaml"
    source.write_text(SHOCK_ON_A_20, encoding="utf-8")
    assert _lines(SHOCK_ON_A_20) <= 8
    params = {"bonus": 3, "ac": 14, "damage": "1d6", "damage_bonus": 1, "shock": 2, "shock_ac": 15}
    ref = source if doubles else "wwn"
    got = odds(ref, "attack", params)
    expected = _wwn_attack_oracle(doubles)
    for outcome in ("hit", "miss"):
        assert got.outcomes.get(outcome, 0) == sum(p for (o, _), p in expected.items() if o == outcome)
    damage: dict[int, Fraction] = {}
    for (_, d), p in expected.items():
        damage[d] = damage.get(d, Fraction(0)) + p
    assert {d: p for d, p in got.values["damage"].items() if p} == damage
    assert run_given(ref, "attack", params, [20, 1]).values["damage"] == (6 if doubles else 3)
    assert run_given(ref, "attack", params, [19, 1]).values["damage"] == 3  # no 20: the Shock of 3 does not double


# -- the examples of docs/format.md ------------------------------------------------------------------------

def _doc_example(start: str) -> str:
    doc = (Path(__file__).resolve().parent.parent / "docs" / "format.md").read_text(encoding="utf-8")
    return start + doc.split("```yaml\n" + start, 1)[1].split("```", 1)[0]


def test_the_docs_shock_example_is_the_house_rule_tested_here() -> None:
    example = _doc_example("# wwn: Shock doubles on a natural 20\n")
    strip = [line.split("#")[0].rstrip() for line in example.splitlines() if line.split("#")[0].strip()]
    ours = [line for line in SHOCK_ON_A_20.splitlines() if line.strip()]
    assert sorted(strip) == sorted(line.replace("wwn_shock20", "wwn-shock20") for line in ours)


def test_the_docs_lockwood_example_removes_the_least_crit_damage_and_the_luck_cap(tmp_path: Path) -> None:
    source = tmp_path / "gritty.yaml"
    source.write_text(_doc_example("extends: lockwood\nruleset: lockwood-gritty\n"), encoding="utf-8")
    names = [step.name for step in compile_ref(str(source)).procedures["attack"].steps]
    assert "damage" in names
    params = {"attack": 12, "defense": 10}
    # a natural 20 against a natural 19: a crit decides; the margin is 32 - 29 = 3 (lockwood gives at least its least)
    assert run_given(source, "attack", params, [20, 19]).values["damage"] == 3
    # 4 luck points rolling 3 on their d4: a margin of 9 + 12 + 3 - (10 + 10) = 4, no longer capped at 1 + 2
    lucky = {**params, "luck": 4}
    assert run_given(source, "attack", lucky, [9, 10, 3]).values["damage"] == 4
    assert run_given("lockwood", "attack", lucky, [9, 10, 3]).values["damage"] == 3


def test_the_docs_rollunder_example_adds_a_row_and_a_first_branch(tmp_path: Path) -> None:
    source = tmp_path / "lucky.yaml"
    source.write_text(_doc_example("extends: rollunder\nruleset: rollunder-lucky\n"), encoding="utf-8")
    assert odds(source, "zero_hp", {}).outcomes["standing"] == Fraction(3, 8)
    got = odds(source, "defend", {"stat": 12, "incoming": 6}).outcomes
    assert (got["stumbled"], got["failed"]) == (Fraction(1, 20), Fraction(7, 20))


def test_the_overlay_schema_an_editor_uses_takes_the_patch_forms() -> None:
    import jsonschema

    from interpreter.load.yaml import load_text

    checker = jsonschema.Draft202012Validator(json.loads(schema_path("overlay.schema.json").read_text(encoding="utf-8")))
    for text in (SHOCK_ON_A_20, _doc_example("extends: rollunder\nruleset: rollunder-lucky\n"),
                 _doc_example("extends: lockwood\nruleset: lockwood-gritty\n")):
        assert list(checker.iter_errors(load_text(text).data)) == []
    wrong = SHOCK_ON_A_20.replace("after:", "aftr:")
    assert list(checker.iter_errors(load_text(wrong).data)) != []


def test_the_diff_names_the_steps_that_changed(rules, tmp_path: Path) -> None:
    source = tmp_path / "gritty.yaml"
    source.write_text(_doc_example("extends: lockwood\nruleset: lockwood-gritty\n"), encoding="utf-8")
    result = rules("diff", "lockwood", str(source), "attack", "attack=12", "defense=10", "--json")
    assert result.exit_code == 0, result.stderr
    got = {(c["path"], c["kind"]) for c in json.loads(result.stdout)["changes"]}
    assert got == {("$.procedures.attack.steps[damage].let.damage", "changed"),
                   ("$.procedures.attack.steps[crit_decision].then[crit_damage]", "removed")}
    described = rules("describe", str(source)).stdout
    assert "- `$.procedures.attack.steps[crit_damage]` (removed)" in described
    assert "- `$.procedures.attack.steps[damage]` (changed)" in described


def test_an_exported_overlay_lists_the_named_steps_and_its_example_patch_works(rules, tmp_path: Path) -> None:
    result = rules("export", "wwn", "--overlay", "house")
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert "#   attack: hit_roll, shock, hit_decision, damage, damage_roll, hit_damage, miss_damage\n" in text
    block = text.split("# Change one step by its name", 1)[1].split("# The named steps", 1)[0]
    patch = "# procedures:" + block.split("# procedures:", 1)[1]
    source = tmp_path / "house.yaml"
    uncommented = "".join(line[2:] + "\n" for line in patch.splitlines())
    source.write_text("extends: wwn\nruleset: house\n" + uncommented, encoding="utf-8")
    steps = compile_ref(str(source)).procedures["skill_check"].steps
    assert [step.name for step in steps] == ["check_roll", "total", "outcome", None]


def test_describe_shows_each_step_name_and_the_step_stays_placed_at_its_kind(rules) -> None:
    result = rules("describe", "wwn", "attack")
    assert result.exit_code == 0, result.stderr
    assert "2. [shock] Set `shock_damage` to" in result.stdout
    assert "   1. [damage_roll] Roll `damage` into `rolled`." in result.stdout
    step = compile_ref("wwn").procedures["attack"].steps[1]
    lines = (Path(__file__).resolve().parent.parent / "rulesets" / "wwn.yaml").read_text(encoding="utf-8").splitlines()
    assert lines[step.where.line - 1].strip() == "let:"  # not the `- name: shock` line above it


def test_a_chain_of_overlays_patches_the_steps_an_earlier_one_inserted_and_places_each_error(base: Path) -> None:
    first = overlay(base, "procedures:\n  check:\n    steps:\n      die: {after: [{name: extra, let: {e: 1}}]}\n",
                    "first.yaml")
    second = base / "second.yaml"
    second.write_text("ruleset: second\nextends: first.yaml\nprocedures:\n  check:\n    steps:\n"
                      "      extra: {let: {e: 2}}\n      outcome: {before: [{let: {f: nowhere}}]}\n",
                      encoding="utf-8")
    message = error_of(second)
    assert message.splitlines()[0] == f"{second}:7:36: $.procedures.check.steps[3].let.f: unknown name 'nowhere'"
    second.write_text(second.read_text(encoding="utf-8").replace("nowhere", "e"), encoding="utf-8")
    assert [name for name, _ in steps_of(second)] == ["die", "extra", "total", None, "outcome", "after"]
    first.write_text(first.read_text(encoding="utf-8").replace("{e: 1}", "{e: 1, g: nowhere}"), encoding="utf-8")
    assert error_of(second).startswith(f"{first}:6:50: $.procedures.check.steps[1].let.g: unknown name 'nowhere'")


def test_steps_may_be_appended_to_a_procedure_without_naming_one(base: Path) -> None:
    source = overlay(base, "procedures:\n  check:\n    steps:\n      append: [{let: {note: note + 100}}]\n"
                           "      prepend: [{let: {stat: 0}}]\n")
    assert [name for name, _ in steps_of(source)] == [None, "die", "total", "outcome", "after", None]
    assert run_given(source, "check", {"stat": 6}, [6]).values["note"] == 101  # 6 + 0 + 2 >= 8: a hit, noted 1


def test_a_patch_of_the_wrong_shape_is_located_and_says_what_fits(base: Path) -> None:
    source = overlay(base, "procedures:\n  check:\n    steps:\n      die: {after: {let: {a: 1}}}\n      total: 3\n"
                           "      nothing_like_it: null\n")
    assert error_of(source).splitlines() == [
        f"{source}:6:20: $.procedures.check.steps.die.after: 'after' takes a list of steps",
        (f"{source}:7:14: $.procedures.check.steps.total: step 'total' is changed by a mapping: its keys merged onto "
        "the step, or before: and after: lists of steps to insert; null removes the step"),
        (f"{source}:8:7: $.procedures.check.steps.nothing_like_it: no step named 'nothing_like_it' in check; "
        "its named steps: die, total, outcome, after, hit_note, miss_note")]
