"""A newcomer's first words with rules: bare groups show their help, the license is declared and
shipped, and no message sends anyone to install a distribution name that is not ours."""

from __future__ import annotations

import re
import subprocess
import tomllib
import warnings
from pathlib import Path

import pytest
from helpers import CHECKOUT

PYPROJECT = tomllib.loads((CHECKOUT / "pyproject.toml").read_text(encoding="utf-8"))
DISTRIBUTION = PYPROJECT["project"]["name"]


@pytest.mark.parametrize("path", [(), ("sheet",)], ids=["rules", "rules sheet"])
def test_a_bare_group_prints_its_readable_help_and_exits_0(rules, path):
    bare, asked = rules(*path), rules(*path, "-h")
    assert bare.exit_code == 0, bare.stderr
    assert bare.stderr == ""
    assert bare.stdout == asked.stdout  # the same help -h prints, on stdout
    lines = bare.stdout.splitlines()
    assert len(lines) > 8 and max(map(len, lines)) <= 100
    assert lines[0].startswith("Usage:") and "Commands:" in lines


def test_a_group_given_an_unknown_subcommand_is_still_a_usage_mistake(rules):
    wrong = rules("sheet", "nonsense")
    assert wrong.exit_code == 2 and "No such command 'nonsense'" in wrong.stderr


