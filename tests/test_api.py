"""The public library API (docs/api.md): the documented bot runs, and each function does what it says."""

from __future__ import annotations

import re
import runpy
import shutil
from fractions import Fraction
from pathlib import Path

import pytest

import interpreter
from interpreter.errors import Invalid, RulesError

DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"


def _example(folder: Path, marker: str) -> dict[str, object]:
    """Run the example of docs/api.md that contains `marker` as a module and return its namespace."""
    [code] = [c for c in re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
              if marker in c]
    module = folder / "example.py"
    module.write_text(code, encoding="utf-8")
    return runpy.run_path(str(module))


def _bot(folder: Path) -> dict[str, object]:
    return _example(folder, "def answer")


def test_the_documented_sample_counts_every_run(tmp_path, capsys):
    namespace = _example(tmp_path, "interpreter.sample(")
    counts = namespace["counts"]
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == str(counts.outcomes) and printed[1] == str(counts.values["successes"][3])
    assert sum(counts.outcomes.values()) == 10_000
    # N1/N4: no success is a failure (no dramatic failure without the chance die), five or more exceptional
    assert counts.outcomes["dramatic_failure"] == 0
    assert counts.outcomes["exceptional_success"] == sum(c for n, c in counts.values["successes"].items() if n >= 5)


def test_the_documented_bot_answers_every_command(tmp_path):
    answer = _bot(tmp_path)["answer"]
    assert re.fullmatch(r"4d6kh3 = (\d+)", answer("!roll 4d6kh3"))
    assert 3 <= int(answer("!roll 4d6kh3").split("= ")[1]) <= 18
    assert re.fullmatch(r"(critical_success|success|failure|critical_failure) \(total \d+\)", answer("!check 12 15"))
    # P(success or better) with stat 12 against DC 15: a d20 of 3..20 succeeds = 18/20
    assert answer("!odds 12 15") == "success or better: 90%"
    assert answer("!roll 3d").startswith("sorry: ")


def test_run_with_given_dice_is_repeatable_and_rejects_leftovers():
    result = interpreter.run("lockwood", "check", {"stat": 12, "dc": 15}, dice=[15])
    assert (result.outcome, result.values["total"]) == ("success", 27)
    with pytest.raises(RulesError):
        interpreter.run("lockwood", "check", {"stat": 12, "dc": 15}, dice=[15, 4])
    with pytest.raises(RulesError):
        interpreter.run("lockwood", "check", {"stat": 12, "dc": 15}, dice=[15], seed=1)


def test_run_takes_flags_as_booleans():
    # advantage keeps the higher of two d20s: 3 and 17 give 17 + 12
    result = interpreter.run("lockwood", "check", {"stat": 12, "dc": 15, "advantage": True}, dice=[3, 17])
    assert result.values["total"] == 29


def test_odds_are_exact_fractions():
    odds = interpreter.odds(interpreter.load_ruleset("lockwood"), "check", {"stat": 12, "dc": 15})
    assert odds.exact
    assert odds.outcomes["critical_success"] == Fraction(1, 20)
    assert sum(odds.outcomes.values()) == 1


def test_roll_gives_every_die():
    roll = interpreter.roll("4d6kh3", dice=[2, 1, 4, 6])
    assert roll.value == 12
    assert [d.value for d in roll.dice] == [2, 1, 4, 6]
    assert [d.kept for d in roll.dice] == [True, False, True, True]


def test_validate_lists_problems_and_load_raises_them(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("ruleset: broken\ntitle: Broken\nconstants:\n  x: 1\nbogus: 2\n", encoding="utf-8")
    found = interpreter.validate(str(broken))
    assert found and all(str(p).count("\n") == 0 for p in found)
    with pytest.raises(Invalid):
        interpreter.load_ruleset(str(broken))
    assert interpreter.validate("lockwood") == []


def test_run_with_a_sheet_writes_back_unless_told_not_to(tmp_path, rules):
    sheet = tmp_path / "marco.yaml"
    assert rules("sheet", "new", "nwod", "-o", str(sheet), "--name", "Marco").exit_code == 0
    before = sheet.read_bytes()
    dry = interpreter.run("nwod", "take_damage", {"amount": 2, "type": "lethal"}, sheet=str(sheet), write=False)
    assert dry.changes and sheet.read_bytes() == before
    interpreter.run("nwod", "take_damage", {"amount": 2, "type": "lethal"}, sheet=str(sheet))
    marks = interpreter.read_sheet(str(sheet))["tracks"]["health"]["marks"]
    assert marks[:3] == ["lethal", "lethal", None]
    shutil.rmtree(tmp_path, ignore_errors=True)
