"""`rules diff BASE HOUSE`: every changed value by JSON path, and the odds of what changed, each side
checked against an independent oracle (the other side's `rules odds` with the parameter spelled out,
or enumeration of the dice)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from helpers import enumerate_dice, one_line_error, with_constants

TOL = 1e-9


def renamed(path: Path, new_id: str) -> Path:
    text = path.read_text(encoding="utf-8")
    head, sep, rest = text.partition("\nruleset: ")
    path.write_text(head + sep + new_id + rest[rest.index("\n"):], encoding="utf-8")
    return path


def diff_json(rules, *args: str) -> dict:
    result = rules("diff", *args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def odds_json(rules, *args: str) -> dict:
    result = rules("odds", *args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def mean(values: dict) -> float:
    return sum(float(k) * p for k, p in values["distribution"].items() if k not in ("null", "None"))


@pytest.fixture
def nine_again(tmp_path):
    return renamed(with_constants(tmp_path, "nwod", default_again=9), "nwod-9again")


def test_N3_nine_again_diff_json_matches_the_odds_of_each_side(rules, nine_again):
    got = diff_json(rules, "nwod", str(nine_again))
    assert (got["base"], got["house"]) == ("nwod", "nwod-9again")
    assert got["changes"] == [{"path": "$.constants.default_again", "before": 10, "after": 9, "kind": "changed"}]
    procedures = {entry["procedure"] for entry in got["odds"]}
    assert {"action", "contested", "extended", "attack", "autofire"} <= procedures
    assert not procedures & {"initiative", "study"}  # they roll no explosions
    [action] = [e for e in got["odds"] if e["procedure"] == "action" and e["params"] == {"pool": 5}]
    before = odds_json(rules, "nwod", "action", "pool=5")
    after = odds_json(rules, "nwod", "action", "pool=5", "again=9")
    assert set(action["outcomes"]) == set(before["outcomes"])
    for name, pair in action["outcomes"].items():
        assert abs(pair["before"] - before["outcomes"][name]) < TOL
        assert abs(pair["after"] - after["outcomes"][name]) < TOL
        assert abs(pair["difference"] - (pair["after"] - pair["before"])) < TOL
    successes = action["values"]["successes"]
    assert abs(successes["before"] - mean(before["values"]["successes"])) < 1e-6
    assert abs(successes["after"] - mean(after["values"]["successes"])) < 1e-6
    # the numbers: an exceptional success 0.0203 -> 0.0521, successes 1.667 -> 1.875
    assert round(action["outcomes"]["exceptional_success"]["before"], 4) == 0.0203
    assert round(action["outcomes"]["exceptional_success"]["after"], 4) == 0.0521
    assert (round(successes["before"], 3), round(successes["after"], 3)) == (1.667, 1.875)
    assert "exact" not in action  # explosions are cut off, so neither side is exact


def test_N3_nine_again_diff_text(rules, nine_again):
    result = rules("diff", "nwod", str(nine_again), "action", "pool=5")
    assert result.exit_code == 0, result.stderr
    before = odds_json(rules, "nwod", "action", "pool=5")["outcomes"]["exceptional_success"]
    after = odds_json(rules, "nwod", "action", "pool=5", "again=9")["outcomes"]["exceptional_success"]
    lines = result.stdout.splitlines()
    assert lines[0] == "nwod → nwod-9again"
    assert "  $.constants.default_again: 10 → 9" in lines
    assert "  action pool=5" in lines
    row = next(line.split() for line in lines if line.strip().startswith("exceptional_success"))
    assert row == ["exceptional_success", f"{before * 100:.2f}%", f"{after * 100:.2f}%",
                   f"{(after - before) * 100:+.2f}"]
    assert ["successes", "(mean)", "1.667", "1.875", "+0.208"] in [line.split() for line in lines]


def test_L3_critwin_diff_is_exact_and_matches_enumeration(rules, tmp_path):
    house = renamed(with_constants(tmp_path, "lockwood", critwin=19), "lockwood-19")
    got = diff_json(rules, "lockwood", str(house), "check", "stat=12", "dc=15")
    [entry] = got["odds"]
    assert entry["procedure"] == "check" and entry["params"] == {"stat": 12, "dc": 15}
    faces = [d for (d,) in enumerate_dice(20)]

    def tiers(critwin: int) -> dict[str, Fraction]:
        out = dict.fromkeys(["critical_success", "success", "failure", "critical_failure"], Fraction(0))
        for d in faces:
            tier = ("critical_success" if d >= critwin else "critical_failure" if d <= 1
                    else "success" if d + 12 >= 15 else "failure")
            out[tier] += Fraction(1, 20)
        return out

    old, new = tiers(20), tiers(19)
    assert entry["exact"]["outcomes"] == {k: {"before": f"{old[k].numerator}/{old[k].denominator}",
                                              "after": f"{new[k].numerator}/{new[k].denominator}"} for k in old}
    assert entry["exact"]["values"]["natural"] == {"before": "21/2", "after": "21/2"}
    for k in old:
        assert abs(entry["outcomes"][k]["before"] - float(old[k])) < TOL
        assert abs(entry["outcomes"][k]["after"] - float(new[k])) < TOL


def test_every_affected_procedure_at_its_samples_and_only_those(rules, tmp_path):
    house = renamed(with_constants(tmp_path, "lockwood", critwin=19), "lockwood-19")
    got = diff_json(rules, "lockwood", str(house))
    cases = [(e["procedure"], e["params"]) for e in got["odds"]]
    # critwin decides check, opposed, attack (L3: crits_decide_contests), friendly_fire and move
    assert cases == [("check", {"stat": 12, "dc": 15}), ("check", {"stat": 12, "dc": 15, "advantage": True}),
                     ("opposed", {"actor": 12, "defender": 12}), ("attack", {"attack": 12, "defense": 12}),
                     ("friendly_fire", {"perception": 12, "in_the_way": 2}), ("move", {"agility": 11})]


BASE = """\
ruleset: base
title: Base
constants: {target: 4, bonus: 0}
dice: {die: 1d6}
tables:
  luck: {die: 1d6, rows: [{on: [1, 3], outcome: bad}, {on: [4, 6], outcome: good}]}
