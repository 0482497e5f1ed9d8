"""The docs stay true to the code (the cookbook's recipes are tested in test_cookbook.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from interpreter.load.bundled import bundled_ids

DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.mark.parametrize("ruleset_id", bundled_ids())
def test_every_bundled_ruleset_has_a_guide_with_rulings(ruleset_id):
    guide = DOCS / "systems" / f"{ruleset_id}.md"
    assert guide.exists()
    assert "## Rulings" in guide.read_text(encoding="utf-8")
