"""Each hostile input a black-box run got through, with its exact input and the one line it now gets.

Sheets that break the rules are refused before a procedure reads them and left byte-identical;
numbers, names and parameter values are checked where they are given; the command line's one
guard turns a bug into one line with exit code 3, and no input here reaches it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import one_line_error, refused_on_sheet

RULES = str(Path(sys.executable).with_name("rules"))  # the console script installed beside this Python
BIG = "9" * 5000
RANGE = "whole numbers must lie between -9223372036854775808 and 9223372036854775807 (64 bits)"


@pytest.fixture
def nwod_sheet(rules, tmp_path):
    """A new nwod sheet, which passes `rules sheet check`, and a way to make an edited copy of it."""
    path = tmp_path / "vera.yaml"
    assert rules("sheet", "new", "nwod", "-o", str(path), "--name", "Vera").exit_code == 0
    text = path.read_text(encoding="utf-8")

    def edited(old: str, new: str) -> Path:
        assert text.count(old) == 1, old
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
        return path

    return edited


def line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line)


EMPTY_HEALTH = "health: [null, null, null, null, null, null]"
BROKEN_SHEETS = [
    pytest.param(EMPTY_HEALTH, "health: [null, null, null, null, null, null, null, null]", "  health:",
                 "$.state.health: state.health: 8 boxes; the track has 6", id="a health track longer than Stamina allows"),
    pytest.param("temporary_health: 0 ", "temporary_health: -1 ", "temporary_health:",
                 "$.state.temporary_health: state.temporary_health: -1 is below the least, 0", id="negative temporary health"),
    pytest.param("  Stamina: 2 ", "  Stamina: 99 ", "Stamina:",
                 "$.traits.Stamina: traits.Stamina: 99 is above the most, 5", id="Stamina 99"),
    pytest.param("  Stamina: 2 ", "  Stamina: -5 ", "Stamina:",
                 "$.traits.Stamina: traits.Stamina: -5 is below the least, 1", id="Stamina -5"),
    pytest.param("  Stamina: 2  # Stamina, 1-5\n", "", "traits:",
                 "$.traits: traits: missing 'Stamina'", id="a missing trait"),
    pytest.param(EMPTY_HEALTH, "health: 3", "  health:",
                 "$.state.health: state.health must be a list of boxes (a damage type or null each), not a number",
                 id="health is a number"),
]


@pytest.mark.parametrize("old, new, at, message", BROKEN_SHEETS)
def test_a_sheet_that_breaks_the_rules_is_refused_and_left_alone(rules, nwod_sheet, old, new, at, message):
    sheet = nwod_sheet(old, new)
    row = line_of(sheet, at)
    got = refused_on_sheet(rules, "nwod", sheet, "take_damage", "amount=1", "type=bashing")
    assert got.startswith(f"{sheet}:{row}:") and got.endswith(message)
    # sheet check catches what run refuses, with the same line first
    check = rules("sheet", "check", str(sheet))
    assert check.exit_code == 1 and check.stderr.splitlines()[0] == got


def test_traits_null_is_refused(rules, nwod_sheet):
    text_before = "traits:\n"
    sheet = nwod_sheet(text_before, "traits: null\nold_traits:\n")
    got = refused_on_sheet(rules, "nwod", sheet, "take_damage", "amount=1", "type=bashing")
    assert got == f"{sheet}:5:1: $.old_traits: unknown key 'old_traits'; did you mean 'traits'?"  # under traits
    sheet = nwod_sheet(text_before, "traits: [1, 2]\nold_traits:\n")
    check = rules("sheet", "check", str(sheet))
    assert f"{sheet}:4:9: $.traits: traits must be a mapping of names to values, not a list" in check.stderr


def test_odds_refuse_a_broken_sheet_too(rules, nwod_sheet):
    sheet = nwod_sheet("  Stamina: 2 ", "  Stamina: 99 ")
    before = sheet.read_bytes()
    got = one_line_error(rules("odds", "nwod", "take_damage", "amount=1", "type=bashing", "--sheet", str(sheet)))
    assert got.endswith("$.traits.Stamina: traits.Stamina: 99 is above the most, 5")
    assert sheet.read_bytes() == before


@pytest.mark.parametrize("value", ["١٢", "１２", "1_000", "0x10", "1e3", " ", "12 13"])
def test_name_value_integers_are_ascii_digits(rules, value):
    got = one_line_error(rules("run", "wwn", "attack", f"bonus={value}", "ac=10", "damage=1d6", "--seed", "1"))
    assert got == f"parameter 'bonus' must be a whole number, not '{value}'"


def test_name_value_integers_beyond_64_bits_are_refused_before_conversion(rules):
    got = one_line_error(rules("run", "wwn", "attack", f"bonus={BIG}", "ac=10", "damage=1d6"))
    assert got == f"parameter 'bonus' is '{'9' * 30}…{'9' * 10}' (5000 characters): {RANGE}"
    got = one_line_error(rules("run", "wwn", "attack", "bonus=9223372036854775808", "ac=10", "damage=1d6"))
    assert got == f"parameter 'bonus' is '9223372036854775808': {RANGE}"
    got = one_line_error(rules("roll", "1d6", "--dice", "1,99999999999999999999"))
    assert got == f"--dice: '99999999999999999999' is out of range: {RANGE}"


def test_a_dice_parameter_is_checked_when_given_whatever_the_branch(rules):
    # seed 1 misses, so the damage dice are never rolled
    assert "miss" in rules("run", "wwn", "attack", "bonus=1", "ac=10", "damage=1d6", "--seed", "1").stdout
    got = one_line_error(rules("run", "wwn", "attack", "bonus=1", "ac=10", "damage=rm -rf", "--seed", "1"))
    assert got == "parameter 'damage' ('rm -rf'): unknown name 'rf'; give dice such as 1d8, or a whole number"


def test_a_full_width_name_in_a_formula_is_refused(rules, tmp_path):
    from helpers import edited_copy

    path = edited_copy(tmp_path, "wwn", ('shock_reaches: "shock > 0 and ac <= shock_ac"',
                                         'shock_reaches: "ｓｈｏｃｋ > 0 and ac <= shock_ac"'))
    row = line_of(path, "ｓｈｏｃｋ")
    col = path.read_text(encoding="utf-8").splitlines()[row - 1].index("ｓｈｏｃｋ") + 1
    got = one_line_error(rules("validate", str(path)))
    assert got == (f"{path}:{row}:{col}: $.procedures.attack.steps[1].let.shock_reaches: "
                   "the name 'ｓｈｏｃｋ' would be read as 'shock'; write 'shock'")


@pytest.mark.parametrize("name", ['x"\nruleset: lockwood', "a\\b'c: d # e", "tab\there\u2028line\x85sep\x7f", "Žofie 🎲"])
def test_sheet_new_writes_a_name_that_reads_back_identical(rules, tmp_path, name):
    from interpreter.sheet.file import SheetFile

    path = tmp_path / "new.yaml"
    assert rules("sheet", "new", "lockwood", "-o", str(path), "--name", name).exit_code == 0
    data = SheetFile.read(path).data
    assert data["name"] == name and data["ruleset"] == "lockwood"


def test_a_read_only_sheet_is_refused_not_replaced(rules, nwod_sheet):
    sheet = nwod_sheet("name:", "name:")
    sheet.chmod(0o444)
    got = refused_on_sheet(rules, "nwod", sheet, "take_damage", "amount=1", "type=bashing")
    assert got == f"{sheet}: the sheet is read-only (mode 0444); nothing was written; make it writable (chmod u+w) " \
                  "to let rules change it"


def run_rules(*args: str, stdout: int | None = subprocess.PIPE, env: dict[str, str] | None = None):
    return subprocess.run([RULES, *args], stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=60,
                          env=env, check=False)


def test_output_to_a_full_disk_is_one_line():
    with open("/dev/full", "w") as full:
        done = run_rules("odds", "3d6", stdout=full.fileno())
    assert (done.returncode, done.stderr) == (1, "cannot write the output: No space left on device\n")


def test_a_closed_pipe_is_one_line():
    proc = subprocess.Popen([RULES, "describe", "nwod"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader went away before the first byte
    _, err = proc.communicate(timeout=60)
    assert (proc.returncode, err.decode()) == (1, "cannot write the output: Broken pipe\n")


GUARD_PROBE = """\
import sys
from interpreter.cli import commands
from interpreter.load import bundled

