"""rollunder's critical is one number: exactly the stat, and with `constants.critical_low` every roll at or
under it (and under the stat), for check, attack and defend at once (R1). The house rule of issue #32,
"a roll of 1 or 2 is also a critical", is an overlay of four lines; odds are counted by hand."""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from helpers import odds, run_given

LOW_CRITICALS = """ruleset: rollunder_low_crits
extends: rollunder
constants:
  critical_low: 2
"""


def _lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip())


def test_rollunder_a_roll_of_1_or_2_is_a_critical_of_check_attack_and_defend(tmp_path: Path) -> None:
    source = tmp_path / "low.yaml"
    source.write_text(LOW_CRITICALS, encoding="utf-8")
    assert _lines(LOW_CRITICALS) <= 8
    for procedure, critical, extra in (("check", "critical_success", {}), ("attack", "critical", {}),
                                       ("defend", "counter", {"incoming": 6})):
        for stat in (1, 2, 12):
            expected = Fraction(sum(1 for r in range(1, 21) if r == stat or r <= min(2, stat)), 20)
            assert odds(source, procedure, {"stat": stat, **extra}).outcomes[critical] == expected
            assert odds("rollunder", procedure, {"stat": stat, **extra}).outcomes[critical] == Fraction(1, 20)
        assert run_given(source, procedure, {"stat": 12, **extra}, [2]).outcome == critical
        assert run_given("rollunder", procedure, {"stat": 12, **extra}, [2]).outcome != critical


def test_the_rollunder_critical_with_advantage_keeps_the_better_die(tmp_path: Path) -> None:
    source = tmp_path / "low.yaml"
    source.write_text(LOW_CRITICALS, encoding="utf-8")
    # two d20 kept by the outcome order (critical first): a critical unless neither die is 1, 2 or the stat
    expected = 1 - Fraction(17, 20) ** 2
    assert odds(source, "check", {"stat": 12, "advantage": "true"}).outcomes["critical_success"] == expected
