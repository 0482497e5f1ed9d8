"""The whole-ruleset `rules diff` chooses its cases from the change: it turns on the effects and flags the
change touches and moves a parameter across a comparison where the samples cannot show the change, all
within limits.MAX_DIFF_CASES. The odds of a case it chose are checked against enumeration of the dice."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

# wwn's attack with Shock doubled on a natural 20 (the whole step list, as an overlay can write it today)
SHOCK = """extends: wwn
ruleset: wwn-shock
procedures:
  attack:
    steps:
      - roll: {natural: attack_die}
      - let:
          shock_damage: "(max(min_damage, shock + damage_bonus) * (2 if natural == 20 else 1)) if shock > 0 else 0"
          shock_reaches: "shock > 0 and ac <= shock_ac"
      - decide:
          - {when: natural <= critfail, outcome: miss}
          - {when: natural >= critwin, outcome: hit}
          - {when: natural + bonus >= ac, outcome: hit}
          - {outcome: miss}
      - if: outcome == hit
        then:
          - roll: {rolled: damage}
          - let:
              floor: "shock_damage if (shock_reaches or not hit_floor_needs_shock_ac) else 0"
              damage: "max(min_damage, rolled + damage_bonus, floor)"
        else:
          - let:
              damage: >-
                shock_damage if (shock_reaches and not shock_negated
                and (natural > critfail or shock_on_natural_one)) else 0
"""

NIGHT = """extends: lockwood
ruleset: lockwood-night
effects:
  night:
    summary: at night every roll of these procedures gets +2
    reaches: {procedures: [check, opposed, friendly_fire]}
    change: {modifier: 2}
"""


def diff_json(rules, *args: str) -> dict:
    result = rules("diff", *args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def shock_damage(ac: int, shock_ac: int, bonus: int, shock: int, doubled: bool) -> dict[int, Fraction]:
    """wwn's attack damage with a d8 weapon, worked out over every natural d20 and damage d8 (W20-W22)."""
    out: dict[int, Fraction] = {}
    for natural in range(1, 21):
        reaches = ac <= shock_ac
        shock_damage = shock * (2 if doubled and natural == 20 else 1)
        hit = natural != 1 and (natural == 20 or natural + bonus >= ac)
        for rolled in range(1, 9):
            damage = max(rolled, shock_damage if reaches else 0) if hit else (shock_damage if reaches else 0)
            out[damage] = out.get(damage, Fraction(0)) + Fraction(1, 20 * 8)
    return out


def test_the_diff_moves_the_ac_to_where_the_changed_shock_reaches(rules, tmp_path):
    house = tmp_path / "shock.yaml"
    house.write_text(SHOCK, encoding="utf-8")
    got = diff_json(rules, "wwn", str(house))
    attack = [case for case in got["odds"] if case["procedure"] == "attack"]
    sample = {"bonus": 3, "ac": 14, "damage": "1d8", "shock": 2, "shock_ac": 13}
    assert attack[0]["params"] == sample and not attack[0]["changed"]  # the sample: Shock cannot reach AC 14
    [probe] = [case for case in attack if case["changed"]]
    params = probe["params"]
    assert {k: v for k, v in params.items() if k != "ac"} == {k: v for k, v in sample.items() if k != "ac"}
    assert params["ac"] <= params["shock_ac"]  # moved across the comparison the Shock depends on
    for side, doubled in (("before", False), ("after", True)):
        want = shock_damage(params["ac"], params["shock_ac"], 3, 2, doubled)
        dist = {int(k): v for k, v in probe["distributions"]["damage"][side].items()}
        assert set(dist) == {k for k, p in want.items() if p}
        assert all(abs(dist[k] - float(p)) < 1e-9 for k, p in want.items() if p)


def test_the_text_shows_the_case_where_the_change_shows(rules, tmp_path):
    house = tmp_path / "shock.yaml"
    house.write_text(SHOCK, encoding="utf-8")
    text = rules("diff", "wwn", str(house)).stdout
    assert "attack bonus=3 ac=14 damage=1d8 shock=2 shock_ac=13: the same odds" in text
    assert "  attack bonus=3 ac=13 damage=1d8 shock=2 shock_ac=13\n" in text
    assert "damage (mean)" in text.split("ac=13 damage=1d8 shock=2 shock_ac=13\n")[1]


def test_a_new_effect_is_turned_on_in_every_procedure_it_reaches(rules, tmp_path):
    house = tmp_path / "night.yaml"
    house.write_text(NIGHT, encoding="utf-8")
    got = diff_json(rules, "lockwood", str(house))
    assert got["effects"] == [{"name": "night", "procedures": ["check", "friendly_fire", "opposed"]}]
    on = {case["procedure"]: case for case in got["odds"] if case["params"].get("night") is True}
    assert set(on) == {"check", "opposed", "friendly_fire"} and all(case["changed"] for case in on.values())
    check = on["check"]
    assert check["params"] == {"stat": 12, "dc": 15, "night": True}
    # before: the base ruleset without the flag; after: the natural d20 + 2 (enumerated)
    before = {int(k): v for k, v in check["distributions"]["natural"]["before"].items()}
    after = {int(k): v for k, v in check["distributions"]["natural"]["after"].items()}
    assert before == {n: pytest.approx(1 / 20) for n in range(1, 21)}
    assert after == {n + 2: pytest.approx(1 / 20) for n in range(1, 21)}
    text = rules("diff", "lockwood", str(house)).stdout
    assert "  night: new, +2; on with night=true; reaches check, friendly_fire, opposed" in text
    assert "  friendly_fire perception=12 in_the_way=2 night=true\n" in text


def test_a_flag_the_changed_constant_is_read_with_is_turned_on(rules, tmp_path):
    house = tmp_path / "three.yaml"
    house.write_text("extends: lockwood\nruleset: lockwood-three\nconstants:\n  advantage_dice: 3\n", encoding="utf-8")
    got = diff_json(rules, "lockwood", str(house))
    opposed = [case for case in got["odds"] if case["procedure"] == "opposed"]
    assert opposed[0]["params"] == {"actor": 12, "defender": 12} and not opposed[0]["changed"]
    flagged = [case for case in opposed if case["params"].get("advantage") is True]
    assert flagged and flagged[0]["changed"]


def test_the_number_of_cases_is_capped(rules, tmp_path, monkeypatch):
    from interpreter import limits

    house = tmp_path / "night.yaml"
    house.write_text(NIGHT, encoding="utf-8")
    monkeypatch.setattr(limits, "MAX_DIFF_CASES", 2)
    got = diff_json(rules, "lockwood", str(house))
    assert len(got["odds"]) == 2
    [first, second] = [case["params"] for case in got["odds"] if case["procedure"] == "check"]
    assert first == {"stat": 12, "dc": 15} and second == {"stat": 12, "dc": 15, "advantage": True}  # its samples
    assert got["cut"] == ["check"]  # its case with the flag on was the first the limit left out
    cut = [s for s in got["skipped"] if "MAX_DIFF_CASES" in s["reason"]]
    assert cut and all("at most 2 cases" in s["reason"] and s["params"] for s in cut)
    text = rules("diff", "lockwood", str(house)).stdout
    assert "opposed actor=12 defender=12: not compared (the diff compares at most 2 cases (MAX_DIFF_CASES)" in text
    assert "Cases beyond the samples of check were left out: a diff compares at most 2 cases" in text
