"""The docs never show a path that exists only in a source checkout.

Installed, the bundled rulesets and the schema live inside the package (`rules export ID` and
`rules schema` print them) and the tests are not installed at all, so a reader told to open
`rulesets/nwod.yaml` or `tests/test_nwod.py` finds nothing. docs/mutation.md is the one page about
a tool that runs in a checkout, and docs/internals.md is about changing the checkout itself; both say so.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from interpreter.load.bundled import bundled_ids

ROOT = Path(__file__).resolve().parent.parent
FOR_A_CHECKOUT = {"docs/mutation.md", "docs/internals.md"}
PAGES = [p for p in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
         if str(p.relative_to(ROOT)) not in FOR_A_CHECKOUT]
# a file of the checkout (not `~/.config/rulesmith/rulesets/nwod.yaml`, nor a folder of the reader's own)
IDS = "|".join(map(re.escape, bundled_ids()))
CHECKOUT_PATH = re.compile(rf"(?<![\w./~$-])(?:rulesets/(?:{IDS})\.yaml|schema/ruleset\.schema\.json|(?:tests|interpreter)/\w+)")


def test_the_pattern_tells_a_checkout_path_from_a_user_folder():
    assert CHECKOUT_PATH.search("see `rulesets/nwod.yaml`")
    assert CHECKOUT_PATH.search("`schema/ruleset.schema.json` says")
    assert not CHECKOUT_PATH.search("`~/.config/rulesmith/rulesets`")
    assert not CHECKOUT_PATH.search("`$XDG_CONFIG_HOME/rulesmith/rulesets/nwod.yaml`")
    assert CHECKOUT_PATH.search("run in `tests/test_nwod.py`")
    assert not CHECKOUT_PATH.search('"./ruleset.schema.json": ["rulesets/*.yaml", "house/*.yaml"]')


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_shows_a_path_of_the_checkout(page):
    text = page.read_text(encoding="utf-8")
    found = [f"line {text.count(chr(10), 0, m.start()) + 1}: {m.group()}" for m in CHECKOUT_PATH.finditer(text)]
    assert not found, f"{page.name} shows paths that exist only in a source checkout: {found}"
