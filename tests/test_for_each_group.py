"""Issue 16: `for_each` may name a trait group instead of listing its traits."""

from __future__ import annotations

from helpers import edited_copy, ruleset

from interpreter.ruleset.specs import ForEach


def _for_eachs(steps):
    for step in steps:
        if isinstance(step.spec, ForEach):
            yield step.spec
        for nested in step.spec.nested():
            yield from _for_eachs(nested)


def test_R9_R11_rollunder_walks_the_stats_group_in_declaration_order():
    rs = ruleset("rollunder")
    found = [spec for proc in rs.procedures.values() for spec in _for_eachs(proc.steps)]
    assert len(found) == 2
    assert all(spec.traits == ("STR", "DEX", "CUN") for spec in found)
    assert [t for t, trait in rs.traits.items() if trait.group == "stats"] == ["STR", "DEX", "CUN"]


def test_an_unknown_group_is_a_located_error_with_a_suggestion(rules, tmp_path):
    path = edited_copy(tmp_path, "rollunder", ("- for_each: stats         #", "- for_each: stat          #"))
    result = rules("validate", str(path))
    assert result.exit_code == 1
    [line] = [x for x in result.output.splitlines() if "group" in x]
    assert "$.procedures.advance" in line and "no trait is in group 'stat'" in line and "stats" in line