def broken():
    raise KeyError("a bug\\nover two lines")

bundled.bundled_ids = commands.bundled_ids = broken
sys.argv = ["rules", "list"]
commands.main()
"""


def test_the_guard_turns_a_bug_into_one_line_with_exit_code_3(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(GUARD_PROBE)
    done = subprocess.run([sys.executable, str(probe)], capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stderr) == (3, "internal error: KeyError: 'a bug\\nover two lines'; please report\n")
    env = dict(os.environ, RULESMITH_DEBUG="1")
    done = subprocess.run([sys.executable, str(probe)], capture_output=True, text=True, timeout=60, env=env, check=False)
    assert done.returncode == 1 and "Traceback" in done.stderr and "KeyError" in done.stderr


def test_a_5000_digit_number_is_refused_where_it_stands(rules, tmp_path, nwod_sheet):
    from helpers import edited_copy

    path = edited_copy(tmp_path, "wwn", ("critwin: 20", f"critwin: {BIG}"))
    row = line_of(path, BIG)
    col = path.read_text(encoding="utf-8").splitlines()[row - 1].index(BIG) + 1
    expected = f"{path}:{row}:{col}: $.constants.critwin: number out of range: {RANGE}"
    assert one_line_error(rules("validate", str(path))) == expected
    assert one_line_error(rules("run", str(path), "attack", "bonus=1", "ac=10", "damage=1d6")) == expected
    sheet = nwod_sheet("  Stamina: 2 ", f"  Stamina: {BIG} ")
    row = line_of(sheet, BIG)
    expected = f"{sheet}:{row}:12: $.traits.Stamina: number out of range: {RANGE}"
    for command in (["sheet", "check"], ["sheet", "show"]):
        assert one_line_error(rules(*command, str(sheet))) == expected
    assert refused_on_sheet(rules, "nwod", sheet, "take_damage", "amount=1", "type=bashing") == expected


def test_a_huge_trait_bound_and_temporary_health_are_refused(rules, tmp_path, nwod_sheet):
    from helpers import edited_copy

    path = edited_copy(tmp_path, "wwn", ("critwin: 20", "critwin: " + "4" * 400))
    assert one_line_error(rules("validate", str(path))).endswith(f"$.constants.critwin: number out of range: {RANGE}")
    sheet = nwod_sheet("temporary_health: 0 ", f"temporary_health: {10**30} ")
    row = line_of(sheet, "temporary_health:")
    got = one_line_error(rules("sheet", "check", str(sheet)))
    assert got == f"{sheet}:{row}:21: $.state.temporary_health: number out of range: {RANGE}"
    assert refused_on_sheet(rules, "nwod", sheet, "take_damage", "amount=1", "type=bashing") == got


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe.yaml"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("args", [
    ["validate", "{fifo}"], ["describe", "{fifo}"], ["run", "{fifo}", "check"], ["odds", "{fifo}", "check"],
    ["sheet", "check", "{fifo}"], ["sheet", "show", "{fifo}"],
    ["run", "nwod", "take_damage", "amount=1", "type=lethal", "--sheet", "{fifo}"],
])
def test_a_fifo_is_refused_not_waited_on(fifo, args):
    done = run_rules(*(a.format(fifo=fifo) for a in args))
    assert (done.returncode, done.stderr) == (1, f"{fifo}: $: cannot read the file: it is a FIFO, not a regular file\n")


def test_a_sheet_naming_a_fifo_or_an_impossible_path_is_refused_at_its_ruleset_key(rules, tmp_path, fifo):
    cases = {fifo.name: "it is a FIFO, not a regular file",
             "b" * 10_000: "File name too long",
             "a\\0b": "the path contains a NUL character"}
    for ref, reason in cases.items():
        sheet = tmp_path / "sheet.yaml"
        sheet.write_text(f'ruleset: "{ref}"\nname: x\n', encoding="utf-8")
        got = one_line_error(rules("sheet", "check", str(sheet)))
        assert got.startswith(f"{sheet}:1:11: $.ruleset: the sheet's ruleset '") and got.endswith(f"cannot be read: {reason}")
        assert len(got) < 300


@pytest.mark.parametrize("ref", ["a" * 100_000, "a/" * 3000])
def test_a_path_too_long_is_one_short_line(rules, ref):
    got = one_line_error(rules("validate", ref))
    assert got == f"{ref[:60]}…{ref[-20:]} ({len(ref)} characters): $: cannot read the file: File name too long"


BUDGET_RULESET = """\
ruleset: budget
title: Budget probes
description: Requests too big for exact odds.
dice:
  big: 1d1000
