"""The library speaks to people: ``str()`` of what it gives back is the line the command line prints,
``repr()`` stays a repr, and its mistakes speak of its own parameters."""

from __future__ import annotations

import re
import subprocess
import sys
from fractions import Fraction

import icepool
import pytest
from helpers import checkout_env

import interpreter


def test_str_of_a_roll_is_the_chat_line_of_every_die():
    # 4d6 keep the highest three of 1, 6, 5, 2: the 1 is dropped (struck through), 6 + 5 + 2 = 13
    got = interpreter.roll("4d6kh3", dice=[1, 6, 5, 2])
    assert str(got) == "4d6kh3: [~~1~~, 6, 5, 2] = 13"
    assert repr(got).startswith("Roll(value=13, terms=[TermTrace('4d6kh3'")
    assert isinstance(got, interpreter.Roll) and got.value == 13


def test_str_of_a_seeded_roll_is_what_rules_roll_prints(rules):
    for expr in ("4d6kh3", "5d10x10cs>=8", "2d6+3", "{1d20, 1d12}kh1"):
        assert str(interpreter.roll(expr, seed=1)) + "\n" == rules("roll", expr, "--seed", "1").stdout


def test_print_of_a_roll_from_a_fresh_process_is_one_line():
    code = "import interpreter; print(interpreter.roll('4d6kh3', seed=1))"
    printed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env=checkout_env()).stdout
    assert printed.count("\n") == 1 and printed.startswith("4d6kh3: [") and printed.rstrip().endswith("= 13")


def _percent(p: Fraction) -> str:
    from interpreter.dice.report import percent

    return percent(p)


def test_str_of_an_expression_s_odds_is_one_line_with_range_mean_and_likeliest_value():
    oracle = icepool.d6.highest(4, 3)
    probs = {v: Fraction(n, oracle.denominator()) for v, n in oracle.items()}
    top = max(probs, key=lambda v: probs[v])
    odds = interpreter.dice("4d6kh3").odds()
    assert str(odds) == (f"4d6kh3: {min(probs)} to {max(probs)}, mean {float(oracle.mean()):.4g}, "
                         f"most often {top} ({_percent(probs[top])})")
    assert repr(odds).startswith("Distribution({3: 1/1296")


def test_str_of_odds_with_few_values_names_each():
    odds = interpreter.dice("d20>=15").odds()  # 15..20 of 20 faces: 6/20
    assert str(odds) == "d20>=15: 0 70%, 1 30% | mean 0.3"


def test_str_of_a_run_and_of_odds_are_their_one_line_chat_texts():
    check = interpreter.load_ruleset("lockwood").procedure("check")
    result = check(stat=12, dc=15, dice=[20])
    assert str(result).splitlines() == [str(result)]
    assert str(result).startswith("check: critical_success")
    assert repr(result).startswith("Result(")
    odds = check.odds(stat=12, dc=15)
    assert str(odds).startswith("check: critical_success 5%,") and repr(odds).startswith("Odds(")


@pytest.mark.parametrize("size", [3, 8])
def test_the_chat_line_of_odds_counts_one_value_per_outcome_when_few(size):
    odds = interpreter.dice(f"1d{size}").odds()
    line = str(odds)
    if size <= 6:
        assert line.count("%") == size
    else:
        assert line == f"1d{size}: 1 to {size}, mean {(size + 1) / 2:g}, each {_percent(Fraction(1, size))}"


def test_a_run_without_a_seed_tells_the_seed_it_drew_and_that_seed_replays_it():
    check = interpreter.load_ruleset("lockwood").procedure("check")
    first = check(stat=12, dc=15)
    assert isinstance(first.seed, int) and 0 <= first.seed < 2 ** 31
    again = check(stat=12, dc=15, seed=first.seed)
    assert again.seed == first.seed and str(again) == str(first)
    assert interpreter.run("lockwood", "check", {"stat": 12, "dc": 15}, seed=first.seed).values == first.values
    assert check(stat=12, dc=15, seed=5).seed == 5
    assert check(stat=12, dc=15, dice=[7]).seed is None  # given dice come from no seed


def test_seeds_are_drawn_afresh_for_each_run():
    check = interpreter.load_ruleset("lockwood").procedure("check")
    assert len({check(stat=12, dc=15).seed for _ in range(20)}) > 1


def test_a_roll_tells_its_seed_too():
    rolled = interpreter.roll("10d10")
    assert str(interpreter.roll("10d10", seed=rolled.seed)) == str(rolled)
    assert interpreter.roll("1d6", dice=[4]).seed is None


def test_rules_run_json_tells_the_seed_and_seed_of_it_gives_the_same_run(rules):
    import json

    first = json.loads(rules("run", "lockwood", "check", "stat=12", "dc=15", "--json").stdout)
    assert isinstance(first["seed"], int)
    again = json.loads(rules("run", "lockwood", "check", "stat=12", "dc=15", "--seed", str(first["seed"]),
                             "--json").stdout)
    assert again == first
    given = json.loads(rules("run", "lockwood", "check", "stat=12", "dc=15", "--dice", "4", "--json").stdout)
    assert given["seed"] is None


def test_rules_roll_json_tells_the_seed(rules):
    import json

    first = json.loads(rules("roll", "6d6", "--json").stdout)
    again = json.loads(rules("roll", "6d6", "--seed", str(first["seed"]), "--json").stdout)
    assert again == first and isinstance(first["seed"], int)


