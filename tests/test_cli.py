"""The command line's manners: help everywhere, one-line mistakes, any output encoding, tidy folders."""

from __future__ import annotations

import io
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import click
import pytest
from helpers import RULES, checkout_env, one_line_error

from cli import main


def commands(group: click.Group = main, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The path of every command and group under `rules`."""
    out = [prefix]
    ctx = click.Context(group)
    for name in sorted(group.list_commands(ctx)):  # (lazy commands too, loaded or not)
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            out += commands(command, (*prefix, name))
        else:
            out.append((*prefix, name))
    return out


def help_examples(text: str) -> list[str]:
    return [line.strip() for line in text.split("Examples:", 1)[1].splitlines() if line.strip()]


@pytest.mark.parametrize("path", commands(), ids=lambda p: " ".join(p) or "rules")
def test_every_command_answers_h_and_its_help_ends_with_real_examples(rules, path):
    short, long = rules(*path, "-h"), rules(*path, "--help")
    assert short.exit_code == 0 and short.stdout == long.stdout
    examples = help_examples(short.stdout)
    assert 2 <= len(examples) <= 3 and short.stdout.rstrip().endswith(examples[-1])
    assert all(e.startswith("rules ") for e in examples)


def test_every_help_example_runs(rules, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    every = {e: None for path in commands() for e in help_examples(rules(*path, "-h").stdout)}
    # the examples that make files (a sheet, an exported ruleset) first, then those that use them
    for example in sorted(every, key=lambda e: not e.startswith(("rules sheet new", "rules export"))):
        args = shlex.split(example)[1:]
        if ">" in args:  # a redirection: the shell's business, not the command's
            args = args[: args.index(">")]
        if args[0] == "lsp":  # a server ends its own process when its input ends: run it as one, with no input
            done = subprocess.run([*RULES, *args], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                  env=checkout_env(), timeout=60, check=False)
            assert (done.returncode, done.stdout) == (0, ""), (example, done.stderr)
            continue
        result = rules(*args)
        assert result.exit_code == 0, (example, result.stderr)


def test_run_help_after_a_procedure_describes_that_procedure(rules):
    result = rules("run", "lockwood", "check", "stat=3", "-h")
    assert result.exit_code == 0
    assert result.stdout == rules("describe", "lockwood", "check").stdout
    assert result.stdout.startswith("Usage: rules run lockwood check stat=STAT dc=DC [mod=MOD]")
    assert "- `luck`: whole number, at least 0, default 0" in result.stdout
    assert rules("odds", "lockwood", "check", "--help").stdout == result.stdout


@pytest.mark.parametrize("args,message", [
    (["run", "lockwood"], "rules run: Missing argument 'PROCEDURE'; see 'rules run -h'"),
    (["roll", "1d6", "--seed", "1", "--dice", "3"], "rules roll: use either --seed or --dice, not both; see 'rules roll -h'"),
    (["run", "lockwood", "check", "--seed", "1", "--dice", "3"],
     "rules run: use either --seed or --dice, not both; see 'rules run -h'"),
    (["rol", "1d6"], "rules: No such command 'rol'. Did you mean 'roll'?; see 'rules -h'"),
])
def test_a_usage_mistake_is_one_line_with_exit_code_2(rules, args, message):
    result = rules(*args)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", message + "\n")


def test_a_user_mistake_is_one_line_with_exit_code_1(rules):
    assert one_line_error(rules("run", "lockwood", "chek")) == \
        "ruleset 'lockwood' has no procedure 'chek'; did you mean 'check'?"


# Every command once, for the encoding tests: (arguments, whether it succeeds)
EVERY_COMMAND = [
    ["list"], ["validate", "lockwood"], ["describe", "nwod"], ["describe", "lockwood", "check"], ["schema"],
    ["roll", "5d10x10cs>=8", "--dice", "1,3,5,7,10,8"], ["roll", "2d"],
    ["run", "nwod", "action", "pool=7", "--dice", "1,3,5,7,10,8"], ["run", "lockwood", "chek"],
    ["odds", "2d20kh1+5>=15"], ["odds", "lockwood", "check", "stat=12", "dc=15", "--at-least"],
    ["sheet", "new", "nwod", "-o", "vera.yaml", "--name", "Véra"], ["sheet", "check", "vera.yaml"],
    ["sheet", "show", "vera.yaml"], ["run", "nwod", "take_damage", "amount=2", "type=lethal", "--sheet", "vera.yaml"],
    ["export", "wwn"], ["export", "lockwood", "--overlay", "my-lockwood", "-o", "mine.yaml"],
    ["diff", "lockwood", "mine.yaml", "check", "stat=12", "dc=15"], ["diff", "lockwood", "nothing.yaml"],
    ["rules-of-nothing"], ["-h"],
]


@pytest.mark.parametrize("encoding", ["cp1252", "ascii"])
def test_no_output_encoding_ends_in_a_traceback(tmp_path, monkeypatch, encoding):
    """In-process with the streams a non-UTF-8 terminal gives; the subprocess test below checks the real thing."""
    monkeypatch.chdir(tmp_path)
    for args in EVERY_COMMAND:
        out, err = io.BytesIO(), io.BytesIO()
        monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding=encoding))
        monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(err, encoding=encoding))
        with pytest.raises(SystemExit) as done:
            main.main(args, prog_name="rules")
        sys.stdout.flush()
        sys.stderr.flush()
        text = (out.getvalue() + err.getvalue()).decode(encoding)
        assert done.value.code in (0, 1, 2) and "Traceback" not in text and "Error" not in text[:6], args
    monkeypatch.undo()
    os.chdir(tmp_path)
    bars = subprocess_rules(tmp_path, {"PYTHONIOENCODING": "cp1252"}, "odds", "3d6").stdout
    assert "#" in bars and "█" not in bars


def subprocess_rules(folder: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    full = checkout_env({**os.environ, **env})
    return subprocess.run([*RULES, *args], cwd=folder, env=full, capture_output=True, text=True,
                          encoding="utf-8", errors="replace", timeout=120, check=False)


@pytest.mark.parametrize("env", [{"PYTHONIOENCODING": "cp1252"}, {"LANG": "C", "LC_ALL": "C"}],
                         ids=["cp1252", "LANG=C"])
def test_every_command_under_a_narrow_encoding_has_no_traceback(tmp_path, env):
    script = " ; ".join(shlex.join([*RULES, *args]) + " >> out 2>&1; echo $? >> codes" for args in EVERY_COMMAND)
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=checkout_env({**os.environ, **env}), timeout=600,
                          check=False)
    assert done.returncode == 0
    text = (tmp_path / "out").read_bytes().decode("utf-8", errors="replace")
    codes = (tmp_path / "codes").read_text().split()
    assert "Traceback" not in text and "UnicodeEncodeError" not in text
    assert len(codes) == len(EVERY_COMMAND) and set(codes) <= {"0", "1", "2"}


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_dry_run_sheet_check_and_a_failed_run_leave_no_new_file(rules, tmp_path):
    sheet = tmp_path / "vera.yaml"
    assert rules("sheet", "new", "nwod", "-o", str(sheet)).exit_code == 0
    before, text = listing(tmp_path), sheet.read_bytes()
    assert before == ["vera.yaml"]
    dry = rules("run", "nwod", "take_damage", "amount=2", "type=lethal", "--sheet", str(sheet), "--dry-run")
    assert dry.exit_code == 0 and "would change" in dry.stdout
    assert rules("sheet", "check", str(sheet)).exit_code == 0
    one_line_error(rules("run", "nwod", "take_damage", "amount=x", "type=lethal", "--sheet", str(sheet)))
    one_line_error(rules("run", "nwod", "take_damage", "amount=1", "type=lethal", "--sheet", str(sheet),
                         "--dice", "3"))
    assert listing(tmp_path) == before and sheet.read_bytes() == text


def test_a_change_keeps_one_bak_unless_no_backup(rules, tmp_path):
    sheet = tmp_path / "vera.yaml"
    rules("sheet", "new", "nwod", "-o", str(sheet))
    text = sheet.read_bytes()
    assert rules("run", "nwod", "take_damage", "amount=1", "type=lethal", "--sheet", str(sheet),
                 "--no-backup").exit_code == 0
    assert listing(tmp_path) == ["vera.yaml"] and sheet.read_bytes() != text
    changed = sheet.read_bytes()
    assert rules("run", "nwod", "take_damage", "amount=1", "type=lethal", "--sheet", str(sheet)).exit_code == 0
    assert listing(tmp_path) == ["vera.yaml", "vera.yaml.bak"] and (tmp_path / "vera.yaml.bak").read_bytes() == changed
    # a run that changes nothing on the sheet writes nothing, not even a new .bak
    (tmp_path / "vera.yaml.bak").unlink()
    after = sheet.read_bytes()
    assert rules("run", "nwod", "action", "pool=3", "--sheet", str(sheet), "--seed", "1").exit_code == 0
    assert listing(tmp_path) == ["vera.yaml"] and sheet.read_bytes() == after


def test_odds_folds_what_never_varies_and_tiny_rows(rules):
    text = rules("odds", "nwod", "action", "pool=3").stdout
    assert "0.000%" not in text
    assert re.search(r"^always: chance = false, willpower_dice = 0, wound_penalty = 0$", text, re.MULTILINE)
    assert re.search(r"^  \(\d+ rows under 0.0005% not shown", text, re.MULTILINE)
    everything = rules("odds", "nwod", "action", "pool=3", "--all").stdout
    assert "always:" not in everything and "0.000%" in everything
    assert text.splitlines()[1].startswith("  exceptional_success")  # outcomes come first
    assert "successes" not in rules("odds", "nwod", "action", "pool=3", "--outcomes").stdout


def test_describe_tells_every_step_in_a_sentence_sheet_steps_included(rules):
    from interpreter.cli.prose import step_lines
    from interpreter.load.bundled import bundled_ids
    from interpreter.pipeline import compile_ref
    from interpreter.ruleset.specs import walk

    kinds = set()
    for ruleset_id in bundled_ids():
        for proc in compile_ref(ruleset_id).procedures.values():
            kinds |= {step.kind for step in walk(proc.steps)}
            lines = step_lines(proc.steps)
            assert len(lines) >= sum(1 for _ in walk(proc.steps))
            bare = [line for line in lines if re.fullmatch(r"\s*\d+\. [a-z_]+\.", line)]
            assert not bare, (ruleset_id, proc.name, bare)  # a kind with no sentence is shown by its key alone
    assert {"update", "require", "damage", "heal", "for_each"} <= kinds  # the sheet steps were among them
    text = rules("describe", "nwod", "take_damage").stdout
    assert re.search(r"^\d+\. Mark `amount` boxes of type `.*type.*` on the `health` track\.$", text, re.MULTILINE)
    top = compile_ref("nwod").constants["unlimited_rolls"]  # the YAML's `max: unlimited_rolls`
    assert f"- `amount`: whole number, 0 to {top}, required" in text


@pytest.mark.parametrize("words,cword,expected", [
    ("rules run lockwood ch", 3, ["check"]),
    ("rules odds lo", 2, ["lockwood"]),
    ("rules run lockwood check stat=12 ", 5, ["dc=", "mod=", "advantage=", "disadvantage=", "luck="]),
    ("rules run nwod take_damage amount=1 type=le", 5, ["type=lethal"]),
])
def test_shell_completion_knows_rulesets_procedures_and_parameters(rules, words, cword, expected, monkeypatch):
    monkeypatch.setenv("_RULES_COMPLETE", "bash_complete")
    monkeypatch.setenv("COMP_WORDS", words)
    monkeypatch.setenv("COMP_CWORD", str(cword))
    result = rules()
    got = [line.split(",", 1)[1] for line in result.stdout.splitlines()]
    assert got[: len(expected)] == expected if "=" not in expected[0] else set(expected) <= set(got)
