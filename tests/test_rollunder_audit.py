"""The audit's partial rule of rollunder made whole: advancement at the cap never lowers a stat (R11)."""

from __future__ import annotations

from pathlib import Path

from helpers import odds, run_given, run_json

ROOT = Path(__file__).resolve().parent.parent




# --- R11: stats are never raised past 18, and never lowered by an improvement ------------------------

def test_R11_advance_stat_at_20_never_worsens_to_18(rules):
    got = run_json(rules, "rollunder", "advance_stat", "stat=20", "--dice", "20,19,3")
    assert (got["outcome"], got["values"]["stat"], got["values"]["hp_gain"]) == ("unchanged", 20, 3)
    assert odds("rollunder", "advance_stat", {"stat": 20}).outcomes.get("worsened", 0) == 0


def test_R11_an_improvement_at_the_cap_is_unchanged_and_below_it_is_one_up():
    assert run_given("rollunder", "advance_stat", {"stat": 18}, [2, 6]).values["stat"] == 18
    assert run_given("rollunder", "advance_stat", {"stat": 17}, [2, 6]).values["stat"] == 18
    assert run_given("rollunder", "advance_stat", {"stat": 19}, [20, 20]).values["stat"] == 18   # both over
