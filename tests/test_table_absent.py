"""Issue 16: `table` rows may bind different names; a name a row leaves unbound is absent after it.

Reading an absent name is a load error where the check can see it (docs/format.md, "table"),
else a run error at the reading formula naming the row. Odds count the worlds without the name.
"""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product

import pytest
from helpers import assert_sampling_matches_odds

LOOT = """\
ruleset: loot
title: Loot
tables:
  loot:
    die: 1d6
    rows:
      - {on: 1, outcome: nothing}
      - {on: [2, 4], outcome: some_coins, values: {coins: 2d6}}
      - {on: [5, 6], outcome: a_gem, values: {coins: 1d4, gem: 1d10}}
procedures:
  find:
    outcomes: {a_gem: a gem, some_coins: coins, nothing: nothing}
    values: {coins: the coins found, gem: the gem's size, worth: total worth}
    steps:
      - table: loot
      - let: {worth: "coins * 10 + gem * 50 if outcome == a_gem else (coins * 10 if outcome == some_coins else 0)"}
  guarded:
    outcomes: {a_gem: a gem, some_coins: coins, nothing: nothing}
    values: {worth: total worth}
    steps:
      - table: loot
      - if: outcome != nothing
        then:
          - let: {worth: coins * 10 + gem}
        else:
          - let: {worth: 0}
  defaulted:
    outcomes: {a_gem: a gem, some_coins: coins, nothing: nothing}
    values: {gem: "the gem, or 0"}
    steps:
      - let: {gem: 0}
      - table: loot
"""

STATIC = """\
  unguarded:
    outcomes: {a_gem: a gem, some_coins: coins, nothing: nothing}
    values: {worth: total worth}
    steps:
      - table: loot
      - let: {worth: coins * 10}
"""