procedures:
  roll:
    params: {mod: {type: int, default: 0}}
    samples: [{mod: 0}, {mod: 1}]
    outcomes: {hit: hit, miss: miss}
    values: {total: the roll}
    steps:
      - roll: {total: die + mod + bonus}
      - decide: [{when: total >= target, outcome: hit}, {outcome: miss}]
  twice:
    outcomes: {hit: hit, miss: miss}
    steps:
      - call: roll
        as: first
      - decide: [{when: first_hit, outcome: hit}, {outcome: miss}]
  fate:
    outcomes: {good: good, bad: bad}
    steps:
      - table: luck
  gone:
    outcomes: {done: done}
    steps:
      - decide: [{outcome: done}]
"""


def test_a_house_that_does_not_extend_its_base(rules, tmp_path):
    base = tmp_path / "base.yaml"
    base.write_text(BASE, encoding="utf-8")
    house = tmp_path / "house.yaml"
    house.write_text(BASE.replace("ruleset: base", "ruleset: house").replace("{target: 4, bonus: 0}",
                                                                              "{target: 4, bonus: 1, spare: 2}")
                     .replace("  gone:\n    outcomes: {done: done}\n    steps:\n      - decide: [{outcome: done}]\n", ""),
                     encoding="utf-8")
    got = diff_json(rules, str(base), str(house))
    assert got["changes"] == [
        {"path": "$.constants.bonus", "before": 0, "after": 1, "kind": "changed"},
        {"path": "$.constants.spare", "before": None, "after": 2, "kind": "added"},
        {"path": "$.procedures.gone", "before": {"outcomes": {"done": "done"}, "steps": [{"decide": [{"outcome": "done"}]}]},
         "after": None, "kind": "removed"},
    ]
    # roll reads bonus; twice calls roll; fate uses neither; gone is only in the base: listed with its odds
    assert [(e["procedure"], e["params"]) for e in got["odds"]] == [("roll", {"mod": 0}), ("roll", {"mod": 1}),
                                                                    ("twice", {}), ("gone", {})]
    assert got["skipped"] == []
    gone = got["odds"][3]
    assert gone["only"] == "before" and gone["outcomes"] == {"done": {"before": 1.0, "after": None, "difference": -1.0}}
    roll = got["odds"][0]
    hits = {b: Fraction(sum(1 for (d,) in enumerate_dice(6) if d + b >= 4), 6) for b in (0, 1)}
    assert roll["exact"]["outcomes"]["hit"] == {"before": str(hits[0]), "after": str(hits[1])}
    assert roll["exact"]["values"]["total"] == {"before": "7/2", "after": "9/2"}
    text = rules("diff", str(base), str(house)).stdout
    assert "  $.constants.spare: (none) → 2" in text and "  gone (only in base)" in text


def test_an_unknown_procedure_is_one_line(rules, nine_again):
    line = one_line_error(rules("diff", "nwod", str(nine_again), "actoin"))
    assert "no procedure 'actoin'" in line and "action" in line


def test_the_same_ruleset_has_no_changes(rules):
    got = diff_json(rules, "wwn", "wwn")
    assert got["changes"] == [] and got["odds"] == []
    assert "(no procedure behaves differently)" in rules("diff", "wwn", "wwn").stdout


def test_L17_sheet_procedures_run_on_a_new_character_of_each_side(rules, tmp_path):
    house = with_constants(tmp_path, "lockwood", stat_budget=110)
    got = diff_json(rules, "lockwood", str(house), "take_damage", "amount=2")
    [entry] = got["odds"]
    # a new character's HP is END + WILL: 11 + 11 at the defaults, 12 + 12 once 110 points are spread
    assert entry["values"]["hp_current"] == {"before": 20.0, "after": 22.0, "difference": 2.0}
    assert entry["outcomes"]["minor"]["before"] == entry["outcomes"]["minor"]["after"] == 1.0
    assert "ran on a new character of each ruleset" in rules("diff", "lockwood", str(house), "take_damage",
                                                             "amount=2").stdout
