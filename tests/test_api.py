"""The public library API (docs/api.md): every documented example prints what the page says, the bot never raises,
parameters are typed, and each function does what it says."""

from __future__ import annotations

import contextlib
import inspect
import io
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from helpers import show_sheet

import interpreter
from interpreter.dice.expr import parse

DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"


def _blocks() -> list[tuple[str, str]]:
    return re.findall(r"```(python|text)\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)


def _run_page(folder: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """Run the page's Python blocks in order in one namespace, each printing exactly the text block after it."""
    monkeypatch.chdir(folder)
    monkeypatch.setenv("TMPDIR", str(folder))  # the sheet example's tempfile.mkdtemp() stays in the test's folder
    monkeypatch.setattr("tempfile.tempdir", None)
    namespace: dict[str, object] = {}
    blocks = _blocks()
    for i, (kind, code) in enumerate(blocks):
        if kind != "python":
            continue
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(code, f"docs/api.md block {i}", "exec"), namespace)  # noqa: S102  # the page's own example
        expected = blocks[i + 1][1] if i + 1 < len(blocks) and blocks[i + 1][0] == "text" else ""
        assert printed.getvalue() == expected, f"block {i}:\n{code}"
    return namespace


def test_every_example_of_the_page_prints_what_the_page_shows(tmp_path, monkeypatch):
    namespace = _run_page(tmp_path, monkeypatch)
    assert callable(namespace["answer"])
    assert sum(kind == "python" for kind, _ in _blocks()) >= 8


def test_the_page_sends_no_reader_into_the_internals():
    """Everything a bot author needs is a name of the package itself (`interpreter.X`, X a public name)."""
    named = set(re.findall(r"interpreter\.([A-Za-z_]\w*)", DOC.read_text(encoding="utf-8")))
    assert named <= set(interpreter.__all__), named - set(interpreter.__all__)


@pytest.fixture
def answer(tmp_path, monkeypatch):
    """The documented bot's `answer`."""
    code = next(code for kind, code in _blocks() if kind == "python" and "def answer" in code)
    namespace: dict[str, object] = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "docs/api.md bot", "exec"), namespace)  # noqa: S102  # the page's own example
    return namespace["answer"]


BAD_LINES = [
    "", " ", "\t", "\n", "!", "!roll", "!roll ", "!roll 3d", "!roll d", "!roll 1d0", "!roll 0d0x", "!roll 1d20 1d20",
    "!roll 1000000d6", "!roll 1d6+one", "!roll 1d20+", "!roll (((((((((((((((((((1d6)))))))))))))))))))",
    "!roll " + "1+" * 600 + "1", "!roll 1d20>=", "!roll \x00", "!roll 1d6kh7kh", "!roll 9" * 30, "!roll 1d1000001",
    "!check", "!check 12", "!check twelve 15", "!check 12 fifteen", "!check 12 15 16", "!check 12.5 15",
    "!check 1e3 15", "!check 0x10 15", "!check 99999999999999999999999 15", "!check -99999999999999999999 15",
    "!check ١٢ 15", "!check 12 15\x00", "!check STR 15", "!check true false", "!check 12 ' OR 1=1", "!check 12 None",
    "!odds", "!odds 12", "!odds x y", "!odds 12 15 16", "!odds 1.5 2", "!odds 9223372036854775808 1",
    "!ODDS 12 15", "!checkk 12 15", "roll 1d20", "!roll\u200b 1d20", "!check 1_000 15", "!odds +- 3",
]


def test_the_documented_bot_survives_fifty_bad_lines(answer):
    assert len(BAD_LINES) == len(set(BAD_LINES)) == 50
    for line in BAD_LINES:
        got = answer(line)
        assert isinstance(got, str) and got, line
        assert "\n" not in got and "Traceback" not in got, (line, got)
        assert got.startswith(("sorry: ", "try !roll")), (line, got)


