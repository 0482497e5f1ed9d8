"""An everyday `rules run`, `rules odds` or `rules roll` line is read without click (interpreter.cli.quick): the same
parameters click would read, the same body, the same output, mistakes and exit codes.

- the grammar is a part of each click command: the same options, names and kinds of value;
- on random lines, wherever the grammar takes one, click reads the same parameters from it (and
  accepts it): the grammar declines what it does not know, it never reads a line otherwise;
- whole commands, run both ways in new processes, print the same and exit alike.
"""

from __future__ import annotations

import inspect
import os
import random
import subprocess
import sys
from pathlib import Path

import click
import pytest

from interpreter.cli import quick, run_odds
from interpreter.cli.commands import main

ROOT = Path(__file__).resolve().parent.parent
BODIES = {name: quick.body_of(name) for name in quick.GRAMMARS}


def command_of(name: str) -> click.Command:
    """The click command of that name (a command loaded when asked for included)."""
    command = main.get_command(click.Context(main), name)
    assert command is not None
    return command


def test_the_grammar_is_a_part_of_each_click_command():
    for name, grammar in quick.GRAMMARS.items():
        command = command_of(name)
        options = {opt: param for param in command.params if isinstance(param, click.Option) for opt in param.opts}
        arguments = [param for param in command.params if isinstance(param, click.Argument)]
        assert [a.name for a in arguments] == [*grammar.positional, *([grammar.rest] if grammar.rest else [])], name
        assert [a.required for a in arguments[:len(grammar.positional)]] == \
            [i < grammar.required for i in range(len(grammar.positional))], name
        assert [a.nargs for a in arguments] == [1] * len(grammar.positional) + ([-1] if grammar.rest else [])
        for flag, dest in grammar.flags.items():
            assert options[flag].is_flag and options[flag].name == dest and not options[flag].multiple, flag
        for option, (dest, _) in grammar.values.items():
            assert not options[option].is_flag and options[option].name == dest and options[option].nargs == 1, option
        # the body's parameters, in the click command's order, with click's defaults
        body = inspect.signature(BODIES[name]).parameters
        assert list(body) == [p.name for p in command.params], name
        for param in command.params:
            if param.name in grammar.positional[grammar.required:] or isinstance(param, click.Option):
                want = () if param.multiple else False if isinstance(param, click.Option) and param.is_flag else None
                assert body[param.name].default == want, (name, param.name)


WORDS = ["lockwood", "check", "stat=12", "dc=15", "3d6", "", "-", "--", "-h", "--help", "--json", "--csv", "--all",
         "--at-least", "--at-most", "--outcomes", "--seed", "7", "-3", "1e3", "+5", "007", "٣", "--seed=5", "--seed=",
         "--times", "0", "2", "--times=1", "--dice", "1,2", "--dice=-1", "--dice=", "--where", "successes >= 3",
         "--where=x > 1", "--percentiles", "10,50", "--sheet", "s.yaml", "--plot", "a.svg", "--json=1", "--force",
         "--dry-run", "--no-backup", "--version", "-j", "--jso", "99999999999999999999", "x=-1", "-x=1", "1d20+5",
         "--set", "a=1", "folder", "--sheet=folder", "--sheet=", "missing.yaml"]


PLAIN = ["lockwood", "check", "stat=12", "3d6", "4d6kh3", "--json", "--seed", "7", "--times", "2", "--dice", "1,2", "--where",
         "--percentiles", "--csv", "--at-least", "--sheet", "s.yaml", "--dry-run"]


def click_params(argv: list[str]) -> dict[str, object] | None:
    """The parameters click reads from a `rules COMMAND ...` line, or None when it refuses the line."""
    group = main.make_context("rules", [argv[0]], resilient_parsing=True)
    try:
        with command_of(argv[0]).make_context(argv[0], list(argv[1:]), parent=group) as ctx:
            return dict(ctx.params)
    except (click.UsageError, click.exceptions.Exit):
        return None


