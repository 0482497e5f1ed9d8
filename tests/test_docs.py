"""The docs stay true to the code: every cookbook recipe applies and behaves as it says."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest
from helpers import odds

from interpreter.load.bundled import bundled_ids, rulesets_dir
from interpreter.pipeline import problems

DOCS = Path(__file__).resolve().parent.parent / "docs"


def recipes():
    text = (DOCS / "cookbook.md").read_text(encoding="utf-8")
    for section in re.split(r"^## ", text, flags=re.MULTILINE)[1:]:
        title = section.splitlines()[0].strip()
        ruleset = re.search(r"Ruleset: `([a-z_]+)`", section)
        expect = re.search(r"Expect: `([^`]+)` (?:has (\w+) (\d+(?:/\d+)?)|is valid odds)", section)
        blocks = re.findall(r"```yaml\n# (before|after)\n(.*?)```", section, flags=re.DOTALL)
        pairs = [(blocks[i][1], blocks[i + 1][1]) for i in range(0, len(blocks), 2)]
        assert ruleset and expect and pairs, f"recipe '{title}' lacks Ruleset:, Expect: or before/after blocks"
        assert all(blocks[i][0] == "before" and blocks[i + 1][0] == "after" for i in range(0, len(blocks), 2))
        yield pytest.param(ruleset.group(1), expect, pairs, id=title)


@pytest.mark.parametrize("ruleset_id,expect,pairs", list(recipes()))
def test_cookbook_recipe_applies_and_behaves(tmp_path, ruleset_id, expect, pairs):
    text = (rulesets_dir() / f"{ruleset_id}.yaml").read_text(encoding="utf-8")
    for before, after in pairs:
        assert text.count(before) == 1, f"the 'before' text must occur once:\n{before}"
        text = text.replace(before, after)
    path = tmp_path / "house.yaml"
    path.write_text(text, encoding="utf-8")
    assert [str(p) for p in problems(str(path))] == []
    procedure, *params = expect.group(1).split()
    got = odds(str(path), procedure, dict(p.split("=") for p in params))
    if expect.group(2):
        assert got.outcomes[expect.group(2)] == Fraction(expect.group(3))


@pytest.mark.parametrize("ruleset_id", bundled_ids())
def test_every_bundled_ruleset_has_a_guide_with_rulings(ruleset_id):
    guide = DOCS / "systems" / f"{ruleset_id}.md"
    assert guide.exists()
    assert "## Rulings" in guide.read_text(encoding="utf-8")