def test_the_documented_bot_answers_good_lines(answer):
    """L1/L3: a check is d20 + stat against the DC; with stat 12 against DC 15, 3..20 on the d20 succeeds."""
    rolled = re.fullmatch(r"4d6kh3: \[(.*)\] = (\d+)", answer("!roll 4d6kh3"))  # every die, the lowest struck
    assert rolled and rolled[1].count("~~") == 2 and 3 <= int(rolled[2]) <= 18
    assert re.fullmatch(r"check: (critical_success|success|failure|critical_failure) \(natural \d+, total \d+\)"
                        r" \| natural: 1d20 \[\d+\] = \d+", answer("!check 12 15"))
    assert answer("!odds 12 15") == "success or better: 90%"
    assert answer("!check twelve 15") == "sorry: parameter 'stat' must be a whole number, not 'twelve'"


def test_the_result_types_are_importable_from_the_package():
    from interpreter import Odds, Procedure, Result, Roll, RulesError, Ruleset, Samples, Sheet  # noqa: F401

    rs = interpreter.load_ruleset("lockwood")
    check = rs.procedure("check")
    assert isinstance(rs, interpreter.Ruleset) and isinstance(check, interpreter.Procedure)
    assert isinstance(check(stat=12, dc=15, seed=1), interpreter.Result)
    assert isinstance(check.odds(stat=12, dc=15), interpreter.Odds)
    assert isinstance(check.sample(stat=12, dc=15, times=10, seed=1), interpreter.Samples)
    assert isinstance(interpreter.roll("1d6", seed=1), interpreter.Roll)
    assert issubclass(interpreter.Invalid, interpreter.RulesError)


def test_importing_the_package_loads_no_engine():
    code = "import sys, interpreter; print(sorted(m for m in sys.modules if m.startswith('interpreter.procedure')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_every_result_is_one_chat_line():
    check = interpreter.load_ruleset("lockwood").procedure("check")
    for got in (check(stat=12, dc=15, seed=3), check.odds(stat=12, dc=15), check.sample(stat=12, dc=15, times=20, seed=3)):
        line = str(got)
        assert line.startswith("check") and "\n" not in line
    assert str(check(stat=12, dc=15, dice=[20])) == "check: critical_success (natural 20, total 32) | natural: 1d20 [20] = 20"


def test_a_procedure_says_its_typed_parameters_and_signature():
    attack = interpreter.load_ruleset("wwn").procedure("attack")
    kinds = {p.name: (p.kind, p.required, p.default) for p in attack.params}
    assert kinds["damage"] == ("dice", True, None)
    assert kinds["shock_negated"] == ("flag", False, False)
    signature = inspect.signature(attack)
    assert signature.parameters["bonus"].default is inspect.Parameter.empty
    assert signature.parameters["damage_bonus"].default == 0
    assert attack.outcomes == ("hit", "miss")
    take = interpreter.load_ruleset("nwod").procedure("take_damage")
    assert {p.name: p.choices for p in take.params}["type"] == ("bashing", "lethal", "aggravated")


def test_numbers_are_taken_as_given_a_whole_float_too():
    """L1: d20 + stat; a float that is whole is that number, anything else is refused, never rounded."""
    check = interpreter.load_ruleset("lockwood").procedure("check")
    expected = check(stat=12, dc=15, dice=[10]).values
    assert check(stat=12.0, dc="15", dice=[10]).values == expected
    assert check({"stat": 12}, dc=15.0, dice=[10]).values == expected
    for bad, message in [
        ({"stat": 3.5}, "parameter 'stat' must be a whole number, not 3.5; round it first (a rule says which way)"),
        ({"stat": True}, "parameter 'stat' is a whole number, not the flag True; give 1 if that is the number meant"),
        ({"stat": float("nan")}, "parameter 'stat' must be a whole number, not nan; round it first (a rule says which way)"),
        ({"stat": [12]}, "parameter 'stat' must be a whole number, not a list"),
        ({"stat": 2**70}, (f"parameter 'stat' is {2**70}: whole numbers must lie between -9223372036854775808 and "
                          "9223372036854775807 (64 bits)")),
        ({"advantage": 2}, "parameter 'advantage' is a flag: give True or False, not 2"),
    ]:
        with pytest.raises(interpreter.RulesError) as caught:
            check({"stat": 12, "dc": 15, **bad}, dice=[10, 10])
        assert str(caught.value) == message


