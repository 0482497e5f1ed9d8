"""Final states (sheet.final): a sheet in a state that ends play is refused by every procedure, on every
path, unless the procedure lists the state under acts_on_final; `rules sheet check` reports it (L19, N19)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import one_line_error, refused_on_sheet
from helpers import show_sheet as show

from interpreter.errors import RulesError

DEAD = "the character is dead"


def new_sheet(rules, tmp_path: Path, ruleset_id: str, name: str = "pc.yaml") -> Path:
    path = tmp_path / name
    result = rules("sheet", "new", ruleset_id, "-o", str(path), "--name", "PC")
    assert result.exit_code == 0, result.output
    return path


def run_json(rules, ruleset_id: str, sheet: Path, *args: str) -> dict:
    result = rules("run", ruleset_id, *args, "--sheet", str(sheet), "--json")
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.stdout))


def dead_lockwood(rules, tmp_path: Path) -> Path:
    path = new_sheet(rules, tmp_path, "lockwood")
    assert run_json(rules, "lockwood", path, "take_damage", "amount=40")["outcome"] == "dead"
    return path


def test_L19_after_take_damage_40_rest_never_brings_the_dead_back(rules, tmp_path):
    path = dead_lockwood(rules, tmp_path)
    before = path.read_bytes()
    for _ in range(15):
        message = refused_on_sheet(rules, "lockwood", path, "rest")
        assert DEAD in message and "procedure 'rest'" in message
    assert path.read_bytes() == before
    shown = show(rules, path)
    assert (shown["tracks"]["hp"]["current"], shown["tracks"]["hp"]["max"]) == (0, 0)
    assert "dead" in shown["status"] and shown["status"] != ["fine"]


def test_L19_the_refusal_is_one_line_located_at_max_hp(rules, tmp_path):
    path = dead_lockwood(rules, tmp_path)
    message = refused_on_sheet(rules, "lockwood", path, "rest")
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if text.strip().startswith("hp:"))
    assert message.startswith(f"{path}:{line}:")
    assert "$.state.hp.max: the character is dead: max HP is 0" in message
    assert message.endswith("acts_on_final: [dead]")


def test_L19_sheet_check_reports_the_final_state_in_text_and_json(rules, tmp_path):
    path = dead_lockwood(rules, tmp_path)
    text = rules("sheet", "check", str(path))
    assert text.exit_code == 0
    assert text.stdout.splitlines() == [
        f"{path}: valid",
        f"{path}: final state 'dead': no procedure acts on the sheet unless it lists acts_on_final: [dead]"]
    data = json.loads(rules("sheet", "check", str(path), "--json").stdout)
    assert (data["valid"], data["final"]) == (True, ["dead"])
    alive = new_sheet(rules, tmp_path, "lockwood", "alive.yaml")
    assert json.loads(rules("sheet", "check", str(alive), "--json").stdout)["final"] == []
    assert rules("sheet", "check", str(alive)).stdout == f"{alive}: valid\n"


@pytest.mark.parametrize("args", [
    ("run", "lockwood", "check", "stat=STR", "dc=10", "--dice", "15"),   # sheet: optional
    ("run", "lockwood", "opposed", "actor=STR", "defender=10", "--dice", "15,3"),   # sheet: none, stats from it
    ("odds", "lockwood", "check", "stat=STR", "dc=10"),
    ("odds", "lockwood", "check", "stat=STR", "dc=10..12"),   # a sweep
    ("run", "lockwood", "take_damage", "amount=1"),
])
def test_L19_run_odds_and_sweeps_all_refuse_a_dead_sheet(rules, tmp_path, args):
    path = dead_lockwood(rules, tmp_path)
    message = one_line_error(rules(*args, "--sheet", str(path)))
    assert DEAD in message


def test_L19_the_library_and_diff_refuse_a_dead_sheet(rules, tmp_path):
    from interpreter import api

    path = dead_lockwood(rules, tmp_path)
    with pytest.raises(RulesError, match=DEAD):
        api.run("lockwood", "rest", sheet=path, write=True)
    with pytest.raises(RulesError, match=DEAD):
        api.odds("lockwood", "check", {"stat": 12, "dc": 10}, sheet=path)
    house = tmp_path / "house.yaml"
    house.write_text("extends: lockwood\nruleset: house\nconstants:\n  critical_stat_penalty: 3\n", encoding="utf-8")
    result = rules("diff", "lockwood", str(house), "check", "stat=12", "dc=15", "--sheet", str(path))
    assert DEAD in one_line_error(result)


RESURRECTION = """\
extends: lockwood
ruleset: lockwood-miracles
procedures:
  resurrect:
    summary: A miracle brings the dead back on 1 max HP.
    sheet: required
    acts_on_final: [dead]
    outcomes: {raised: back on 1 max HP}
    steps:
      - update: {hp_max: 1, hp_current: 1}
      - decide: [{outcome: raised}]
