"""The chance of a condition on what a run reports: `rules odds --where FORMULA` and a procedure's `events`.

Each chance is checked against an oracle written here: the odds table of the same command, and a
brute-force walk over the faces of the dice.
"""

from __future__ import annotations

import json
from fractions import Fraction
from functools import cache

import pytest

from tests.helpers import ruleset

EVENTS = """\
ruleset: evtest
title: Events
constants: {bonus: 2}
procedures:
  check:
    params:
      dc: {type: int, default: 10}
    samples: [{dc: 10}]
    outcomes:
      success: the total reaches the DC
      failure: it does not
    values:
      total: the total
      natural: the die
      hurt: {help: the harm taken, words: {none: 0, some: 1}}
    events:
      natural_one: natural == 1
      close_miss: outcome == failure and total >= dc - bonus
      hurt_and_failed: hurt == 1 and outcome == failure
    steps:
      - roll: {natural: 1d20}
      - let: {total: natural + bonus, hurt: "1 if natural <= 5 else 0"}
      - decide:
          - {when: total >= dc, outcome: success}
          - {outcome: failure}
"""


@pytest.fixture
def events_file(tmp_path):
    path = tmp_path / "events.yaml"
    path.write_text(EVENTS)
    return path


def brute_check(dc: int, condition) -> Fraction:
    """The chance of a condition over the twenty faces of the d20, counted one by one."""
    hits = 0
    for natural in range(1, 21):
        total = natural + 2
        outcome = "success" if total >= dc else "failure"
        hits += bool(condition(natural, total, 1 if natural <= 5 else 0, outcome))
    return Fraction(hits, 20)


@cache
def successes_below(dice: int, below: int, target: int = 8, again: int = 10) -> Fraction:
    """The chance that a pool of exploding d10s rolls fewer than `below` successes, by walking every face
    of every die (an explosion adds a die) until the successes reach `below`."""
    if dice == 0:
        return Fraction(1) if below > 0 else Fraction(0)
    if below <= 0:
        return Fraction(0)
    total = Fraction(0)
    for face in range(1, 11):
        hit = 1 if face >= target else 0
        more = 1 if face >= again else 0
        total += Fraction(1, 10) * successes_below(dice - 1 + more, below - hit, target, again)
    return total


def test_where_on_nwod_successes_is_the_sum_of_the_odds_table_and_the_brute_force_chance(rules):
    # source: `rules odds nwod action pool=5 --where 'successes >= 3'` (issue 33, item 4)
    got = json.loads(rules("odds", "nwod", "action", "pool=5", "--json", "--where", "successes >= 3").output)
    expected = 1 - successes_below(5, 3)
    assert got["where"]["formula"] == "successes >= 3"
    assert Fraction(got["where"]["exact"]) == expected
    table = got["values"]["successes"]
    column = sum(p for value, p in table["distribution"].items() if int(value) >= 3)
    shown = column * (1 - table["truncated"])  # the table leaves out its endless tail, which is all >= 3
    assert got["where"]["chance"] == pytest.approx(shown + table["truncated"], abs=1e-12)


def test_where_on_the_outcome_is_the_sum_of_the_exact_column(rules):
    got = json.loads(rules("odds", "nwod", "action", "pool=5", "--json", "--where", "outcome <= success").output)
    expected = Fraction(got["exact"]["exceptional_success"]) + Fraction(got["exact"]["success"])
    assert Fraction(got["where"]["exact"]) == expected == 1 - successes_below(5, 1)


def test_where_is_printed_as_text_with_its_fraction(rules):
    result = rules("odds", "nwod", "action", "pool=5", "--outcomes", "--where", "successes >= 3")
    expected = 1 - successes_below(5, 3)
    assert result.exit_code == 0
    assert result.output.splitlines()[-2] == "where"
    assert result.output.splitlines()[-1].split()[-1] == f"{expected.numerator}/{expected.denominator}"


def test_declared_events_get_their_exact_chances(rules, events_file):
    got = json.loads(rules("odds", str(events_file), "check", "dc=12", "--json").output)
    expected = {
        "natural_one": brute_check(12, lambda n, t, h, o: n == 1),
        "close_miss": brute_check(12, lambda n, t, h, o: o == "failure" and t >= 10),
        "hurt_and_failed": brute_check(12, lambda n, t, h, o: h == 1 and o == "failure"),
    }
    assert {k: Fraction(v["exact"]) for k, v in got["events"].items()} == expected
    assert {k: v["chance"] for k, v in got["events"].items()} == pytest.approx({k: float(v) for k, v in expected.items()})


