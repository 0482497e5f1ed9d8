"""Each system guide's table "rule -> procedure -> test" can be followed: every rule id the guide names has
a row, every YAML path a row names is in the ruleset, and every test it names exists (an audit's path)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from interpreter.load.bundled import bundled_ids

ROOT = Path(__file__).resolve().parent.parent
HEADING = "## Rule, procedure, test"


def rows(text: str) -> dict[str, tuple[str, str]]:
    table = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    out = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and re.fullmatch(r"[A-Z]\d+", cells[0]):
            out[cells[0]] = (cells[1], cells[2])
    return out


def defined_tests() -> set[str]:
    return {f"{path.name}::{name}" for path in (ROOT / "tests").glob("test_*.py")
            for name in re.findall(r"^def (test_\w+)", path.read_text(encoding="utf-8"), flags=re.MULTILINE)}


def resolves(data, path: str) -> bool:
    node = data
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


@pytest.mark.parametrize("ruleset_id", bundled_ids())
def test_every_guide_has_a_rule_procedure_test_table_an_audit_can_follow(ruleset_id):
    guide = (ROOT / "docs" / "systems" / f"{ruleset_id}.md").read_text(encoding="utf-8")
    assert HEADING in guide
    found = rows(guide)
    data = YAML(typ="safe").load((ROOT / "rulesets" / f"{ruleset_id}.yaml").read_text(encoding="utf-8"))
    prefix = next(iter(found))[0]
    named = set(re.findall(rf"\b({prefix}\d+)\b", guide.split(HEADING)[0]))
    assert named <= set(found), sorted(named - set(found))
    tests = defined_tests()
    for rule, (carriers, proofs) in found.items():
        paths = re.findall(r"`([^`]+)`", carriers)
        assert paths, rule
        assert all(resolves(data, p) for p in paths), (rule, [p for p in paths if not resolves(data, p)])
        proved = re.findall(r"`([^`]+)`", proofs)
        assert proved, f"{rule} names no test"
        assert all(t in tests for t in proved), (rule, [t for t in proved if t not in tests])
        assert all(re.search(rf"_{rule}_", t.split("::")[1] + "_") for t in proved), rule


def test_the_table_is_what_the_tool_writes_from_the_yaml_the_guides_and_the_tests():
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import rule_table
    finally:
        sys.path.pop(0)
    for ruleset_id in bundled_ids():
        guide = (ROOT / "docs" / "systems" / f"{ruleset_id}.md").read_text(encoding="utf-8")
        assert rows(rule_table.table(ruleset_id)).keys() == rows(guide).keys()
