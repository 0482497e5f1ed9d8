"""A call's values under `as: PREFIX` have one name everywhere: PREFIX_NAME in formulas, `describe` and traces."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import one_line_error

CALLER = """\
extends: lockwood
ruleset: prefixed
procedures:
  twice:
    summary: a check against DC 10, read under a prefix
    params:
      stat: {{type: int}}
    outcomes: {{success: s, failure: f}}
    values: {{total: t}}
    steps:
      - call: check
        with: {{stat: stat, dc: 10}}
        as: {prefix}
      - let: {{total: {read}}}
      - decide:
          - {{when: total > 10, outcome: success}}
          - {{outcome: failure}}
"""


def _write(tmp_path: Path, prefix: str, read: str) -> Path:
    path = tmp_path / "prefixed.yaml"
    path.write_text(CALLER.format(prefix=prefix, read=read), encoding="utf-8")
    return path


def test_L1_the_trace_and_describe_name_the_callees_values_as_formulas_do(tmp_path, rules):
    """L1: the callee is lockwood's check, d20 + stat; its roll shows under the name a formula would use."""
    path = _write(tmp_path, "ritual", "ritual_total")
    got = rules("run", str(path), "twice", "stat=3", "--dice", "9", "--json")
    assert got.exit_code == 0, got.output
    shown = json.loads(got.stdout)
    assert [r["name"] for r in shown["rolls"]] == ["ritual_natural"]
    assert shown["values"] == {"total": 12}
    text = rules("run", str(path), "twice", "stat=3", "--dice", "9").stdout
    assert "  ritual_natural: 1d20: [9] = 9" in text.splitlines()
    described = rules("describe", str(path), "twice").stdout
    assert "its values as `ritual_NAME` and its outcomes as flags `ritual_OUTCOME`" in described


@pytest.mark.parametrize(("prefix", "message"), [
    ("try", "'try.total' is not a name: a call's values are written 'try_total'"),
    ("ritual", "attribute access is not allowed; did you mean 'ritual_total'?"),
])
def test_a_dotted_name_is_refused_with_the_name_to_write(tmp_path, rules, prefix, message):
    path = _write(tmp_path, prefix, f"{prefix}.total")
    got = one_line_error(rules("validate", str(path)))
    assert got == f"{path}:14:22: $.procedures.twice.steps[1].let.total: {message}"