def write(tmp_path, text: str):
    path = tmp_path / "loot.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def run_json(rules, path, procedure, dice):
    result = rules("run", str(path), procedure, "--dice", ",".join(map(str, dice)), "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def odds_json(rules, path, procedure):
    result = rules("odds", str(path), procedure, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def enumerate_find():
    """Brute force over the table die and the row's dice: outcome, coins, gem and worth."""
    outcomes: dict[str, Fraction] = {}
    coins: dict[object, Fraction] = {}
    gems: dict[object, Fraction] = {}
    worth: dict[int, Fraction] = {}

    def add(table, key, p):
        table[key] = table.get(key, Fraction(0)) + p

    for face in range(1, 7):
        p = Fraction(1, 6)
        if face == 1:
            cases = [("nothing", None, None, 0, p)]
        elif face <= 4:
            cases = [("some_coins", a + b, None, (a + b) * 10, p / 36) for a, b in product(range(1, 7), repeat=2)]
        else:
            cases = [("a_gem", c, g, c * 10 + g * 50, p / 40) for c in range(1, 5) for g in range(1, 11)]
        for outcome, c, g, w, q in cases:
            add(outcomes, outcome, q)
            add(coins, c, q)
            add(gems, g, q)
            add(worth, w, q)
    return outcomes, coins, gems, worth


def _fractions(value):
    return {(None if k in ("none", "null") else int(k)): Fraction(v) for k, v in value["exact"].items()}


def at(text: str, line_text: str, part: str) -> str:
    """LINE:COL of `part` on the line of the text that holds `line_text`."""
    lines = text.splitlines()
    number = next(i for i, line in enumerate(lines) if line_text in line)
    return f"{number + 1}:{lines[number].index(part, lines[number].index(line_text)) + 1}"


def test_rows_binding_different_names_run(rules, tmp_path):
    path = write(tmp_path, LOOT)
    assert rules("validate", str(path)).exit_code == 0
    nothing = run_json(rules, path, "find", [1])
    assert (nothing["outcome"], nothing["values"]) == ("nothing", {"coins": None, "gem": None, "worth": 0})
    coins = run_json(rules, path, "find", [3, 4, 5])
    assert (coins["outcome"], coins["values"]) == ("some_coins", {"coins": 9, "gem": None, "worth": 90})
    gem = run_json(rules, path, "find", [6, 2, 7])
    assert (gem["outcome"], gem["values"]) == ("a_gem", {"coins": 2, "gem": 7, "worth": 370})
    # a row that does not bind a name bound before the table keeps its value
    assert run_json(rules, path, "defaulted", [2, 1, 1])["values"] == {"gem": 0}
    assert run_json(rules, path, "defaulted", [5, 1, 9])["values"] == {"gem": 9}


def test_odds_of_rows_binding_different_names_match_enumeration(rules, tmp_path):
    path = write(tmp_path, LOOT)
    got = odds_json(rules, path, "find")
    outcomes, coins, gems, worth = enumerate_find()
    assert {k: Fraction(v) for k, v in got["exact"].items()} == outcomes
    assert _fractions(got["values"]["coins"]) == coins
    assert _fractions(got["values"]["gem"]) == gems
    assert _fractions(got["values"]["worth"]) == worth
    assert sum(outcomes.values()) == 1


def test_reading_an_absent_name_where_it_is_seen_is_a_load_error(rules, tmp_path):
    path = write(tmp_path, LOOT + STATIC)
    result = rules("validate", str(path))
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [(
        f"{path}:{at(LOOT + STATIC, '{worth: coins * 10}', 'coins')}: $.procedures.unguarded.steps[1].let.worth: 'coins' may be absent here: "
        "row 1 of table 'loot' (on 1) binds no 'coins'; bind it before the table step, "
        "or read it only where a row that binds it was applied")]


def test_reading_an_absent_name_at_run_time_is_a_located_error_naming_the_row(rules, tmp_path):
    path = write(tmp_path, LOOT)
    ok = run_json(rules, path, "guarded", [5, 2, 3])
    assert (ok["outcome"], ok["values"]) == ("a_gem", {"worth": 23})
    expected = (f"{path}:{at(LOOT, '{worth: coins * 10 + gem}', 'gem')}: $.procedures.guarded.steps[1].then[0].let.worth: 'gem' is absent: "
                "row 2 of table 'loot' (on [2, 4]) binds no 'gem'; bind it before the table step, "
                "or read it only where a row that binds it was applied")
    result = rules("run", str(path), "guarded", "--dice", "3,4,5")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [expected]
    odds = rules("odds", str(path), "guarded")  # some world reads it: the odds are refused the same way
    assert odds.exit_code == 1
    assert odds.output.strip().splitlines() == [expected]


@pytest.mark.parametrize("formula", [
    "outcome == some_coins and coins > 5",      # behind `and`
    "coins if outcome != nothing else 0",       # behind if-else
    "0 < outcome < coins",                      # a later part of a chained comparison
])
def test_a_read_behind_a_guard_is_left_to_the_run(rules, tmp_path, formula):
    text = LOOT + STATIC.replace("coins * 10", json.dumps(formula))
    path = write(tmp_path, text)
    assert rules("validate", str(path)).exit_code == 0, formula


def test_a_read_after_a_step_that_may_end_the_run_is_left_to_the_run(rules, tmp_path):
    text = LOOT + STATIC.replace("      - let: {worth: coins * 10}\n",
                                 "      - stop: outcome == nothing\n        outcome: nothing\n"
                                 "      - let: {worth: coins * 10}\n")
    path = write(tmp_path, text)
    assert rules("validate", str(path)).exit_code == 0
    assert run_json(rules, path, "unguarded", [1])["values"] == {"worth": None}
    assert run_json(rules, path, "unguarded", [2, 6, 6])["values"] == {"worth": 120}


def test_a_later_decide_branch_is_conditional_but_the_first_is_not(rules, tmp_path):
    first = LOOT + STATIC.replace("      - let: {worth: coins * 10}\n",
                                  "      - decide: [{when: gem > 5, outcome: a_gem}, {outcome: nothing}]\n"
                                  "      - let: {worth: 0}\n")
    result = rules("validate", str(write(tmp_path, first)))
    assert result.exit_code == 1 and "'gem' may be absent here: row 1 of table 'loot' (on 1)" in result.output
    later = LOOT + STATIC.replace("      - let: {worth: coins * 10}\n",
                                  "      - decide: [{when: outcome == nothing, outcome: nothing}, "
                                  "{when: gem > 5, outcome: a_gem}, {outcome: some_coins}]\n"
                                  "      - let: {worth: 0}\n")
    assert rules("validate", str(write(tmp_path, later))).exit_code == 0


def test_a_dice_expression_reading_an_absent_name_is_caught_too(rules, tmp_path):
    text = LOOT + STATIC.replace("      - let: {worth: coins * 10}\n", "      - roll: {worth: (gem)d6}\n")
    result = rules("validate", str(write(tmp_path, text)))
    assert result.exit_code == 1
    assert "$.procedures.unguarded.steps[1].roll.worth: 'gem' may be absent here" in result.output


def test_the_format_guide_example_loads_and_its_message_is_the_real_one(rules, tmp_path):
    from pathlib import Path

    guide = (Path(__file__).resolve().parent.parent / "docs" / "format.md").read_text(encoding="utf-8")
    block = next(b for b in guide.split("```yaml\n")[1:] if "  loot:\n" in b).split("```")[0]
    path = write(tmp_path, "ruleset: loot\ntitle: Loot\n" + block)
    assert rules("validate", str(path)).exit_code == 0
    assert run_json(rules, path, "find", [6, 2, 7])["values"] == {"coins": 2, "worth": 370}
    text = path.read_text(encoding="utf-8")
    broken = text[:text.index("      - let:")] + "      - let: {worth: coins * 10}\n"
    result = rules("validate", str(write(tmp_path, broken)))
    shown = "$.procedures.find.steps[1].let.worth: 'coins' may be absent here: row 1 of table 'loot' (on 1) binds no 'coins'"
    assert shown in result.output and shown in " ".join(guide.split())


@pytest.mark.parametrize("value", [None, "coins", "gem"])
def test_sampled_runs_agree_with_the_exact_odds_of_absent_names(tmp_path, value):
    path = write(tmp_path, LOOT)
    assert_sampling_matches_odds(str(path), "find", {}, n=2000, value=value)


BONUS = """\
ruleset: bonus
title: Bonus
tables:
  bonus:
    rows:
      - {on: [1, 3], value: 1}
      - {on: [4, 6], value: 2}
    default: {text: no bonus}
procedures:
  look:
    params:
      key: {type: int}
    outcomes: {done: done}
    values: {b: the bonus, total: the total}
    steps:
      - table: bonus
        key: key
        value_as: b
      - if: key > 0
        then:
          - let: {total: b + 10}
        else:
          - let: {total: 0}
      - decide: [{outcome: done}]
"""


def test_the_value_of_a_row_without_one_is_absent(rules, tmp_path):
    path = tmp_path / "bonus.yaml"
    path.write_text(BONUS, encoding="utf-8")
    assert rules("validate", str(path)).exit_code == 0
    got = rules("run", str(path), "look", "key=5", "--json")
    assert json.loads(got.stdout)["values"] == {"b": 2, "total": 12}
    missing = rules("run", str(path), "look", "key=9")
    assert missing.exit_code == 1
    assert missing.output.strip() == (
        f"{path}:{at(BONUS, '{total: b + 10}', 'b')}: $.procedures.look.steps[1].then[0].let.total: 'b' is absent: "
        "the default row of table 'bonus' has no value; bind it before the table step, "
        "or read it only where a row that binds it was applied")
    unguarded = BONUS.replace("      - if: key > 0\n        then:\n          - let: {total: b + 10}\n"
                              "        else:\n          - let: {total: 0}\n", "      - let: {total: b + 10}\n")
    path.write_text(unguarded, encoding="utf-8")
    result = rules("validate", str(path))
    assert result.exit_code == 1
    assert "$.procedures.look.steps[1].let.total: 'b' may be absent here: the default row of table 'bonus' has no value" \
        in result.output


def test_an_absent_value_is_null_in_text_odds_as_in_json(rules, tmp_path):
    """The odds table names an absent value with the one word `--json` and `rules diff` use."""
    path = write(tmp_path, LOOT)
    got = rules("odds", str(path), "find")
    assert got.exit_code == 0
    lines = got.output.splitlines()
    first = lines[[line.startswith("gem (") for line in lines].index(True) + 1].split()
    assert first[0] == "null" and Fraction(first[-1]) == enumerate_find()[2][None]
    assert "none" not in got.output