def test_none_is_a_parameter_not_given():
    check = interpreter.load_ruleset("lockwood").procedure("check")
    assert check(stat=12, dc=15, mod=None, dice=[10]).values == check(stat=12, dc=15, dice=[10]).values
    with pytest.raises(interpreter.RulesError, match="procedure 'check' needs parameter 'stat'"):
        check(stat=None, dc=15, dice=[10])


def test_flags_take_booleans_ones_zeros_and_words():
    """L2: advantage keeps the higher of two d20s."""
    check = interpreter.load_ruleset("lockwood").procedure("check")
    for flag in (True, 1, "true", "yes"):
        assert check(stat=12, dc=15, advantage=flag, dice=[3, 17]).values["natural"] == 17
    for flag in (False, 0, "false"):
        assert check(stat=12, dc=15, advantage=flag, dice=[3]).values["natural"] == 3


def test_dice_parameters_take_parsed_expressions_text_and_numbers():
    """W20/W21: a natural 20 hits; the damage is the weapon's die."""
    attack = interpreter.load_ruleset("wwn").procedure("attack")
    given = [20, 6]  # a natural 20 hits; then the damage die
    by_text = attack(bonus=3, ac=14, damage="1d8", dice=given).values
    assert attack(bonus=3, ac=14, damage=parse("1d8"), dice=given).values == by_text
    assert by_text["damage"] == 6
    assert attack(bonus=3, ac=14, damage=4, dice=[20]).values["damage"] == 4
    assert attack.odds(bonus=3, ac=14, damage=parse("1d8")).outcomes == attack.odds(bonus=3, ac=14, damage="1d8").outcomes
    with pytest.raises(interpreter.RulesError, match="parameter 'damage' takes dice"):
        attack(bonus=3, ac=14, damage=object())


def test_a_parameter_named_like_an_option_goes_in_the_mapping():
    """N2: a pool of d10s counts successes at 8 or more."""
    pool = interpreter.load_ruleset("nwod").procedure("pool")
    assert pool.run({"dice": 3, "target": 8}, dice=[8, 1, 9]).values["successes"] == 2
    with pytest.raises(interpreter.RulesError) as caught:
        pool.run(dice=5, target=8)
    assert str(caught.value) == ("dice= takes the dice to use, a list of whole numbers, not 5; 'dice' is also a "
                                 "parameter of 'pool': give it in the mapping, {'dice': ...}")
    with pytest.raises(interpreter.RulesError, match="parameter 'target' is given twice"):
        pool.run({"dice": 3, "target": 8}, target=8)


def test_an_unknown_procedure_or_outcome_suggests_the_closest():
    rs = interpreter.load_ruleset("lockwood")
    with pytest.raises(interpreter.RulesError, match=r"no procedure 'chek'; did you mean 'check'\?"):
        rs.procedure("chek")
    odds = rs.procedure("check").odds(stat=12, dc=15)
    with pytest.raises(interpreter.RulesError, match=r"did you mean 'success'\?"):
        odds.at_least("sucess")
    assert odds.at_least("critical_success") == Fraction(1, 20)
    assert odds.at_most("failure") == Fraction(1, 10)
    assert odds.at_least("critical_failure") == 1


def test_run_with_given_dice_is_repeatable_and_rejects_leftovers():
    result = interpreter.run("lockwood", "check", {"stat": 12, "dc": 15}, dice=[15])
    assert (result.outcome, result.values["total"]) == ("success", 27)
    with pytest.raises(interpreter.RulesError):
        interpreter.run("lockwood", "check", {"stat": 12, "dc": 15}, dice=[15, 4])
    with pytest.raises(interpreter.RulesError):
        interpreter.run("lockwood", "check", {"stat": 12, "dc": 15}, dice=[15], seed=1)


def test_odds_are_exact_fractions():
    odds = interpreter.odds(interpreter.load_ruleset("lockwood"), "check", {"stat": 12, "dc": 15})
    assert odds.exact
    assert odds.outcomes["critical_success"] == Fraction(1, 20)
    assert sum(odds.outcomes.values()) == 1
    assert odds.mean("natural") == 10.5