"""


def test_L19_a_procedure_that_lists_the_state_may_act_on_it(rules, tmp_path):
    path = dead_lockwood(rules, tmp_path)
    house = tmp_path / "miracles.yaml"
    house.write_text(RESURRECTION, encoding="utf-8")
    text = path.read_text().replace("ruleset: lockwood", f"ruleset: {house.name}", 1)
    path.write_text(text, encoding="utf-8")
    assert DEAD in one_line_error(rules("run", str(house), "rest", "--sheet", str(path)))
    assert run_json(rules, str(house), path, "resurrect")["outcome"] == "raised"
    assert run_json(rules, str(house), path, "rest")["outcome"] == "done"
    assert show(rules, path)["tracks"]["hp"]["max"] == 1


def test_acts_on_final_must_name_a_declared_final_state(rules, tmp_path):
    house = tmp_path / "bad.yaml"
    house.write_text(RESURRECTION.replace("acts_on_final: [dead]", "acts_on_final: [ded]"), encoding="utf-8")
    result = rules("validate", str(house))
    assert result.exit_code == 1
    assert "unknown final state 'ded'" in result.stderr and "dead" in result.stderr


def test_a_final_state_may_not_share_a_status_name(rules, tmp_path):
    house = tmp_path / "bad.yaml"
    house.write_text("extends: lockwood\nruleset: bad\nsheet:\n  status:\n    dead: hp_max <= 0\n", encoding="utf-8")
    result = rules("validate", str(house))
    assert result.exit_code == 1
    assert "final state 'dead' has the name of a status" in result.stderr


NWOD_SHEET_HEALTH = "  health: [null, null, null, null, null, null]"


def nwod_at(rules, tmp_path: Path, health: str) -> Path:
    path = new_sheet(rules, tmp_path, "nwod")
    text = path.read_text()
    assert NWOD_SHEET_HEALTH in text
    path.write_text(text.replace(NWOD_SHEET_HEALTH, f'  health: "{health}"'), encoding="utf-8")
    return path


def test_N19_heal_aggravated_on_a_full_aggravated_track_heals_nothing(rules, tmp_path):
    path = nwod_at(rules, tmp_path, "******")
    message = refused_on_sheet(rules, "nwod", path, "heal", "type=aggravated")
    assert DEAD in message and "$.state.health" in message and "(N19)" in message
    assert show(rules, path)["status"] == ["wounded", "dead"]


def test_N19_dead_dead_dead_after_the_last_aggravated_box(rules, tmp_path):
    path = nwod_at(rules, tmp_path, "*****_")
    assert run_json(rules, "nwod", path, "take_damage", "amount=1", "type=aggravated")["outcome"] == "dead"
    for args in (("heal", "type=aggravated"), ("rest",), ("take_damage", "amount=1", "type=bashing")):
        assert DEAD in refused_on_sheet(rules, "nwod", path, *args)
    assert json.loads(rules("sheet", "check", str(path), "--json").stdout)["final"] == ["dead"]


def test_N19_a_full_track_with_lethal_last_is_not_final(rules, tmp_path):
    path = nwod_at(rules, tmp_path, "*****X")
    assert run_json(rules, "nwod", path, "heal", "type=lethal")["outcome"] == "healed"


@pytest.mark.parametrize("ruleset_id,procedures", [
    ("wwn", [("rest",), ("take_damage", "amount=1"), ("first_aid", "heal=1"), ("magic_heal", "amount=3", "strain=0")]),
    ("rollunder", [("rest",), ("take_damage", "amount=1"), ("advance", "choice=hp"), ("learn_ritual", "pay=hp")]),
])
def test_W9_R4_R5_the_dead_are_refused_by_every_procedure_but_next_round(rules, tmp_path, ruleset_id, procedures):
    path = new_sheet(rules, tmp_path, ruleset_id)
    path.write_text(path.read_text().replace("  deceased: false", "  deceased: true"), encoding="utf-8")
    for args in procedures:
        message = refused_on_sheet(rules, ruleset_id, path, *args)
        assert DEAD in message and "$.state.deceased" in message, message
    assert run_json(rules, ruleset_id, path, "next_round")["outcome"] == "unaffected"
    assert json.loads(rules("sheet", "check", str(path), "--json").stdout)["final"] == ["dead"]


def test_L19_the_cookbook_miracle_raises_a_dead_sheet_and_play_goes_on(rules, tmp_path):
    import re

    text = (Path(__file__).resolve().parent.parent / "docs" / "cookbook.md").read_text(encoding="utf-8")
    section = text.split("## Bring the dead back")[1]
    [overlay] = re.findall(r"```yaml\n(.*?)```", section.split("\n## ")[0], flags=re.DOTALL)
    house = tmp_path / "house.yaml"
    house.write_text(overlay, encoding="utf-8")
    path = dead_lockwood(rules, tmp_path)
    path.write_text(path.read_text().replace("ruleset: lockwood", "ruleset: house.yaml", 1), encoding="utf-8")
    assert DEAD in one_line_error(rules("run", str(house), "rest", "--sheet", str(path)))
    assert run_json(rules, str(house), path, "miracle", "faith=10", "--dice", "9")["outcome"] == "refused"
    assert DEAD in one_line_error(rules("run", str(house), "rest", "--sheet", str(path)))
    assert run_json(rules, str(house), path, "miracle", "faith=10", "--dice", "10")["outcome"] == "raised"
    assert run_json(rules, str(house), path, "rest")["outcome"] == "done"
    assert json.loads(rules("sheet", "check", str(path), "--json").stdout)["final"] == []
