"""A start pays only for what the command runs: `rules run` and `rules odds` on a ruleset the
cache knows import neither the YAML parser, nor the schema checker, nor the other commands, nor
(an everyday line, read by interpreter.cli.quick) click.

Each case is a fresh process (imports are per process), run twice on one cache folder: the first
fills the cache, the second is the one checked.  Nothing here is timed; bench/procedure_bench.py
measures the time.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

# Modules only other commands (or a file the cache does not know) need.
NOT_FOR_A_RUN = (
    "ruamel.yaml", "jsonschema", "interpreter.load.schema", "interpreter.load.events", "interpreter.load.build",
    "interpreter.cli.diff", "interpreter.ruleset.changes", "interpreter.procedure.compare",
    "interpreter.cli.export", "interpreter.cli.describe", "interpreter.cli.prose", "interpreter.cli.sheets",
    "interpreter.sheet.file", "interpreter.cli.dice", "click.shell_completion", "icepool", "difflib",
    "tempfile", "importlib.resources", "interpreter.load.overlay", "interpreter.sheet.creation", "pathlib",
    "click", "interpreter.cli.commands", "interpreter.cli.group",
) + (("hashlib",) if sys.version_info < (3, 12) else ())  # (3.12 renamed the module the cache uses instead)

# Modules a run that rolls dice does not need (exact odds), and one that odds do not (rolling).
ONLY_FOR_ODDS = ("interpreter.dice.odds", "interpreter.dice.saturate", "interpreter.dice.distribution",
                 "interpreter.cli.odds_text", "interpreter.procedure.odds", "interpreter.procedure.exact", "fractions",
                 "interpreter.procedure.program")
ONLY_FOR_ROLLING = ("random", "interpreter.procedure.run", "interpreter.procedure.run_context",
                    "interpreter.procedure.function")

# Modules a run or odds need only when a roll reads its pool (`read:`), and the library's face, which the
# command line never uses: none of the bundled procedures below reads a pool.
ONLY_FOR_POOL_READS = ("interpreter.dice.reading", "interpreter.dice.pool", "interpreter.dice.additive")
LIBRARY_FACE = ("interpreter.api.functions", "interpreter.api.calls", "interpreter.api.ruleset")

PROBE = """
import json, sys
before = set(sys.modules)  # (an editable install's finder loads pathlib before anything runs)
from interpreter.cli import console
sys.argv = ["rules", *sys.argv[1:]]
try:
    console()
except SystemExit as done:
    code = done.code
sys.stdout.flush()
print(json.dumps(sorted(set(sys.modules) - before)), file=sys.stderr)
"""


def modules_after(tmp_path, *argv: str) -> tuple[str, set[str]]:
    """The output of `rules ARGV` in a new process, and the modules that process had imported."""
    env = dict(os.environ, RULESMITH_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("RULESMITH_CACHE", None)
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, env=env,
                          check=True)
    return done.stdout, set(json.loads(done.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize("argv", [
    ("run", "lockwood", "check", "stat=12", "dc=15", "--seed", "1"),
    ("odds", "lockwood", "check", "stat=12", "dc=15"),
    ("run", "nwod", "action", "pool=5", "--seed", "1"),
    ("odds", "wwn", "attack", "bonus=3", "ac=14", "damage=1d8"),
    ("run", "rollunder", "check", "stat=12", "--json", "--seed", "2"),
])
def test_a_run_or_odds_on_a_cached_ruleset_imports_only_what_it_uses(tmp_path, argv):
    first, loaded_first = modules_after(tmp_path, *argv)
    again, loaded = modules_after(tmp_path, *argv)
    assert again == first and again  # the same output, from the cache
    other_command = ONLY_FOR_ODDS if argv[0] == "run" else ONLY_FOR_ROLLING
    for modules in (loaded_first, loaded):  # (a bundled ruleset's first start reads the record shipped with it)
        assert sorted(m for m in NOT_FOR_A_RUN if m in modules) == []
        assert sorted(m for m in other_command if m in modules) == []
        assert "interpreter.load.shape" not in modules  # (its shipped record passed this very schema)


@pytest.mark.parametrize("argv", [
    ("run", "lockwood", "check", "stat=12", "dc=15", "--seed", "1"),
    ("odds", "nwod", "action", "pool=5"),
])
def test_a_warm_start_loads_neither_pool_reading_nor_the_library_face(tmp_path, argv):
    modules_after(tmp_path, *argv)  # (the first fills the cache)
    out, loaded = modules_after(tmp_path, *argv)
    assert out
    assert sorted(m for m in ONLY_FOR_POOL_READS + LIBRARY_FACE if m in loaded) == []
    assert "interpreter.procedure.kinds" in loaded  # (the probe sees what the run did import)


@pytest.mark.parametrize("argv", [("roll", "4d6kh3", "--seed", "7"), ("roll", "1d20+5", "--json"), ("odds", "3d6"),
                                  ("odds", "2d20kh1+5>=15", "3d6", "--json")])
def test_a_roll_or_the_odds_of_dice_load_no_ruleset_and_no_click(tmp_path, argv):
    out, loaded = modules_after(tmp_path, *argv)
    assert out
    assert sorted(m for m in ("click", "interpreter.cli.commands", "interpreter.pipeline", "ruamel.yaml",
                              "interpreter.ruleset.compiler") if m in loaded) == []
    if len(argv) < 4:  # (several expressions: the first is looked for as a ruleset file, which reads the folders)
        assert sorted(m for m in (*NOT_FOR_A_RUN, "interpreter.load.cache") if m in loaded) == []


POOLS = """ruleset: pools
title: Pools
description: One roll read for doubles.
procedures:
  move:
    outcomes: {again: the two dice match, done: the two dice differ}
    values: {spaces: the spaces moved}
    steps:
      - roll: {spaces: 2d6}
        read: {doubles: any match}
      - decide:
          - {when: doubles, outcome: again}
          - {outcome: done}
