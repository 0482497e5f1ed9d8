"""Write schema/overlay.schema.json again from schema/ruleset.schema.json (run it after changing the ruleset schema)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter.lsp.overlay_schema import overlay_schema


def text() -> str:
    """The overlay schema's file text, as it is shipped."""
    ruleset = json.loads((ROOT / "schema" / "ruleset.schema.json").read_text(encoding="utf-8"))
    return json.dumps(overlay_schema(ruleset), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    (ROOT / "schema" / "overlay.schema.json").write_text(text(), encoding="utf-8")
    print("wrote schema/overlay.schema.json")
