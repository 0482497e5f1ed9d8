"""The docs never show a path that exists only in a source checkout.

Installed, the bundled rulesets and the schema live inside the package (`rules export ID` and
`rules schema` print them) and the tests are not installed at all, so a reader told to open
`rulesets/nwod.yaml` or `tests/test_nwod.py` finds nothing. docs/mutation.md is the one page about
a tool that runs in a checkout, and says so.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOR_A_CHECKOUT = {"docs/mutation.md"}
PAGES = [p for p in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
         if str(p.relative_to(ROOT)) not in FOR_A_CHECKOUT]
# a folder of the checkout at the start of a path (not `~/.config/rulesmith/rulesets`)
CHECKOUT_PATH = re.compile(r"(?<![\w./~$-])(?:rulesets|schema|tests|interpreter)/[\w*.-]+")


def test_the_pattern_tells_a_checkout_path_from_a_user_folder():
    assert CHECKOUT_PATH.search("see `rulesets/nwod.yaml`")
    assert CHECKOUT_PATH.search("`schema/ruleset.schema.json` says")
    assert not CHECKOUT_PATH.search("`~/.config/rulesmith/rulesets`")
    assert not CHECKOUT_PATH.search("`$XDG_CONFIG_HOME/rulesmith/rulesets`")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_shows_a_path_of_the_checkout(page):
    text = page.read_text(encoding="utf-8")
    found = [f"line {text.count(chr(10), 0, m.start()) + 1}: {m.group()}" for m in CHECKOUT_PATH.finditer(text)]
    assert not found, f"{page.name} shows paths that exist only in a source checkout: {found}"