def test_events_are_printed_beside_the_outcomes(rules, events_file):
    lines = rules("odds", str(events_file), "check").output.splitlines()
    start = lines.index("events")
    rows = {line.split()[0]: line.split()[-1] for line in lines[start + 1:start + 4]}
    assert rows == {"natural_one": "1/20", "close_miss": "1/10", "hurt_and_failed": "1/4"}


def test_where_reads_parameters_constants_and_a_value_no_step_reads_again(rules, events_file):
    got = json.loads(rules("odds", str(events_file), "check", "dc=15", "--json",
                           "--where", "natural > dc - bonus - 3 and outcome == failure").output)
    assert Fraction(got["where"]["exact"]) == brute_check(15, lambda n, t, h, o: n > 10 and o == "failure")


def test_sampled_runs_count_the_events_of_each_run(rules, events_file):
    got = json.loads(rules("run", str(events_file), "check", "--times", "3000", "--seed", "7", "--json").output)
    naturals = got["values"]["natural"]["counts"]
    assert got["events"]["natural_one"]["count"] == naturals.get("1", 0)
    failed = got["counts"]["failure"]
    assert got["events"]["close_miss"]["count"] == sum(naturals.get(str(n), 0) for n in (6, 7))
    assert got["events"]["hurt_and_failed"]["count"] == sum(naturals.get(str(n), 0) for n in range(1, 6))
    assert failed == sum(naturals.get(str(n), 0) for n in range(1, 8))


def test_a_mistake_in_the_where_formula_is_one_located_line(rules):
    source = "successes >= 3 and sucesses < 5"
    result = rules("odds", "nwod", "action", "pool=5", "--where", source)
    assert result.exit_code != 0
    assert result.stdout == ""
    column = source.index("sucesses") + 1
    assert result.stderr.splitlines()[0] == f"--where:1:{column}: unknown name 'sucesses'; did you mean 'successes'?"
    assert "Traceback" not in result.stderr


def test_a_mistake_in_an_event_is_found_at_validate_time(rules, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(EVENTS.replace("natural == 1", "natral == 1"))
    result = rules("validate", str(path))
    line = EVENTS.splitlines().index("      natural_one: natural == 1") + 1
    column = len("      natural_one: ") + 1
    assert result.exit_code != 0
    assert f"{path}:{line}:{column}: $.procedures.check.events.natural_one: unknown name 'natral'; did you mean 'natural'?" \
        in result.stderr


def test_where_refuses_a_sweep(rules):
    result = rules("odds", "nwod", "action", "pool=1..3", "--where", "successes >= 3")
    assert result.exit_code == 2
    assert "--where gives one chance" in result.stderr


def test_the_library_takes_a_compiled_condition():
    from interpreter.procedure.events import compile_where
    from interpreter.procedure.odds import odds
    from interpreter.ruleset.params import find_procedure

    rs = ruleset("nwod")
    condition = compile_where(rs, find_procedure(rs, "action"), "successes == 0 or chance")
    got = odds(rs, "action", {"pool": "3"}, where=condition)
    assert got.where == successes_below(3, 1)


STOPPING = """\
ruleset: stopper
title: Stopping
procedures:
  p:
    outcomes: {ok: fine, no: bad}
    values: {x: set after the stop}
    events: {big: EVENT}
    steps:
      - roll: {d: 1d6}
      - stop: d == 1
        outcome: no
      - let: {x: d}
      - decide: [{when: x > 2, outcome: ok}, {outcome: no}]
"""


def test_an_event_reading_a_value_some_runs_never_set_is_refused_with_its_remedy(rules, tmp_path):
    path = tmp_path / "stop.yaml"
    path.write_text(STOPPING.replace("EVENT", "x > 3"))
    result = rules("odds", str(path), "p")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        (f"{path}:7:19: $.procedures.p.events.big: 'x' is not set: some runs end without setting it; set it before "
        "any step that can end the run, or read it behind a test of the outcome (outcome == success and ...)")]


def test_an_event_that_tests_the_outcome_first_reads_the_value_only_where_it_is_set(rules, tmp_path):
    path = tmp_path / "stop.yaml"
    path.write_text(STOPPING.replace("EVENT", "outcome == ok and x > 3"))
    got = json.loads(rules("odds", str(path), "p", "--json").output)
    assert Fraction(got["events"]["big"]["exact"]) == Fraction(sum(1 for d in range(1, 7) if d != 1 and d > 3), 6)