def test_validate_lists_problems_and_load_raises_them(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("ruleset: broken\ntitle: Broken\nconstants:\n  x: 1\nbogus: 2\n", encoding="utf-8")
    found = interpreter.validate(broken)
    assert found and all(str(p).count("\n") == 0 for p in found)
    with pytest.raises(interpreter.Invalid):
        interpreter.load_ruleset(str(broken), root=tmp_path)
    assert interpreter.validate("lockwood") == []


def test_a_run_changes_a_sheet_only_when_asked(tmp_path):
    """N16: damage marks the track from the left, worst first."""
    sheet = tmp_path / "marco.yaml"
    interpreter.new_sheet("nwod", sheet, name="Marco")
    before = sheet.read_bytes()
    take = interpreter.load_ruleset("nwod").procedure("take_damage")
    dry = take(amount=2, type="lethal", sheet=sheet)
    assert dry.changes and sheet.read_bytes() == before and not (tmp_path / "marco.yaml.bak").exists()
    dry_too = interpreter.run("nwod", "take_damage", {"amount": 2, "type": "lethal"}, sheet=str(sheet))
    assert dry_too.changes == dry.changes and sheet.read_bytes() == before
    take(amount=2, type="lethal", sheet=sheet, write=True)
    marks = interpreter.read_sheet(sheet).tracks["health"].marks
    assert marks[:3] == ("lethal", "lethal", None)
    assert (tmp_path / "marco.yaml.bak").read_bytes() == before


def test_a_sheet_has_typed_fields(tmp_path, rules):
    sheet = tmp_path / "brenna.yaml"
    brenna = interpreter.new_sheet("lockwood", sheet, name="Brenna")
    assert isinstance(brenna, interpreter.Sheet)
    assert (brenna.name, brenna.ruleset, brenna.traits["STR"], brenna.path) == ("Brenna", "lockwood", 11, str(sheet))
    hp = brenna.tracks["hp"]
    assert isinstance(hp, interpreter.MeterTrack) and (hp.current, hp.max, hp.kind) == (22, 22, "current_max")
    assert brenna.resources["luck_points"] == interpreter.Resource(12, 12)
    assert brenna.as_json() == show_sheet(rules, sheet)
    assert str(brenna).startswith("Brenna (Lockwood)")


def test_a_sheet_parameter_reads_trait_names_in_any_case_and_sums(tmp_path):
    """N1: the pool is an attribute plus a skill."""
    sheet = tmp_path / "marco.yaml"
    marco = interpreter.new_sheet("nwod", sheet, name="Marco")
    action = interpreter.load_ruleset("nwod").procedure("action")
    pool = marco.traits["Dexterity"] + marco.traits["Firearms"]
    by_number = action(pool=pool, dice=[1] * pool)
    for named in ("Dexterity+Firearms", "dexterity + firearms", "DEXTERITY+Firearms"):
        assert action(pool=named, sheet=marco, dice=[1] * pool).values == by_number.values
    with pytest.raises(interpreter.RulesError, match=r"'Dexterety' is not a trait or value of the sheet; did you mean "
                                                     r"'Dexterity'\?"):
        action(pool="Dexterety", sheet=marco)


def test_every_name_the_package_lists_is_there():
    for name in interpreter.__all__:
        assert getattr(interpreter, name) is not None, name
    with pytest.raises(AttributeError):
        interpreter.no_such_name  # noqa: B018


def test_an_invalid_ruleset_is_one_line_that_counts_the_rest(tmp_path):
    """Invalid's str() is one line like every RulesError's; `problems` (and `lines()`) hold each one."""
    broken = tmp_path / "broken.yaml"
    broken.write_text("ruleset: broken\ntitle: Broken\nbogus: 2\nworse: 3\nconstants: {x: y}\n", encoding="utf-8")
    with pytest.raises(interpreter.Invalid) as caught:
        interpreter.load_ruleset(str(broken), root=tmp_path)
    err = caught.value
    assert len(err.problems) >= 2
    text = str(err)
    assert "\n" not in text
    assert text.startswith(str(err.problems[0])) and text.endswith(f"(and {len(err.problems) - 1} more problems)")
    assert err.lines() == [str(p) for p in err.problems]