def test_the_license_is_mit_and_declared_in_the_project_metadata():
    text = (CHECKOUT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert re.search(r"^Copyright \(c\) \d{4} the rulesmith authors$", text, re.MULTILINE)
    assert "THE SOFTWARE IS PROVIDED \"AS IS\"" in text
    assert PYPROJECT["project"]["license"] == {"text": "MIT"}
    assert "License :: OSI Approved :: MIT License" in PYPROJECT["project"]["classifiers"]


def test_setuptools_writes_the_license_and_packs_the_license_file():
    setuptools = pytest.importorskip("setuptools")
    from setuptools.config.pyprojecttoml import apply_configuration

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ([tool.setuptools] is "beta" to older setuptools)
        dist = apply_configuration(setuptools.Distribution(), str(CHECKOUT / "pyproject.toml"))
    import io

    metadata = io.StringIO()
    dist.metadata.write_pkg_file(metadata)
    fields = metadata.getvalue().splitlines()
    assert f"Name: {DISTRIBUTION}" in fields
    assert "License: MIT" in fields  # what `pip show` prints as License
    assert "License-File: LICENSE" in fields


def test_the_distribution_name_is_not_the_index_s_rulesmith_and_the_code_asks_for_ours():
    # `rulesmith` on the package index is an unrelated project (checked by hand: docs/api.md, install)
    assert DISTRIBUTION == "rulesmith-rpg"
    from interpreter.load import cache

    assert cache._DISTRIBUTIONS[0] == DISTRIBUTION  # the version the parse cache is keyed on
    source = (CHECKOUT / "interpreter" / "cli" / "commands.py").read_text(encoding="utf-8")
    assert re.findall(r'package_name="([^"]+)"', source) == [DISTRIBUTION]  # what `rules --version` reads


def _tracked_text_files() -> list[Path]:
    names = subprocess.run(["git", "ls-files"], cwd=CHECKOUT, capture_output=True, text=True, check=True).stdout
    return [CHECKOUT / n for n in names.splitlines()
            if n.endswith((".py", ".md", ".toml", ".txt", ".yaml", ".json", ".html", ".lua", ".el", ".vim"))]


def test_no_text_tells_anyone_to_install_a_name_from_the_index_that_is_not_ours():
    install = re.compile(r"pip install\s+(?:-[-\w]+\s+)*['\"]?([A-Za-z][\w.-]*)(\[[\w,]+\])?")
    ours_or_known = {DISTRIBUTION, "matplotlib"}
    wrong = []
    for path in _tracked_text_files():
        if path.name == "test_first_words.py":
            continue
        for match in install.finditer(path.read_text(encoding="utf-8", errors="replace")):
            if match.group(1) not in ours_or_known:
                wrong.append(f"{path.relative_to(CHECKOUT)}: {match.group(0)}")
    assert wrong == []


def test_the_plot_hint_without_matplotlib_names_the_checkout_s_extra(monkeypatch):
    import sys

    from interpreter.cli import charts
    from interpreter.errors import BadParameter

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if it were not installed
    with pytest.raises(BadParameter) as caught:
        charts.require()
    assert caught.value.hint == "install matplotlib (pip install matplotlib), or, in the checkout, " \
                                "the charts extra: pip install '.[charts]'"


def test_a_long_exact_fraction_is_shortened_in_text_and_whole_in_json(rules):
    import json
    from fractions import Fraction
    from math import comb

    # 150d2 is 150 plus the number of 2s among 150 coin flips: P(150 + k) = C(150, k) / 2**150
    oracle = {150 + k: Fraction(comb(150, k), 2 ** 150) for k in range(151)}
    text = rules("odds", "150d2").stdout
    rows = [line.split() for line in text.splitlines() if re.match(r"\s+\d+\s", line)]
    assert rows
    for value, _percent, *rest in rows:
        exact = oracle[int(value)]
        top, bottom = str(exact.numerator), str(exact.denominator)
        if len(f"{top}/{bottom}") > 40:
            assert rest[-6:] == [f"{top[:6]}...{top[-6:]}/{bottom[:6]}...{bottom[-6:]}",
                                 f"({len(top)}/{len(bottom)}", "digits;", "whole", "in", "--json)"]
        else:
            assert rest[-1] == f"{top}/{bottom}"
    assert max(len(line) for line in text.splitlines()) < 120
    shown = json.loads(rules("odds", "150d2", "--json").stdout)["exact"]
    assert {int(v): Fraction(p) for v, p in shown.items()} == oracle  # --json keeps every digit


def test_rest_at_full_hp_reports_nothing_healed_and_the_die_rolled(rules, tmp_path):
    import json

    sheet = tmp_path / "s.yaml"
    assert rules("sheet", "new", "rollunder", "-o", str(sheet)).exit_code == 0
    shown = json.loads(rules("sheet", "show", str(sheet), "--json").stdout)["tracks"]["hp"]
    assert shown["current"] == shown["max"]  # a new character is at full HP
    got = json.loads(rules("run", "rollunder", "rest", "--sheet", str(sheet), "--dice", "5", "--json").stdout)
    assert (got["values"]["healed"], got["values"]["rolled"], got["changes"]) == (0, 5, [])


TWO_ROLLS = """\
ruleset: tiny
title: Tiny
description: two rolls
procedures:
  p:
    summary: two rolls
    outcomes: {done: done}
    values: {a: first, b: second}
    steps:
      - roll: {a: 1d6}
      - roll: {b: 2d6}
      - decide: [{outcome: done}]
"""


def test_given_dice_that_run_out_say_which_roll_of_the_command_wanted_more(rules, tmp_path):
    from helpers import one_line_error

    path = tmp_path / "tiny.yaml"
    path.write_text(TWO_ROLLS, encoding="utf-8")
    line = one_line_error(rules("run", str(path), "p", "--dice", "1,2"))
    assert line == ("--dice: 2 dice given; the roll 'b' (2d6, in p.steps[1]) wanted a 3rd; "
                    "give one value for every die the run rolls, in the order it rolls them")
    assert str(path) not in line  # no place in the file: the command was short of dice, not the file wrong


def test_a_bundled_procedure_short_of_dice_names_no_place_in_the_bundled_file(rules):
    from helpers import one_line_error

    line = one_line_error(rules("run", "nwod", "action", "pool=5", "--dice", "1,2,3"))
    assert line.startswith("--dice: 3 dice given; the roll ") and " wanted a 4th;" in line
    assert "(bundled)" not in line and "$." not in line


def test_the_library_says_dice_where_the_command_line_says_dice_option(tmp_path):
    import interpreter

    path = tmp_path / "tiny.yaml"
    path.write_text(TWO_ROLLS, encoding="utf-8")
    with pytest.raises(interpreter.BadParameter) as caught:
        interpreter.run(path, "p", dice=[1, 2])
    assert caught.value.message == "dice: 2 dice given; the roll 'b' (2d6, in p.steps[1]) wanted a 3rd"
    assert caught.value.where is None
    with pytest.raises(interpreter.BadParameter) as caught:
        interpreter.roll("3d6", dice=[1])
    assert caught.value.message == "dice: 1 die given; 3d6 wanted a 2nd"


@pytest.mark.parametrize("n,word", [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"),
                                    (13, "13th"), (21, "21st"), (22, "22nd"), (101, "101st"), (111, "111th")])
def test_ordinals(n, word):
    from interpreter.api.given import ordinal

    assert ordinal(n) == word