def test_on_random_lines_the_grammar_reads_what_click_reads_or_declines(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    (tmp_path / "s.yaml").write_text("ruleset: x\n", encoding="utf-8")
    rng = random.Random(20261202)
    taken = 0
    for _ in range(8000):
        argv = [rng.choice(sorted(quick.GRAMMARS)),
                *(rng.choice(WORDS if rng.random() < 0.3 else PLAIN) for _ in range(rng.randint(0, 7)))]
        read = quick.parsed(argv, {})
        if read is None:
            continue
        taken += 1
        command, given = read
        body = inspect.signature(BODIES[command]).parameters
        want = {name: p.default for name, p in body.items() if p.default is not inspect.Parameter.empty}
        want.update(given)
        got = click_params(argv)
        assert got is not None, f"click refuses a line the grammar takes: {argv}"
        assert got == want, argv
    assert taken > 800  # (the grammar takes a good share of the lines: else this would prove nothing)


@pytest.mark.parametrize("argv", [
    ["run", "lockwood", "check", "stat=12", "dc=15", "--seed", "1", "--json"],
    ["run", "lockwood", "check", "--dice=3,4", "stat=12"],
    ["run", "lockwood", "check", "stat=12", "--times", "100", "--seed=-2"],
    ["odds", "3d6"],
    ["odds", "lockwood", "check", "stat=10..12", "--csv", "--at-least", "--percentiles", "10,90"],
    ["odds", "nwod", "action", "pool=5", "--where", "successes >= 3", "--json"],
    ["roll", "4d6kh3", "--seed", "7", "--json"],
    ["roll", "5d10x10cs>=8", "--dice", "1,3,5,7,10,8"],
    ["run", "nwod", "take_damage", "amount=2", "type=lethal", "--sheet", "marco.yaml", "--dry-run"],
])
def test_everyday_lines_are_read_here(argv):
    read = quick.parsed(argv, {})
    assert read is not None and read[1] == {k: v for k, v in click_params(argv).items()
                                             if k in read[1]}


@pytest.mark.parametrize(("argv", "environ"), [
    (["run", "lockwood", "check", "-h"], {}),
    (["run", "lockwood", "check", "--sheet", "."], {}),
    (["odds", "lockwood", "check", "--sheet=/"], {}),
    (["run", "lockwood", "check", "--seed", "1", "--seed", "2"], {}),
    (["run", "lockwood", "check", "--times", "0"], {}),
    (["run", "lockwood"], {}),
    (["--json", "run", "lockwood", "check"], {}),
    (["odds", "lockwood", "check", "--plot", "a.svg"], {}),
    (["odds", "lockwood", "check", "--", "x=1"], {}),
    (["validate"], {}),
    (["odds", "3d6"], {"_RULES_COMPLETE": "bash_complete"}),
    (["roll", "1d20+bonus", "--set", "bonus=5"], {}),
    (["roll", "1d20", "2d6"], {}),
])
def test_what_the_grammar_does_not_know_is_left_to_click(argv, environ):
    assert quick.parsed(argv, environ) is None


# ----------------------------------------------------------------- whole commands, both ways

CLICK_ONLY = """import sys
sys.path.insert(0, {root!r})
from interpreter.cli.commands import main
main()
"""

BEST_OF = """ruleset: warned
title: Warned
description: A best_of whose steps set no outcome (a warning), and a check.
procedures:
  check:
    outcomes: {ok: four or more, bad: less}
    values: {focus: the die}
    steps:
      - best_of: 2
        steps:
          - roll: {focus: 1d6}
      - decide: [{when: focus >= 4, outcome: ok}, {outcome: bad}]
"""

LINES = [
    ["run", "lockwood", "check", "stat=12", "dc=15", "--seed", "1"],
    ["run", "lockwood", "check", "stat=12", "dc=15", "--seed", "1", "--json"],
    ["run", "lockwood", "check", "stat=12", "dc=15", "--dice", "3"],
    ["run", "lockwood", "check", "stat=12", "dc=15", "--dice", "3,4,5"],
    ["run", "lockwood", "check", "stat=12", "dc=15", "--dice", "x"],
    ["run", "lockwood", "check", "stat=12", "dc=15", "--seed", "1", "--dice", "3"],
    ["run", "lockwood", "check", "stat=12", "dc=15", "--seed", "1", "--dice", "3", "--json"],
    ["run", "lockwood", "chek", "--seed", "1"],
    ["run", "lockwood", "chek", "--seed", "1", "--json"],
    ["run", "no-such-ruleset", "check", "--seed", "1"],
    ["run", "lockwood", "check", "stat=abc", "dc=15", "--seed", "1"],
    ["run", "lockwood", "check", "stat", "--seed", "1"],
    ["run", "lockwood", "check", "stat=12", "dc=15", "--times", "50", "--seed", "3"],
    ["run", "lockwood", "check", "stat=12", "dc=15", "--times", "50", "--seed", "3", "--json"],
    ["run", "lockwood", "check", "stat=12", "--times", "5", "--dice", "3"],
    ["odds", "lockwood", "check", "stat=12", "dc=15"],
    ["odds", "lockwood", "check", "stat=12", "dc=15", "--json", "--at-least"],
    ["odds", "lockwood", "check", "stat=10..12", "dc=15", "--csv"],
    ["odds", "lockwood", "check", "stat=10..12", "dc=15", "--percentiles", "10,50"],
    ["odds", "lockwood", "check", "stat=12", "dc=15", "--percentiles", "10,50"],
    ["odds", "lockwood", "check", "stat=12", "dc=15", "--json", "--csv"],
    ["odds", "nwod", "action", "pool=5", "--where", "successes >= 3"],
    ["odds", "nwod", "action", "pool=5", "--where", "successes >=", "--json"],
    ["odds", "3d6", "4d6kh3", "--all"],
    ["odds", "2d20kh1+5>=15", "--json"],
    ["odds", "3d6", "--where", "x > 1"],
    ["odds", "3d6x", "--json"],
    ["odds", "warned.yaml", "check", "--outcomes"],
    ["run", "warned.yaml", "check", "--dice", "2,6"],
    ["roll", "1d20+5", "--seed", "3"],
    ["roll", "4d6kh3", "--seed", "7", "--json"],
    ["roll", "5d10x10cs>=8", "--dice", "1,3,5,7,10,8"],
    ["roll", "2d6", "--dice", "3"],
    ["roll", "1d6", "--dice", "x"],
    ["roll", "1d6", "--dice", "x", "--json"],
    ["roll", "1d6", "--seed", "1", "--dice", "2"],
    ["roll", "1d", "--seed", "1"],
    ["roll", "1d", "--seed", "1", "--json"],
    ["roll", "d20+bonus", "--seed", "1"],
    ["roll", "1d6", "--dice", "9"],
    ["roll", "3d6kh5", "--seed", "2"],
    ["run", "nwod", "take_damage", "amount=2", "type=lethal", "--sheet", "marco.yaml", "--dry-run"],
    ["run", "nwod", "take_damage", "amount=2", "type=lethal", "--sheet", "marco.yaml"],
    ["run", "nwod", "take_damage", "amount=9", "type=bashing", "--sheet", "marco.yaml", "--no-backup", "--json",
     "--seed", "1"],
    ["run", "nwod", "take_damage", "amount=2", "type=lethal", "--sheet", "missing.yaml"],
    ["run", "nwod", "take_damage", "amount=2", "type=lethal", "--sheet", "marco.yaml", "--times", "5"],
    ["run", "nwod", "stay_conscious", "--sheet", "marco.yaml", "--seed", "3"],
    ["odds", "nwod", "action", "--sheet", "marco.yaml", "pool=3"],
    ["odds", "3d6", "--sheet", "marco.yaml"],
]


SHEET: list[str] = []  # (a new nwod sheet's text, made once)


def fresh_sheet(folder: Path) -> None:
    """Write marco.yaml, a new character of the bundled nwod, into the folder (and no backup beside it)."""
    if not SHEET:
        from click.testing import CliRunner

        made = folder / "made.yaml"
        done = CliRunner().invoke(main, ["sheet", "new", "nwod", "-o", str(made), "--name", "Marco"])
        assert done.exit_code == 0, done.output
        SHEET.append(made.read_text(encoding="utf-8"))
        made.unlink()
    (folder / "marco.yaml").write_text(SHEET[0], encoding="utf-8")
    (folder / "marco.yaml.bak").unlink(missing_ok=True)


def run_both(tmp_path: Path, argv: list[str]) -> list[tuple[object, ...]]:
    """The exit code, stdout and stderr of the line read here and read by click, each in a new process on a
    fresh sheet, with the sheet (and its backup) as each left it."""
    other = tmp_path / "click-only"
    other.mkdir(exist_ok=True)
    (other / "cli.py").write_text(CLICK_ONLY.format(root=str(ROOT)), encoding="utf-8")
    (tmp_path / "warned.yaml").write_text(BEST_OF, encoding="utf-8")
    env = dict(os.environ, RULESMITH_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    env.pop("RULESMITH_CACHE", None)
    ends = []
    for script in (ROOT / "cli.py", other / "cli.py"):
        fresh_sheet(tmp_path)
        done = subprocess.run([sys.executable, str(script), *argv], capture_output=True, text=True, env=env,
                              cwd=tmp_path, check=False)
        files = tuple(p.read_text(encoding="utf-8") if p.exists() else None
                      for p in (tmp_path / "marco.yaml", tmp_path / "marco.yaml.bak"))
        ends.append((done.returncode, done.stdout, done.stderr, files))
    return ends


@pytest.mark.parametrize("argv", LINES, ids=[" ".join(line) for line in LINES])
def test_a_line_prints_the_same_and_exits_alike_both_ways(tmp_path, argv):
    assert quick.parsed(argv, {}) is not None  # (this line is one the grammar reads)
    direct, through_click = run_both(tmp_path, argv)
    assert "Traceback" not in str(direct[2]) + str(through_click[2])
    assert direct == through_click


@pytest.mark.parametrize("raised", [KeyboardInterrupt, EOFError, ValueError, MemoryError])
def test_an_interrupt_or_a_bug_in_the_body_ends_alike_both_ways(monkeypatch, capsys, raised):
    """Ctrl-C: an empty line and `aborted` on stderr, exit 1; a bug: one line asking for a report, exit 3."""
    def body(*_: object, **__: object) -> None:
        raise raised("boom")

    monkeypatch.setattr(run_odds, "odds", body)
    monkeypatch.setattr(quick, "body_of", lambda command: body)
    monkeypatch.setattr(quick, "program_name", lambda: "rules")  # (under `python -m pytest` it would decline)
    monkeypatch.delenv("RULESMITH_DEBUG", raising=False)
    argv = ["odds", "3d6", "--json"] if raised is ValueError else ["odds", "3d6"]
    ends = []
    for reading in (quick.main, lambda line: main.main(line, prog_name="rules")):
        with pytest.raises(SystemExit) as done:
            reading(argv)
        ends.append((done.value.code, *capsys.readouterr()))
    assert ends[0] == ends[1]
    code, out, err = ends[0]
    if raised is KeyboardInterrupt:
        assert (code, out, err) == (1, "", "\naborted\n")
    else:
        assert code == 3 and "internal error: " in (out + err) and "please report" in (out + err)
