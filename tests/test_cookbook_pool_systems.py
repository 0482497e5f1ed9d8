"""docs/cookbook-pools.md's five systems: each ruleset as the page gives it, its exact odds against an oracle.

Legend of the Five Rings (roll and keep) against icepool's compounding dice, capped where the target
number is reached; the One-Roll Engine's sets against icepool's multiset evaluation; Cortex, Genesys
and Savage Worlds against enumeration of every throw (Savage Worlds' exploding dice followed until
the bound compared with is reached).  The issue's numbers are checked too, but never alone.
"""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from fractions import Fraction
from pathlib import Path

import icepool
import pytest

PAGE = Path(__file__).parent.parent / "docs" / "cookbook-pools.md"


def saved(name: str) -> str:
    """The ```yaml block the page asks to save as `name`."""
    text = PAGE.read_text(encoding="utf-8")
    found = re.search(rf"Save it as\s+`{re.escape(name)}`.*?^```yaml\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)
    assert found, name
    return found.group(1)


@pytest.fixture
def page(tmp_path):
    """The page's rulesets, saved in a fresh folder."""
    for name in ("l5r.yaml", "ore.yaml", "cortex.yaml", "genesys.yaml", "starwars.yaml", "savage.yaml"):
        (tmp_path / name).write_text(saved(name), encoding="utf-8")
    return tmp_path


def odds(rules, path: Path, *args: str) -> dict:
    result = rules("odds", str(path), *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def exact(data: dict) -> dict[str, Fraction]:
    assert "truncated" not in data
    return {k: Fraction(v) for k, v in data["exact"].items()}


# -- Legend of the Five Rings -------------------------------------------------------------------

def l5r_oracle(dice: int, keep: int, tn: int) -> Fraction:
    """P(the kept dice reach tn), icepool: d10s compounding on 10 (deep enough to pass tn), capped at tn."""
    die = icepool.d10.explode(depth=tn // 10 + 1).map(lambda v: min(v, tn))
    total = die.pool(dice).highest(keep).sum()
    return sum((Fraction(total.probability(v)) for v in total.outcomes() if v >= tn), Fraction(0))


@pytest.mark.parametrize("dice,keep,tn,issue", [
    (10, 5, 30, Fraction(95787052119, 100000000000)),
    (6, 3, 25, Fraction(12893877, 25000000)),
    (7, 4, 30, Fraction(629953771, 1000000000)),
    (8, 3, 40, Fraction(1328231724638531, 10000000000000000)),
    (10, 9, 70, None),
    (10, 10, 80, None),
])
def test_roll_and_keep_reaches_the_target_number_exactly(rules, page, dice, keep, tn, issue):
    data = odds(rules, page / "l5r.yaml", "roll", f"dice={dice}", f"keep={keep}", f"tn={tn}")
    got = exact(data)
    assert got["success"] == l5r_oracle(dice, keep, tn)
    assert issue is None or got["success"] == issue
    assert got["success"] + got["failure"] == 1


def expression_odds(rules, text: str) -> dict[str, Fraction]:
    result = rules("odds", text, "--json")
    assert result.exit_code == 0, result.output
    return {k: Fraction(v) for k, v in json.loads(result.output)["exact"].items()}


@pytest.mark.parametrize("kept,summed", [
    ("10d10!!kh10>=80", "10d10!!>=80"),
    ("10d10!!dl0>=75", "10d10!!>=75"),
    ("4d6!!kh4>=20", "4d6!!>=20"),
    ("3d8!!kl3>=30", "3d8!!>=30"),
])
def test_keeping_every_compounding_die_is_the_sum(rules, kept, summed):
    assert expression_odds(rules, kept) == expression_odds(rules, summed)


def test_ten_keep_ten_is_the_sum_of_ten_exploding_dice(rules, page):
    got = exact(odds(rules, page / "l5r.yaml", "roll", "dice=10", "keep=10", "tn=80"))
    assert got["success"] == expression_odds(rules, "10d10!!>=80")["1"]


def test_roll_and_keep_total_is_the_real_total_with_its_tail_noted(rules, page):
    data = odds(rules, page / "l5r.yaml", "roll", "dice=6", "keep=3", "tn=25")
    total = data["values"]["total"]
    assert 0 < total["truncated"] < 1e-12 and "exact" not in total
    ice = icepool.d10.explode(depth=20).pool(6).highest(3).sum()
    assert abs(total["mean"] - float(ice.mean())) < 1e-9
    for value in ("3", "25", "40", "61"):
        assert abs(total["distribution"][value] - float(ice.probability(int(value)))) < 1e-12


def test_roll_and_keep_trace_shows_each_compounded_die(rules, page):
    result = rules("run", str(page / "l5r.yaml"), "roll", "dice=6", "keep=3", "tn=25", "--dice",
                   "10,4,2,10,10,1,7,3,9")
    assert result.exit_code == 0, result.output
    assert "[14 (10+4), ~~2~~, 21 (10+10+1), ~~7~~, ~~3~~, 9] = 44" in result.output
    assert "l5r roll: success" in result.output


# -- One-Roll Engine -----------------------------------------------------------------------------

def ore_oracle(dice: int) -> tuple[Fraction, Fraction, Fraction]:
    """(any set, a set of 3 or more, the widest set is of 10s), icepool's largest count and its outcome."""
    best = icepool.d10.pool(dice).largest_count_and_outcome()
    p = {o: Fraction(best.probability(o)) for o in best.outcomes()}
    return (sum((q for (w, _), q in p.items() if w >= 2), Fraction(0)),
            sum((q for (w, _), q in p.items() if w >= 3), Fraction(0)),
            sum((q for (w, h), q in p.items() if w >= 2 and h == 10), Fraction(0)))


@pytest.mark.parametrize("dice,issue", [
    (8, (Fraction(30683, 31250), Fraction(90673, 250000), Fraction(634171, 4000000))),
    (10, (Fraction(1561933, 1562500), Fraction(3776179, 6250000), Fraction(898742687, 5000000000))),
    (12, (Fraction(1), Fraction(202679881, 250000000), None)),
])
def test_sets_width_and_height_match_icepool(rules, page, dice, issue):
    got = exact(odds(rules, page / "ore.yaml", "roll", f"dice={dice}"))
    tens = exact(odds(rules, page / "ore.yaml", "height", f"dice={dice}", "face=10"))["match"]
    want = ore_oracle(dice)
    assert (got["wide_set"] + got["set"], got["wide_set"], tens) == want
    assert all(w == i for w, i in zip(want, issue, strict=True) if i is not None)


# -- Cortex -------------------------------------------------------------------------------------

def cortex_oracle(sides: list[int], difficulty: int) -> dict[str, Fraction]:
    out: Counter[str] = Counter()
    hitches = Fraction(0)
    weight = Fraction(1, eval("*".join(map(str, sides))))
    for throw in itertools.product(*(range(1, s + 1) for s in sides)):
        ones = throw.count(1)
        hitches += ones * weight
        total = sum(sorted((v for v in throw if v > 1), reverse=True)[:2])
        out["botch" if ones == len(throw) else "success" if total >= difficulty else "failure"] += weight
    return {**out, "hitches": hitches}


def test_mixed_pool_given_as_one_parameter_matches_enumeration(rules, page):
    data = odds(rules, page / "cortex.yaml", "test", "dice=d10,d8,d8,d6,d4", "difficulty=11")
    want = cortex_oracle([10, 8, 8, 6, 4], 11)
    got = exact(data)
    assert got == {k: want[k] for k in ("success", "failure", "botch")}
    assert Fraction(data["values"]["hitches"]["exact_mean"]) == want["hitches"] == Fraction(23, 30)
    assert (got["success"], got["failure"], got["botch"]) == (Fraction(11543, 15360), Fraction(159, 640),
                                                             Fraction(1, 15360))


def test_mixed_pool_run_reads_the_hitch_constant(rules, page):
    result = rules("run", str(page / "cortex.yaml"), "test", "dice=d10,d8,d8,d6,d4", "--dice", "7,1,6,1,3")
    assert result.exit_code == 0, result.output
    assert "total = 13, hitches = 2" in result.output and "cortex test: success" in result.output


def test_a_changed_hitch_constant_changes_every_statistic(rules, page, tmp_path):
    house = tmp_path / "house.yaml"
    house.write_text("extends: cortex.yaml\nruleset: cortex-house\nconstants:\n  hitch: 2\n",
                     encoding="utf-8")
    result = rules("run", str(house), "test", "dice=d10,d8,d8,d6,d4", "--dice", "7,1,6,2,3")
    assert result.exit_code == 0, result.output
    assert "total = 13, hitches = 1" in result.output  # a 2 is the hitch now, and 1 no longer is


# -- Genesys ------------------------------------------------------------------------------------

ABILITY = ["", "S", "S", "SS", "A", "A", "SA", "AA"]
DIFFICULTY = ["", "F", "FF", "T", "T", "T", "TT", "FT"]


def genesys_oracle(ability: int, difficulty: int) -> dict[str, Fraction]:
    out: Counter[str] = Counter()
    weight = Fraction(1, 8 ** (ability + difficulty))
    for faces in itertools.product(*([ABILITY] * ability + [DIFFICULTY] * difficulty)):
        shown = "".join(faces)
        net = shown.count("S") - shown.count("F")
        edge = shown.count("A") - shown.count("T")
        out["success_with_advantage" if net >= 1 and edge >= 1 else "success" if net >= 1
            else "failure_with_advantage" if edge >= 1 else "failure"] += weight
    return dict(out)


@pytest.mark.parametrize("ability,difficulty", [(3, 2), (2, 2), (1, 3)])
def test_symbol_dice_match_enumeration(rules, page, ability, difficulty):
    got = exact(odds(rules, page / "genesys.yaml", "check", f"ability={ability}", f"difficulty={difficulty}"))
    assert got == genesys_oracle(ability, difficulty)


def test_symbol_dice_numbers_of_the_issue(rules, page):
    got = exact(odds(rules, page / "genesys.yaml", "check", "ability=3", "difficulty=2"))
    assert got["success_with_advantage"] + got["success"] == Fraction(9779, 16384)
    assert got["success_with_advantage"] == Fraction(23, 128)
    assert got["failure_with_advantage"] == Fraction(4549, 16384)


def test_symbol_dice_trace_prints_the_symbols(rules, page):
    result = rules("run", str(page / "genesys.yaml"), "check", "ability=3", "difficulty=2", "--dice", "4,8,1,3,8")
    assert result.exit_code == 0, result.output
    assert "[SS, AA, blank] [FF, FT]" in result.output
    assert "successes = 2 (total S), advantages = 2 (total A), failures = 3 (total F), threats = 1 (total T)" \
        in result.output


# -- Star Wars FFG -------------------------------------------------------------------------------

NARRATIVE = {
    "ability": ABILITY,
    "proficiency": ["", "S", "S", "SS", "SS", "A", "SA", "SA", "SA", "AA", "AA", "S!"],  # ! a triumph
    "boost": ["", "", "S", "SA", "AA", "A"],
    "difficulty": DIFFICULTY,
    "challenge": ["", "F", "F", "FF", "FF", "T", "T", "FT", "FT", "TT", "TT", "F?"],  # ? a despair
    "setback": ["", "", "F", "F", "T", "T"],
}


def narrative_oracle(counts: dict[str, int]) -> dict[str, Fraction]:
    """Each die's face strings added up one die at a time (the four counts that matter), then read."""
    acc: Counter[tuple[int, int, int, int]] = Counter({(0, 0, 0, 0): 1})
    den = 1
    for kind, n in counts.items():
        for _ in range(n):
            nxt: Counter[tuple[int, int, int, int]] = Counter()
            for (net, edge, tri, des), ways in acc.items():
                for face in NARRATIVE[kind]:
                    nxt[(net + face.count("S") - face.count("F"), edge + face.count("A") - face.count("T"),
                         tri + face.count("!"), des + face.count("?"))] += ways
            acc, den = nxt, den * len(NARRATIVE[kind])
    out: Counter[str] = Counter()
    for (net, edge, tri, des), ways in acc.items():
        p = Fraction(ways, den)
        out["success" if net >= 1 else "failure"] += p
        out["success_with_advantage" if net >= 1 and edge >= 1 else "other"] += p
        out["triumph"] += p if tri else 0
        out["despair"] += p if des else 0
    return {k: out[k] for k in ("success", "success_with_advantage", "triumph", "despair")}


def narrative(rules, page: Path, counts: dict[str, int]) -> dict[str, Fraction]:
    data = odds(rules, page / "starwars.yaml", "check", *(f"{k}={v}" for k, v in counts.items()))
    got = exact(data)
    flags = {name: Fraction(data["values"][name]["exact"].get("true", 0)) for name in ("triumph", "despair")}
    return {"success": got["success_with_advantage"] + got["success"],
            "success_with_advantage": got["success_with_advantage"], **flags}


@pytest.mark.parametrize("counts,issue", [
    ({"ability": 1, "proficiency": 2, "boost": 1, "difficulty": 1, "challenge": 1, "setback": 1},
     (Fraction(52013, 82944), Fraction(5785, 20736), Fraction(23, 144), Fraction(1, 12))),
    ({"ability": 2, "proficiency": 0, "boost": 1, "difficulty": 0, "challenge": 1, "setback": 1},
     (Fraction(425, 864), Fraction(2945, 13824), Fraction(0), Fraction(1, 12))),
    ({"ability": 0, "proficiency": 3, "boost": 0, "difficulty": 2, "challenge": 0, "setback": 2}, None),
])
def test_six_kinds_of_narrative_dice_match_enumeration(rules, page, counts, issue):
    got = narrative(rules, page, counts)
    assert got == narrative_oracle(counts)
    if issue is not None:
        assert tuple(got.values()) == issue


def test_a_big_narrative_pool_is_exact(rules, page):
    """The issue's big pool (sixteen dice): enumeration takes seconds, so its numbers were checked once,
    outside the suite, by the same enumeration over all six symbols, and are held here."""
    got = narrative(rules, page, {"ability": 3, "proficiency": 5, "boost": 0, "difficulty": 2, "challenge": 4,
                                  "setback": 2})
    assert got["success"] == Fraction(1105990204909, 1761205026816)
    assert (got["triumph"], got["despair"]) == (Fraction(87781, 248832), Fraction(6095, 20736))


def test_narrative_dice_trace_reads_net_symbols(rules, page):
    result = rules("run", str(page / "starwars.yaml"), "check", "ability=1", "proficiency=1", "boost=1",
                   "difficulty=1", "challenge=1", "setback=1", "--dice", "4,12,3,2,12,5")
    assert result.exit_code == 0, result.output
    assert "[SS] [STr] [S] [F] [FDe] [T]" in result.output
    assert "net_successes = 2, net_advantage = -1, triumph = true, despair = true" in result.output


# -- Savage Worlds ------------------------------------------------------------------------------

def capped_die(sides: int, bound: int) -> dict[int, Fraction]:
    """min(an exploding die's total, bound) and whether it showed a natural 1, by following its chain."""
    out: Counter[int] = Counter()

    def chain(total: int, p: Fraction, first: bool) -> None:
        for face in range(1, sides + 1):
            got, q = total + face, p / sides
            if got >= bound:
                out[bound] += q
            elif face == sides:
                chain(got, q, False)
            else:
                out[got if not (first and face == 1) else -1] += q  # -1: a natural 1
    chain(0, Fraction(1), True)
    return dict(out)


def savage_oracle(trait: int, target: int) -> dict[str, Fraction]:
    bound = target + 4
    out: Counter[str] = Counter()
    for (a, p), (b, q) in itertools.product(capped_die(trait, bound).items(), capped_die(6, bound).items()):
        best = max(1 if a == -1 else a, 1 if b == -1 else b)
        out["critical_failure" if a == b == -1 else "raise" if best >= bound else "success" if best >= target
            else "failure"] += p * q
    return dict(out)


@pytest.mark.parametrize("trait,target", [(6, 4), (6, 8), (10, 4), (10, 8), (4, 4), (12, 6)])
def test_wild_dice_compared_later_are_exact(rules, page, trait, target):
    got = exact(odds(rules, page / "savage.yaml", "trait", f"die={trait}", f"target={target}"))
    assert got == savage_oracle(trait, target)


def test_wild_dice_numbers_of_the_issue(rules, page):
    six = exact(odds(rules, page / "savage.yaml", "trait", "die=6"))
    six_high = exact(odds(rules, page / "savage.yaml", "trait", "die=6", "target=8"))
    ten = exact(odds(rules, page / "savage.yaml", "trait", "die=10"))
    ten_high = exact(odds(rules, page / "savage.yaml", "trait", "die=10", "target=8"))
    assert (six["raise"] + six["success"], six["raise"], six_high["raise"]) == \
        (Fraction(3, 4), Fraction(335, 1296), Fraction(71, 1296))
    assert (ten["raise"] + ten["success"], ten["raise"], ten_high["raise"]) == \
        (Fraction(17, 20), Fraction(143, 360), Fraction(83, 720))
    assert (six["critical_failure"], ten["critical_failure"]) == (Fraction(1, 36), Fraction(1, 60))