"""


@pytest.mark.parametrize("command", ["run", "odds"])
def test_a_roll_that_reads_its_pool_loads_the_reading_when_it_runs(tmp_path, command):
    path = tmp_path / "pools.yaml"
    path.write_text(POOLS, encoding="utf-8")
    argv = (command, str(path), "move")
    modules_after(tmp_path, *argv)
    out, loaded = modules_after(tmp_path, *argv)
    assert ("again" in out and "done" in out) if command == "odds" else "spaces" in out
    assert sorted(m for m in ONLY_FOR_POOL_READS if m in loaded) == sorted(ONLY_FOR_POOL_READS)


def test_a_ruleset_the_cache_does_not_know_is_parsed_once_then_read_back(tmp_path):
    from interpreter.load.bundled import rulesets_dir

    copy = tmp_path / "mine.yaml"
    copy.write_bytes((rulesets_dir() / "lockwood.yaml").read_bytes())
    argv = ("run", str(copy), "check", "stat=12", "dc=15", "--seed", "1")
    first, loaded_first = modules_after(tmp_path, *argv)
    again, loaded = modules_after(tmp_path, *argv)
    assert again == first and "check" in again
    assert "ruamel.yaml" in loaded_first  # the first start parsed the file (the probe sees imports)
    assert sorted(m for m in NOT_FOR_A_RUN if m in loaded) == []


def test_help_lists_every_command_without_loading_them_or_compiling_a_ruleset(tmp_path):
    modules_after(tmp_path, "--help")  # (the first fills the cache)
    out, loaded = modules_after(tmp_path, "--help")
    for name in ("describe", "diff", "export", "list", "odds", "lsp", "roll", "run", "schema", "sheet", "validate"):
        assert f"\n  {name} " in out
    assert "rules run lockwood check stat=12 dc=15" in out  # the example, from the first sampled procedure
    heavy = {"interpreter.cli.diff", "interpreter.cli.export", "interpreter.cli.sheets", "interpreter.cli.dice",
             "interpreter.cli.lsp", "interpreter.pipeline", "interpreter.procedure.kinds", "interpreter.ruleset.compiler"}
    assert sorted(heavy & loaded) == []


def test_the_help_of_the_group_is_the_same_with_every_command_loaded():
    """The summaries the group lists for commands not loaded yet are the first sentences of their own help."""
    import click
    from click.testing import CliRunner

    from interpreter.cli.commands import main

    def shown() -> str:
        return CliRunner().invoke(main, ["--help"], prog_name="rules").output

    before = shown()
    ctx = click.Context(main)
    for name in list(main.lazy):
        main.get_command(ctx, name)
    assert not main.lazy
    assert shown() == before


def test_version_is_told_from_a_checkout_too(tmp_path):
    """`rules --version` gives the installed version, or `checkout` where rulesmith runs from its source."""
    out, _ = modules_after(tmp_path, "--version")
    assert re.fullmatch(r"rules, version (checkout|\d+\.\d+\S*)\n", out)