def _placeholders(text: str) -> list[str]:
    import re

    return re.findall(r"(?<!\{)\{[A-Za-z_]\w*\}(?!\})", text)


def _written_with_placeholders() -> list[tuple[str, str, str, str]]:
    """(ruleset, procedure, what, text as written) for each summary and parameter help that names a constant."""
    from helpers import ruleset

    from interpreter.load.bundled import bundled_ids

    out = []
    for ruleset_id in bundled_ids():
        for name, proc in ruleset(ruleset_id).procedures.items():
            if _placeholders(proc.summary):
                out.append((ruleset_id, name, "summary", proc.summary))
            out += [(ruleset_id, name, p.name, p.help) for p in proc.params if _placeholders(p.help)]
    return out


def test_the_bundled_rulesets_do_write_placeholders_in_summaries_and_help():
    written = _written_with_placeholders()
    assert any(what == "summary" for *_, what, _ in written) and any(what != "summary" for *_, what, _ in written)


def test_summaries_and_parameter_help_of_the_library_have_their_placeholders_filled():
    from helpers import ruleset

    for ruleset_id, name, what, text in _written_with_placeholders():
        proc = interpreter.load_ruleset(ruleset_id).procedure(name)
        shown = proc.summary if what == "summary" else next(p.help for p in proc.params if p.name == what)
        constants = ruleset(ruleset_id).constants
        expected = text
        for placeholder in _placeholders(text):
            expected = expected.replace(placeholder, str(constants[placeholder[1:-1]]))
        assert shown == expected and not _placeholders(shown), (ruleset_id, name, what)


def test_zsh_completion_descriptions_have_their_placeholders_filled(rules, monkeypatch):
    monkeypatch.setenv("_RULES_COMPLETE", "zsh_complete")
    monkeypatch.setenv("RULESMITH_COMPLETION", "2")
    for ruleset_id, name, what, _text in _written_with_placeholders():
        typed = f"rules run {ruleset_id} " + (name[:3] if what == "summary" else f"{name} {what}")
        monkeypatch.setenv("COMP_WORDS", typed)
        monkeypatch.setenv("COMP_CWORD", str(len(typed.split()) - 1))
        lines = rules().stdout.splitlines()  # (kind, value, description) for each item
        offered = dict(zip(lines[1::3], lines[2::3], strict=True))
        proc = interpreter.load_ruleset(ruleset_id).procedure(name)
        key, filled = (name, proc.summary) if what == "summary" else \
            (f"{what}=", next(p.help for p in proc.params if p.name == what))
        assert offered.get(key) == filled, (typed, lines)
        assert not _placeholders(filled)


COMMAND_WORDS = re.compile(r"--[a-z]|`rules ")


@pytest.mark.parametrize("call", [
    lambda: interpreter.run("lockwood", "take_damage", {"amount": 2}),
    lambda: interpreter.load_ruleset("lockwood").procedure("take_damage")(amount=2),
    lambda: interpreter.odds("lockwood", "check", {"stat": "STR", "dc": 15}),
    lambda: interpreter.dice("999d999kh500").odds(),
    lambda: interpreter.roll("3d6", dice=[1]),
], ids=["run needs a sheet", "procedure needs a sheet", "a trait without a sheet", "too much work", "dice short"])
def test_a_library_mistake_names_the_library_s_parameters_not_the_command_s_options(call):
    with pytest.raises(interpreter.RulesError) as caught:
        call()
    assert not COMMAND_WORDS.search(str(caught.value)), str(caught.value)


def test_the_same_mistake_on_the_command_line_keeps_its_options(rules):
    library = None
    try:
        interpreter.run("lockwood", "take_damage", {"amount": 2})
    except interpreter.RulesError as err:
        library = str(err)
    command = rules("run", "lockwood", "take_damage", "amount=2").stderr.strip()
    assert library == "procedure 'take_damage' works on a character sheet: give sheet= (a sheet file's path)"
    assert command == "procedure 'take_damage' works on a character sheet: give --sheet FILE"


NAMED = """\
ruleset: named
title: Named
description: rolls {pool_size} dice, {not_a_constant} as written
constants: {pool_size: 3}
procedures:
  p:
    summary: "{pool_size}d6 summed"
    params:
      bonus: {type: int, default: 0, help: "added to the {pool_size} dice"}
    outcomes: {done: done}
    values: {total: the sum}
    steps:
      - roll: {total: "(pool_size)d6 + bonus"}
      - decide: [{outcome: done}]
"""


def test_a_ruleset_s_own_texts_have_their_constants_filled_everywhere_a_person_reads_them(rules, tmp_path, monkeypatch):
    import json

    (tmp_path / "named.yaml").write_text(NAMED, encoding="utf-8")
    monkeypatch.setenv("RULESMITH_PATH", str(tmp_path))
    loaded = interpreter.load_ruleset(tmp_path / "named.yaml")
    assert loaded.description == "rolls 3 dice, {not_a_constant} as written"
    assert loaded.procedure("p").summary == "3d6 summed"
    assert [p.help for p in loaded.procedure("p").params] == ["added to the 3 dice"]
    listed = json.loads(rules("list", "--json").stdout)["rulesets"]
    assert [r["description"] for r in listed if r["id"] == "named"] == ["rolls 3 dice, {not_a_constant} as written"]
    assert "3d6 summed" in rules("run", str(tmp_path / "named.yaml"), "p", "-h").stdout
