"""Print a system guide's table "rule -> procedure -> test": each rule id the guide lists, the YAML that
carries it (the entries whose `refs` name it, and the YAML paths the guide's own tables name for it) and
the tests whose names carry the id.

    python tools/rule_table.py lockwood            # print the table
    python tools/rule_table.py lockwood --write    # replace it in docs/systems/lockwood.md

tests/test_rule_tables.py checks that every row of every guide names YAML and tests that exist.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parent.parent
HEADING = "## Rule, procedure, test"
INTRO = """\
Each rule id this guide names, the procedure or sheet rule that carries it (a YAML path in the
ruleset, which `rules export {id}` prints) and the tests of the source repository that prove it
(`python -m pytest -k NAME`). `python tools/rule_table.py {id} --write` writes the table again from
the YAML's `refs`, the paths the tables above name and the tests' names; a test checks that every
path and every test it names exists."""
MOST_TESTS = 3
SECTIONS = ("traits", "derived", "tables", "notes")  # top-level keys a guide may name for a rule on its own
ID = r"[A-Z]\d+"


def guide_ids(text: str, prefix: str) -> dict[str, str]:
    """The ids a guide names (before this table), each with the text that says where it lives: the last
    column of its table row, or else every line that names it."""
    out: dict[str, str] = {}
    lines = text.split(HEADING)[0].splitlines()
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and re.fullmatch(prefix + r"\d+", cells[0]):
            out.setdefault(cells[0], cells[-1])
    for line in lines:
        for rule in re.findall(rf"\b({prefix}\d+)\b", line):
            if rule not in out or not any(line.startswith(f"| {rule} |") for line in lines):
                out[rule] = out.get(rule, "") + " " + line
    return out


def resolves(data: Any, path: str) -> bool:
    """Whether a dotted path names an entry of the YAML data."""
    node = data
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def carriers(data: Any, rule: str, column: str) -> list[str]:
    """YAML paths whose `refs` name the rule, then the paths the guide's column names."""
    found: list[str] = []

    def walk(node: Any, path: list[str]) -> None:
        if isinstance(node, dict):
            if rule in (node.get("refs") or ()) and path:
                found.append(".".join(path))
            for key, value in node.items():
                if key != "refs":
                    walk(value, path + [str(key)])
        elif isinstance(node, list) and path == ["examples"]:
            found.extend("examples" for entry in node if isinstance(entry, dict) and rule in (entry.get("refs") or ()))
    walk(data, [])
    examples = "examples" in found
    found = [p for p in found if p != "examples"]
    tokens = [t for t in re.findall(r"`([A-Za-z_][\w.]*)`", column) if resolves(data, t)]
    found += [t for t in tokens if "." in t]
    if not found:  # a rule the guide places in a whole section (`traits` with `group`), or a worked example
        found += [t for t in tokens if t in SECTIONS] + (["examples"] if examples else [])
    return list(dict.fromkeys(found))


def tests_of(rule: str) -> list[str]:
    """`FILE::TEST` for every test whose name carries the id, the tests of fewest ids first."""
    named: list[tuple[int, str]] = []
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        for name in re.findall(r"^def (test_\w+)", path.read_text(encoding="utf-8"), flags=re.MULTILINE):
            ids = re.findall(rf"(?<=_)({ID})(?=_)", name + "_")
            if rule in ids:
                named.append((len(ids), f"{path.name}::{name}"))
    return [name for _, name in sorted(named, key=lambda item: item[0])]


def table(system: str) -> str:
    data = YAML(typ="safe").load((ROOT / "rulesets" / f"{system}.yaml").read_text(encoding="utf-8"))
    guide = (ROOT / "docs" / "systems" / f"{system}.md").read_text(encoding="utf-8")
    refs = re.findall(r"\brefs: \[([^\]]*)\]", (ROOT / "rulesets" / f"{system}.yaml").read_text(encoding="utf-8"))
    named = [r.strip() for group in refs for r in group.split(",") if r.strip()]
    prefix = max({r[0] for r in named}, key=lambda p: sum(r.startswith(p) for r in named))
    ids = guide_ids(guide, prefix)
    for rule in named:
        if rule.startswith(prefix):
            ids.setdefault(rule, "")
    rows = ["| id | procedure or sheet rule | tests |", "|---|---|---|"]
    for rule, column in sorted(ids.items(), key=lambda item: int(item[0][1:])):
        paths = ", ".join(f"`{p}`" for p in carriers(data, rule, column)) or "(prose only)"
        tests = tests_of(rule)
        shown = ", ".join(f"`{t}`" for t in tests[:MOST_TESTS])
        if len(tests) > MOST_TESTS:
            shown += f" and {len(tests) - MOST_TESTS} more"
        rows.append(f"| {rule} | {paths} | {shown or 'none'} |")
    return "\n".join([HEADING, "", INTRO.format(id=system), "", *rows]) + "\n"


def write(system: str) -> None:
    path = ROOT / "docs" / "systems" / f"{system}.md"
    text = path.read_text(encoding="utf-8")
    new = table(system)
    if HEADING in text:
        before, _, after = text.partition(HEADING)
        rest = re.search(r"^## ", after, flags=re.MULTILINE)
        text = before + new + ("\n" + after[rest.start():] if rest else "")
    else:
        text = text.rstrip("\n") + "\n\n" + new
    path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    args = sys.argv[1:]
    for system in [a for a in args if not a.startswith("--")]:
        if "--write" in args:
            write(system)
            print(f"wrote docs/systems/{system}.md")
        else:
            print(table(system), end="")
