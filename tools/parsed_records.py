"""Write rulesets/ID.parsed.json again for every bundled ruleset (run it after changing one, or the YAML reader).

Each record holds what parsing the ruleset's YAML gives (its data and position tree) and the SHA-256 of
the bytes it was made from; a first command reads it instead of parsing (interpreter/load/shipped.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter.load.bundled import bundled_ids
from interpreter.load.cache import sha256
from interpreter.load.checked import check_schema
from interpreter.load.shipped import SUFFIX, body
from interpreter.load.yaml import load_text


def text(ruleset_id: str) -> str:
    """The record of a bundled ruleset, as it is shipped; raise Invalid when the ruleset fails the schema."""
    data = (ROOT / "rulesets" / f"{ruleset_id}.yaml").read_bytes()
    doc = load_text(data, f"{ruleset_id}.yaml")
    check_schema(doc)  # (a record says its document passed the schema in use)
    return json.dumps(body(sha256(data), doc.data, doc.positions), separators=(",", ":"), ensure_ascii=False) + "\n"


if __name__ == "__main__":
    for ruleset_id in bundled_ids():
        (ROOT / "rulesets" / f"{ruleset_id}{SUFFIX}").write_text(text(ruleset_id), encoding="utf-8")
        print(f"wrote rulesets/{ruleset_id}{SUFFIX}")
