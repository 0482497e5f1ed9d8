"""docs/cookbook.md: every recipe is an overlay; each is written to a file and does what it promises.

A promised probability is worked out by hand in the recipe's own words (faces of a die), or is the
base ruleset's odds with the parameter spelled out; neither is read back from the overlay.
"""

from __future__ import annotations

import json
import re
import shlex
from fractions import Fraction
from pathlib import Path

import pytest

COOKBOOK = Path(__file__).resolve().parent.parent / "docs" / "cookbook.md"
EXPECT = re.compile(r"^Expect: `rules (?P<cmd>[^`]+)` (?:has mean (?P<value>\w+) (?P<mean>\d+(?:/\d+)?)"
                    r"|has (?P<outcome>\w+) (?P<p>\d+(?:/\d+)?)"
                    r"|matches `rules (?P<other>[^`]+)`|passes `rules (?P<check>[^`]+)`)", re.MULTILINE)


def sections() -> list[tuple[str, str]]:
    text = COOKBOOK.read_text(encoding="utf-8")
    return [(s.splitlines()[0].strip(), s) for s in re.split(r"^## ", text, flags=re.MULTILINE)[1:]]


def recipes():
    for title, body in sections():
        overlays = re.findall(r"```yaml\n(.*?)```", body, flags=re.DOTALL)
        expects = list(EXPECT.finditer(body))
        yield pytest.param(overlays, expects, id=title)


def run(rules, line: str, cwd: Path, ok: bool = True):
    args = [str(cwd / a) if a.endswith(".yaml") else a for a in shlex.split(line)]
    result = rules(*args)
    if ok:
        assert result.exit_code == 0, (line, result.stderr)
    return result


def test_every_recipe_is_one_short_overlay_with_an_expectation():
    assert len(sections()) >= 6
    for title, body in sections():
        overlays = re.findall(r"```yaml\n(.*?)```", body, flags=re.DOTALL)
        assert len(overlays) == 1, title
        assert re.search(r"^extends: \w+$", overlays[0], flags=re.MULTILINE), title
        assert re.search(r"^ruleset: [\w-]+$", overlays[0], flags=re.MULTILINE), title
        assert EXPECT.search(body), title
    critwin = [body for title, body in sections() if "critwin: 19" in body]
    assert critwin and all(len(re.findall(r"```yaml\n(.*?)```", b, flags=re.DOTALL)[0].splitlines()) <= 5
                           for b in critwin)


@pytest.mark.parametrize("overlays,expects", list(recipes()))
def test_cookbook_recipe_behaves_as_it_says(rules, tmp_path, overlays, expects):
    (tmp_path / "house.yaml").write_text(overlays[0], encoding="utf-8")
    run(rules, "validate house.yaml", tmp_path)
    for name in set(re.findall(r"Save it as `([^`]+)`", expects[0].string)) if expects else ():
        (tmp_path / name).write_text(overlays[0], encoding="utf-8")  # the name the recipe gives its file
    for expect in expects:
        if "--sheet hero.yaml" in expect["cmd"] and not (tmp_path / "hero.yaml").exists():
            base = re.search(r"^extends: (\w+)$", overlays[0], flags=re.MULTILINE).group(1)
            run(rules, f"sheet new {base} -o hero.yaml", tmp_path)  # a new character of the base
        if expect["check"]:
            run(rules, expect["cmd"], tmp_path)
            run(rules, expect["check"], tmp_path)
            continue
        got = json.loads(run(rules, expect["cmd"] + " --json", tmp_path).stdout)
        if expect["other"]:
            want = json.loads(run(rules, expect["other"] + " --json", tmp_path).stdout)
            assert got["outcomes"].keys() == want["outcomes"].keys()
            for name, p in want["outcomes"].items():
                assert abs(got["outcomes"][name] - p) < 1e-9, name
        elif expect["value"]:
            assert Fraction(got["values"][expect["value"]]["exact_mean"]) == Fraction(expect["mean"])
        else:
            assert Fraction(got["exact"][expect["outcome"]]) == Fraction(expect["p"])


def test_the_cookbook_commands_run_on_the_first_recipe(rules, tmp_path):
    text = COOKBOOK.read_text(encoding="utf-8")
    overlay = re.findall(r"```yaml\n(.*?)```", text, flags=re.DOTALL)[0]
    (tmp_path / "house.yaml").write_text(overlay, encoding="utf-8")
    block = re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL)[0]  # the page's first commands
    for line in block.strip().splitlines():
        assert line.startswith("rules ")
        run(rules, line[len("rules "):], tmp_path)
    shown = run(rules, "diff lockwood house.yaml", tmp_path).stdout
    assert "$.constants.critwin: 20 → 19" in shown


def test_the_readme_tour_overlay_and_diff_show_what_they_do(rules, tmp_path):
    text = (COOKBOOK.parent.parent / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```(\w+)\n(.*?)```", text, flags=re.DOTALL)
    overlays = [body for kind, body in blocks if kind == "yaml" and "extends:" in body]
    assert len(overlays) == 1
    (tmp_path / "house.yaml").write_text(overlays[0], encoding="utf-8")
    commands = [body for kind, body in blocks if kind == "sh" and "rules diff" in body]
    assert len(commands) == 1 and blocks.index(("sh", commands[0])) >= 2  # not CI's install/run blocks
    shown = ""
    for line in commands[0].strip().splitlines():
        shown = run(rules, line.split("#")[0].strip()[len("rules "):], tmp_path).stdout
    [expected] = [body for kind, body in blocks if kind == "text" and body.startswith("nwod → ")]
    assert shown == expected
