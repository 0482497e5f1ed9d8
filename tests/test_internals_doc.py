"""docs/internals.md stays true: its order of folders is the one the architecture test holds."""

from __future__ import annotations

import re
from pathlib import Path

from tests.test_architecture import LAYERS

DOC = Path(__file__).resolve().parent.parent / "docs" / "internals.md"


def documented_layers(text: str) -> list[tuple[str, ...]]:
    """The folders of each numbered item between the layers markers, as the code spans name them."""
    block = text.split("<!-- layers -->", 1)[1].split("<!-- /layers -->", 1)[0]
    items = re.findall(r"^\d+\. (.*?):", block, re.MULTILINE)
    return [tuple(re.findall(r"`([a-z_]+)`", item)) for item in items]


def test_the_folder_order_of_the_doc_is_the_architecture_tests() -> None:
    assert documented_layers(DOC.read_text(encoding="utf-8")) == list(LAYERS)


def test_the_reading_of_the_order_sees_a_change() -> None:
    """The checker itself: two folders swapped in the doc are a difference."""
    text = DOC.read_text(encoding="utf-8").replace("2. `load`", "2. `formulaX`")
    assert documented_layers(text) != list(LAYERS)


def test_every_package_points_to_the_doc() -> None:
    root = DOC.parent.parent / "interpreter"
    missing = [p.parent.name for p in sorted(root.glob("*/__init__.py"))
               if "docs/internals.md" not in p.read_text(encoding="utf-8").split('"""')[1]]
    assert missing == []
