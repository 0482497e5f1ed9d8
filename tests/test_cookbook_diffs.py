"""docs/cookbook.md's house rules of a few lines each: every recipe with a line "The diff: `rules diff ...`
changes `a`, `b` and `c`..." is an overlay of at most 8 non-blank lines whose whole diff, run as written,
shows a change in each procedure (or, with --sheet, each number of the character) the line names.

What each change does to the odds is checked against a hand count by the recipe's Expect lines
(tests/test_cookbook.py); here, that the diff, the tool that shows a house rule before play, sees it.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

COOKBOOK = Path(__file__).resolve().parent.parent / "docs" / "cookbook.md"
DIFF = re.compile(r"^The diff: `rules (?P<cmd>diff [^`]+)` changes (?P<names>(?:`\w+`(?:, | and )?)+)", re.MULTILINE)
SEVEN = 7  # the house rules of the issue that asked for them


def recipes() -> list[object]:
    text = COOKBOOK.read_text(encoding="utf-8")
    out = []
    for section in re.split(r"^## ", text, flags=re.MULTILINE)[1:]:
        title = section.splitlines()[0].strip()
        for found in DIFF.finditer(section):
            out.append(pytest.param(section, found["cmd"], re.findall(r"`(\w+)`", found["names"]), id=title))
    return out


def test_the_seven_house_rules_are_there():
    assert len(recipes()) >= SEVEN


def overlay_of(section: str) -> str:
    [overlay] = re.findall(r"```yaml\n(.*?)```", section, flags=re.DOTALL)
    return overlay


@pytest.mark.parametrize("section,command,names", recipes())
def test_the_diff_of_each_house_rule_shows_what_it_changes(rules, tmp_path, section, command, names):
    overlay = overlay_of(section)
    assert len([line for line in overlay.splitlines() if line.strip()]) <= 8
    [saved] = re.findall(r"Save it as `([^`]+)`", section)
    (tmp_path / saved).write_text(overlay, encoding="utf-8")
    args = shlex.split(command)[1:]
    base = re.search(r"^extends: (\S+)$", overlay, flags=re.MULTILINE)
    assert base and args[0] == base.group(1) and args[1] == saved
    if "--sheet" in args:
        sheet = args[args.index("--sheet") + 1]
        made = rules("sheet", "new", args[0], "-o", str(tmp_path / sheet), "--name", "Marco")
        assert made.exit_code == 0, made.stderr
    paths = [str(tmp_path / a) if a.endswith(".yaml") else a for a in args]
    shown = rules("diff", *paths)
    assert shown.exit_code == 0, shown.stderr
    assert "warning:" not in shown.stderr  # a recipe is no misspelling
    got = json.loads(rules("diff", *paths, "--json").stdout)
    changed = {c["procedure"] for c in got["odds"] if c["changed"]}
    changed |= {c["name"] for c in (got.get("sheet") or {}).get("changes", [])}
    assert set(names) <= changed, (names, changed)
    for name in names:  # and the text says so, under the name
        assert re.search(rf"^  ({name} |{name}: )", shown.stdout, flags=re.MULTILINE), name