procedures:
  best:
    summary: The best of a thousand d1000.
    outcomes: {done: done}
    values: {x: the roll}
    steps:
      - best_of: 1000
        tiebreak: x
        steps:
          - roll: {x: big}
      - decide:
          - {outcome: done}
  nested:
    summary: Three repeats of a thousand, one inside the other.
    outcomes: {done: done}
    values: {x: a count}
    steps:
      - let: {x: 0}
      - repeat: 1000
        steps:
          - repeat: 1000
            steps:
              - repeat: 1000
                steps:
                  - let: {x: x + 1}
      - decide:
          - {outcome: done}
"""

PEAK = """\
import resource, subprocess, sys
def limit():
    resource.setrlimit(resource.RLIMIT_CPU, (10, 11))  # far beyond the 1 s budget: a runaway is stopped, not waited on
done = subprocess.run(sys.argv[1:], capture_output=True, text=True, preexec_fn=limit)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
print(done.returncode, peak, done.stderr.strip(), sep="\\n")
"""


@pytest.mark.parametrize("args, message", [
    (["odds", "{budget}", "best"], ("{budget}:12:9: $.procedures.best.steps[0]: exact odds need more than 100000 steps; "
                                   "count sampled runs instead: `rules run budget best --times 10000`")),
    (["odds", "+".join(["1d1000"] * 61)], ("these exact odds need more than 1 s of work; use fewer dice, "
                                          "or roll it with `rules roll EXPR --seed N`")),
    # Which of the two budgets (100000 steps, 1 s of work) this one reaches first depends on the machine.
    (["odds", "{budget}", "nested"], "$.procedures.nested.steps[1].steps[0].steps[0].steps[0]: exact odds need more than "),
    (["run", "{budget}", "nested", "--seed", "1"], ("the procedure needs more than 100000 steps; a loop or repeat runs "
                                                    "too long, or rolls too many dice")),
    (["odds", "nwod", "extended", "pool=5", "required=1000"], "exact odds need more than"),
    (["odds", "nwod", "contested", "actor=500", "defender=500"], "exact odds need more than"),
])
def test_too_big_for_exact_odds_is_refused_fast_and_small(tmp_path, args, message):
    budget = tmp_path / "budget.yaml"
    budget.write_text(BUDGET_RULESET, encoding="utf-8")
    probe = tmp_path / "peak.py"
    probe.write_text(PEAK)
    command = [sys.executable, str(probe), RULES, *(a.format(budget=budget) for a in args)]
    code, peak_mb, stderr = subprocess.run(command, capture_output=True, text=True, timeout=300,
                                           check=True).stdout.split("\n", 2)
    assert code == "1" and "\n" not in stderr.strip()
    assert message.format(budget=budget) in stderr
    assert int(peak_mb) < 500, f"peak memory {peak_mb} MB"


def test_a_sampled_run_has_a_dice_limit_too(rules, tmp_path):
    path = tmp_path / "dice.yaml"
    path.write_text(BUDGET_RULESET.replace("big: 1d1000", "big: 1000d6").replace("best_of: 1000", "best_of: 200"),
                    encoding="utf-8")
    got = one_line_error(rules("run", str(path), "best", "--seed", "1"))
    assert got == (f"{path}:15:23: $.procedures.best.steps[0].steps[0].roll.x: the procedure rolls more than 100000 dice; "
                   "a loop or repeat runs too long, or rolls too many dice")
