"""Procedure speed: exact odds, one sampled run, a cold start and peak memory, each beside a peer.

Run as `python bench/procedure_bench.py [odds|every|run|cold|memory]` after `pip install ".[bench]"`
(no argument runs every section). Ours and the peer run in the same process, interleaved,
several times each; CPU time (time.process_time) is measured, so other work on the machine
disturbs the figures less. Each line prints min and median for both and the ratio of the
medians (ours / peer; under 1 means ours is faster).

- odds: the exact odds of the heaviest bundled questions (issue 13's list); nwod attack 20 v 20
  with strength 5 beside icepool computing the same distribution (exploding d10 pools at 7,
  10-again), with the peak memory of each (tracemalloc).
- every: the exact odds of every procedure of every bundled ruleset, at each of its samples and at
  the largest parameters it sensibly takes (20-dice pools at 8-again, stats at their maxima, issue
  13's list), with a character sheet where the procedure reads one; prints each procedure's slowest
  question and whether every one is within 100 ms.
- run: one sampled run of lockwood check, nwod action and wwn attack (its outcome and values, from
  `sampler`, parameters bound once) beside the same rule written by hand with the same random
  generator, answering the same question; 2d20kh1 beside a hand-written roll; then the same runs
  with the trace of every die and their own seeded generator (`procedure.run.run`, what `rules run`
  prints) beside the hand-written rules seeding theirs.
- cold: whole processes of this checkout (PYTHONPATH): `rules --help`, then `rules run` and `rules
  odds` on each bundled ruleset with a filled cache and with an empty one (cold), each beside `python -c
  "import click, ruamel.yaml"` measured in the same run, alternating. The package is byte-compiled
  first, as installing it does (pip compiles click and ruamel.yaml too), so that neither side compiles
  source at start.
- memory: the peak resident memory of a process computing each of the heaviest jobs (the odds list).
"""

from __future__ import annotations

import os
import random
import re
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from interpreter.dice.expr import RandomSource, clear_caches, parse
from interpreter.errors import RulesError
from interpreter.pipeline import compile_ref
from interpreter.procedure.odds import odds as procedure_odds
from interpreter.procedure.run import run as run_once
from interpreter.procedure.sampler import sampler
from interpreter.ruleset.samples import as_arguments
from interpreter.sheet.file import SheetFile
from interpreter.sheet.session import bound

REPEATS = 7
START_REPEATS = 15  # whole processes of about 50 ms, their CPU counted in clock ticks: more of them steady the median
ATTACK = {"attack_pool": 20, "defense_pool": 20, "weapon": 2, "strength": 5}
HEAVY = [  # issue 13: every job over 50 ms then, at the largest parameters it names
    ("nwod", "attack", ATTACK),
    ("nwod", "attack", {"attack_pool": 20, "defense_pool": 20, "weapon": 2}),
    ("nwod", "attack", {"attack_pool": 7, "defense_pool": 3, "weapon": 2}),
    ("nwod", "extended", {"pool": 20, "required": 30}),
    ("nwod", "extended", {"pool": 3, "required": 15}),
    ("nwod", "contested", {"actor": 20, "defender": 20, "again": 9}),
    ("nwod", "autofire", {"mode": "long", "attack_pool": 20, "defense_pool": 20, "weapon": 2}),
    ("lockwood", "heal_minor", {"healing": 20}),
    ("lockwood", "heal_major", {"healing": 20}),
]


def cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def interleaved(ours: Callable[[], object], peer: Callable[[], object], repeats: int = REPEATS,
                inner: int = 1) -> tuple[list[float], list[float]]:
    """Seconds per call of each, alternating ours and the peer."""
    a: list[float] = []
    b: list[float] = []

    def many(fn: Callable[[], object]) -> Callable[[], None]:
        def go() -> None:
            for _ in range(inner):
                fn()
        return go

    for _ in range(repeats):
        a.append(cpu(many(ours)) / inner)
        b.append(cpu(many(peer)) / inner)
    return a, b


def line(label: str, a: list[float], b: list[float], unit: float, unit_name: str) -> None:
    ratio = statistics.median(a) / statistics.median(b)
    print(f"{label:<44} {min(a) * unit:9.2f} / {statistics.median(a) * unit:9.2f}   "
          f"{min(b) * unit:9.2f} / {statistics.median(b) * unit:9.2f} {unit_name}   {ratio:6.2f}x")


# -- odds ------------------------------------------------------------------------------------------
def icepool_attack() -> Any:
    """nwod attack 20 v 20, strength 5, weapon 2: the damage distribution (0 on a miss)."""
    import icepool

    def successes(v: int) -> int:  # an exploded d10 total: each 10 is a success, then the last face
        return v // 10 + (1 if v % 10 >= 7 else 0)

    die = icepool.d10.explode([10]).map(successes)
    net = (20 @ die) - (20 @ die)
    return icepool.map(lambda n, s: max(0, 2 + n + s) if n > 0 else 0, net, 5 @ die)


def ours_odds(ref: str, name: str, args: dict[str, Any]) -> Callable[[], object]:
    ruleset = compile_ref(ref)

    def go() -> object:
        clear_caches()  # every run works its dice distributions out again
        return procedure_odds(ruleset, name, args)
    return go


def peak_mib(fn: Callable[[], object]) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def section_odds() -> None:
    print("exact odds, ms of CPU: min / median of", REPEATS)
    for ref, name, args in HEAVY:
        go = ours_odds(ref, name, args)
        times = [cpu(go) for _ in range(REPEATS)]
        shown = " ".join(f"{k}={v}" for k, v in args.items())
        print(f"  {ref} {name} {shown:<58} {min(times) * 1e3:7.1f} / {statistics.median(times) * 1e3:7.1f}")
    print("\nnwod attack 20 v 20 strength 5, beside icepool: ours min / median, icepool min / median, ratio")
    ours = ours_odds("nwod", "attack", ATTACK)
    a, b = interleaved(ours, icepool_attack)
    line("  time", a, b, 1e3, "ms")
    print(f"  peak memory (tracemalloc): ours {peak_mib(ours):.1f} MiB, icepool {peak_mib(icepool_attack):.1f} MiB")


# -- every procedure -------------------------------------------------------------------------------
BUNDLED = ("lockwood", "nwod", "rollunder", "wwn")
POOL = {"again": 8}  # 8-again: the most explosions, so the heaviest pools
# Beyond each procedure's samples: the largest parameters it sensibly takes. SHEET marks a
# question asked with a character sheet (a new one, edited as SHEET_EDITS says).
SHEET = "sheet"
LARGEST: list[tuple[str, str, dict[str, Any], str | None]] = [
    *((ref, name, args, None) for ref, name, args in HEAVY),
    ("lockwood", "check", {"stat": 20, "dc": 15, "advantage": True, "luck": 20}, None),
    ("lockwood", "check", {"stat": 20, "dc": 15, "advantage": True}, SHEET),
    ("lockwood", "opposed", {"actor": 20, "defender": 20, "advantage": True, "defender_advantage": True}, None),
    ("lockwood", "attack", {"attack": 20, "defense": 20, "advantage": True, "defender_advantage": True,
                            "luck": 20}, None),
    ("lockwood", "attack", {"attack": 20, "defense": 20, "advantage": True, "defender_advantage": True}, SHEET),
    ("lockwood", "luck", {"points": 20}, None),
    ("lockwood", "friendly_fire", {"perception": 20, "in_the_way": 20}, None),
    ("lockwood", "move", {"agility": 20}, None),
    *(("lockwood", name, {"healing": 20}, SHEET) for name in ("heal_minor", "heal_major")),
    ("nwod", "pool", {"dice": 20, "target": 8, **POOL}, None),
    ("nwod", "action", {"pool": 20, "skill": 5, "specialty": True, **POOL}, None),
    ("nwod", "action", {"pool": 20, **POOL}, SHEET),
    ("nwod", "contested", {"actor": 20, "defender": 20, **POOL, "defender_again": 8}, None),
    ("nwod", "extended", {"pool": 20, "required": 30, **POOL}, None),
    ("nwod", "full_defense", {"defense_pool": 20, "attacker": 3, **POOL}, None),
    ("nwod", "attack", {"attack_pool": 20, "defense_pool": 20, "weapon": 5, "strength": 5, **POOL,
                        "defense_again": 8}, None),
    ("nwod", "autofire", {"mode": "long", "attack_pool": 20, "defense_pool": 20, "weapon": 5, "targets": 3,
                          **POOL, "defense_again": 8}, None),
    ("nwod", "degeneration", {"morality": 10, "sin": 1, **POOL}, None),
    ("nwod", "stay_conscious", POOL, SHEET),
    ("rollunder", "check", {"stat": 18, "advantage": True}, None),
    ("rollunder", "zero_hp", {"disadvantage": True}, None),
    ("rollunder", "learn_ritual", {"cunning": 18, "advantage": True}, None),
    ("rollunder", "learn_ritual", {"pay": "hp", "advantage": True}, SHEET),
    ("rollunder", "rest", {"advantage": True}, SHEET),
    ("rollunder", "advance_stat", {"stat": 18, "advantage": True}, None),
    *(("rollunder", "advance", {"choice": choice}, SHEET) for choice in ("stats", "hp")),
    ("wwn", "attack", {"bonus": 10, "ac": 20, "damage": "3d8", "damage_bonus": 5, "shock": 5, "shock_ac": 20}, None),
    ("wwn", "stabilize", {"skill": 4, "attribute": 18, "rounds": 10, "aided": True}, SHEET),
    ("wwn", "first_aid", {"heal": 4}, SHEET),
]
# What a new sheet needs before every state procedure has something to do, and the sheets of
# the procedures that need more (rollunder wake: a stable character at 0 HP; wwn stabilize: a
# mortally wounded one).
SHEET_EDITS = {"nwod": {"experience": "100"}, "rollunder": {"st_points": "3"}}
STATES = {("rollunder", "wake"): {"unconscious": "true", "hp": "{current: 0, max: 6}"},
          ("wwn", "stabilize"): {"mortally_wounded": "true", "hp": "{current: 0, max: 4}"}}


def new_sheet(folder: str, ref: str, name: str, edits: dict[str, str]) -> SheetFile:
    """A new sheet of the ruleset, written by `rules sheet new`, with some state values edited."""
    path = Path(folder) / f"{ref}-{name}.yaml"
    subprocess.run([str(Path(sys.executable).with_name("rules")), "sheet", "new", ref, "-o", str(path)],
                   check=True, stdout=subprocess.DEVNULL)
    text = path.read_text()
    for key, value in edits.items():
        text = re.sub(rf"(?m)^(  {key}:) [^#\n]*?(  #|$)", rf"\1 {value}\2", text, count=1)
    path.write_text(text)
    return SheetFile.read(str(path))


def questions(folder: str) -> list[tuple[str, str, dict[str, Any], SheetFile | None]]:
    """Every sample of every bundled procedure (with and without a sheet as it takes one) and LARGEST."""
    out: list[tuple[str, str, dict[str, Any], SheetFile | None]] = []
    sheets: dict[tuple[str, str], SheetFile] = {}

    def sheet_for(ref: str, name: str) -> SheetFile:
        key = (ref, name if (ref, name) in STATES else "")
        if key not in sheets:
            edits = {**SHEET_EDITS.get(ref, {}), **STATES.get((ref, name), {})}
            sheets[key] = new_sheet(folder, ref, key[1] or "sheet", edits)
        return sheets[key]

    for ref in BUNDLED:
        ruleset = compile_ref(ref)
        for name, proc in ruleset.procedures.items():
            for sample in proc.samples or [{}]:
                args = as_arguments(sample)
                if proc.sheet != "required":
                    out.append((ref, name, args, None))
                if proc.sheet != "none":
                    out.append((ref, name, args, sheet_for(ref, name)))
    for ref, name, args, sheet in LARGEST:
        out.append((ref, name, args, sheet_for(ref, name) if sheet else None))
    return out


def section_every() -> None:
    print("exact odds of every bundled procedure: its slowest question, ms of CPU (min / median of", REPEATS, ")")
    timed: dict[tuple[str, str, str], tuple[float, float]] = {}  # (ruleset, procedure, question) -> min, median
    refused: dict[tuple[str, str], str] = {}
    with TemporaryDirectory() as folder:
        for ref, name, args, sheet in questions(folder):
            ruleset = compile_ref(ref)

            def go(ruleset: Any = ruleset, name: str = name, args: dict[str, Any] = args,
                   sheet: SheetFile | None = sheet) -> object:
                clear_caches()
                return procedure_odds(ruleset, name, args, bound(ruleset, sheet.data, sheet.doc) if sheet else None)
            shown = " ".join(f"{k}={v}" for k, v in args.items()) + (" --sheet" if sheet else "")
            try:
                go()
            except RulesError as err:  # a sample the sheet does not allow: reported, not timed
                refused.setdefault((ref, name), f"{shown}: {err.message}")
                continue
            times = [cpu(go) for _ in range(REPEATS)]
            timed[(ref, name, shown)] = (min(times), statistics.median(times))
    slowest = {(r, n): (q, t) for (r, n, q), t in sorted(timed.items(), key=lambda item: item[1][1])}
    for ref in BUNDLED:
        for name in compile_ref(ref).procedures:
            if (ref, name) not in slowest:
                print(f"  {ref} {name}: no question answered ({refused.get((ref, name), 'none asked')})")
                continue
            shown, (best, median) = slowest[(ref, name)]
            print(f"  {f'{ref} {name} {shown}':<100} {best * 1e3:7.1f} / {median * 1e3:7.1f}")
    issue = {(r, n, " ".join(f"{k}={v}" for k, v in a.items())) for r, n, a in HEAVY}
    counted = sum(len(compile_ref(ref).procedures) for ref in BUNDLED)
    for label, chosen in [("issue 13's questions", issue), ("every question", set(timed))]:
        (ref, name, shown), (_, median) = max(((k, timed[k]) for k in chosen), key=lambda item: item[1][1])
        print(f"{label}: slowest {ref} {name} {shown}, median {median * 1e3:.1f} ms; within 100 ms: "
              f"{'yes' if median <= 0.1 else 'no'}")
    print(f"{len(slowest)} of {counted} procedures answered")


# -- sampled runs ----------------------------------------------------------------------------------
def hand_check(rng: random.Random, stat: int, dc: int) -> tuple[str, int, int]:
    """lockwood check, written out: 1d20 + stat against the DC, 20 and 1 critical."""
    natural = int(rng.random() * 20) + 1
    total = natural + stat
    if natural >= 20:
        return "critical_success", natural, total
    if natural <= 1:
        return "critical_failure", natural, total
    return ("success" if total >= dc else "failure"), natural, total


def hand_action(rng: random.Random, pool: int) -> tuple[str, int]:
    """nwod action, written out: a pool of d10, 8 or more a success, 10s roll again; 5 an exceptional success."""
    successes = 0
    left = pool
    while left:
        left -= 1
        face = int(rng.random() * 10) + 1
        if face >= 8:
            successes += 1
        if face == 10:
            left += 1
    if successes >= 5:
        return "exceptional_success", successes
    return ("success" if successes else "failure"), successes


def hand_attack(rng: random.Random, bonus: int, ac: int, shock: int, shock_ac: int) -> tuple[str, int]:
    """wwn attack, written out: 1d20 + bonus against AC, 1d8 damage on a hit, Shock on a miss."""
    natural = int(rng.random() * 20) + 1
    shock_damage = max(0, shock)
    hit = natural >= 20 or (natural > 1 and natural + bonus >= ac)
    if hit:
        return "hit", max(int(rng.random() * 8) + 1, shock_damage if ac <= shock_ac else 0)
    return "miss", shock_damage if ac <= shock_ac and natural > 1 else 0


def hand_2d20kh1(rng: random.Random) -> int:
    r = rng.random
    return max(int(r() * 20) + 1, int(r() * 20) + 1)


def section_run() -> None:
    print("one sampled run (outcome and values), µs of CPU: ours min / median, hand-written min / median, ratio")
    rng = random.Random(1)
    source = RandomSource(rng)
    lockwood, nwod, wwn = compile_ref("lockwood"), compile_ref("nwod"), compile_ref("wwn")
    check = {"stat": 12, "dc": 15}
    attack = {"bonus": 3, "ac": 14, "damage": "1d8", "shock": 2, "shock_ac": 13}
    procedures = [("lockwood check stat=12 dc=15", lockwood, "check", check, lambda: hand_check(rng, 12, 15)),
                  ("nwod action pool=5", nwod, "action", {"pool": 5}, lambda: hand_action(rng, 5)),
                  ("wwn attack bonus=3 ac=14 damage=1d8", wwn, "attack", attack,
                   lambda: hand_attack(rng, 3, 14, 2, 13))]
    cases: list[tuple[str, Callable[[], object], Callable[[], object]]] = []
    for label, ruleset, name, args, hand in procedures:
        run = sampler(ruleset, name, args)  # the parameters are bound once, as the hand-written rule takes them
        cases.append((label, lambda run=run: run(rng), hand))
    expr = parse("2d20kh1")
    cases.append(("2d20kh1 (a roll, with its trace)", lambda: expr.roll({}, source), lambda: hand_2d20kh1(rng)))
    for label, ours, peer in cases:
        a, b = interleaved(ours, peer, inner=2000)
        line(label, a, b, 1e6, "µs")
    print("\nthe same runs with the trace of every die (rules run: parameters read, dice seeded, every die kept),"
          "\nbeside the same hand-written rules seeding their own generator")
    seeded = [lambda: hand_check(random.Random(7), 12, 15), lambda: hand_action(random.Random(7), 5),
              lambda: hand_attack(random.Random(7), 3, 14, 2, 13)]
    for (label, ruleset, name, args, _), hand in zip(procedures, seeded, strict=True):
        a, b = interleaved(lambda ruleset=ruleset, name=name, args=args:
                           run_once(ruleset, name, args, RandomSource.seeded(7)), hand, inner=500)
        line(label, a, b, 1e6, "µs")


# -- cold start ------------------------------------------------------------------------------------
def child_cpu(argv: list[str], env: dict[str, str] | None = None) -> float:
    """CPU seconds (user + system) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


COLD = [  # one procedure of each bundled ruleset, run once and its exact odds
    ("lockwood", "check", ["stat=12", "dc=15"]),
    ("nwod", "action", ["pool=5"]),
    ("wwn", "attack", ["bonus=3", "ac=14", "damage=1d8", "shock=2", "shock_ac=13"]),
    ("rollunder", "check", ["stat=12"]),
]


def section_cold() -> None:
    """Whole processes of this checkout (PYTHONPATH), each beside the floor measured in the same run, alternating:
    `rules --help`, `rules run` and `rules odds` with the parse cache filled (warm), and the same commands with
    an empty cache folder of their own (cold: the first command after installing, or after editing a ruleset)."""
    import compileall
    import tempfile

    root = Path(__file__).resolve().parent.parent
    compileall.compile_dir(str(root / "interpreter"), quiet=1)
    compileall.compile_file(str(root / "cli.py"), quiet=1)
    warm = tempfile.mkdtemp(prefix="rulesmith-bench-")
    env = {**os.environ, "PYTHONPATH": str(root), "RULESMITH_CACHE_DIR": warm}
    env.pop("RULESMITH_CACHE", None)
    rules = [sys.executable, str(root / "cli.py")]
    floor = [sys.executable, "-c", "import click, ruamel.yaml"]
    print(f"start, ms of CPU of a whole process of {root}: ours min / median, "
          '`python -c "import click, ruamel.yaml"` min / median, ratio')
    a: list[float] = []
    b: list[float] = []
    for _ in range(START_REPEATS):
        a.append(child_cpu([*rules, "--help"], env))
        b.append(child_cpu(floor, env))
    line("rules --help", a, b, 1e3, "ms")
    for ref, name, params in COLD:
        for command, extra in (("run", ["--seed", "1"]), ("odds", [])):
            argv = [*rules, command, ref, name, *params, *extra]
            child_cpu(argv, env)  # the first run fills the caches every later command reads
            a, b = [], []
            cold_a: list[float] = []
            cold_b: list[float] = []
            for _ in range(START_REPEATS):
                a.append(child_cpu(argv, env))
                b.append(child_cpu(floor, env))
                with tempfile.TemporaryDirectory(prefix="rulesmith-cold-") as empty:
                    cold_a.append(child_cpu(argv, {**env, "RULESMITH_CACHE_DIR": empty, "XDG_CACHE_HOME": empty}))
                cold_b.append(child_cpu(floor, env))
            label = " ".join(["rules", command, ref, name, *params])
            line(label[:44], a, b, 1e3, "ms")
            line(("cold " + label)[:44], cold_a, cold_b, 1e3, "ms")


# -- memory ----------------------------------------------------------------------------------------
def section_memory() -> None:
    peak = "print([line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM')][0])"
    base = "import click, ruamel.yaml; " + peak
    floor = int(subprocess.run([sys.executable, "-c", base], capture_output=True, text=True, check=True).stdout)
    print("peak resident memory of a process computing one job's exact odds, MiB "
          f"(a process importing click and ruamel.yaml: {floor / 1024:.1f} MiB)")
    largest = (0, "")
    for ref, name, args in HEAVY:
        code = ("from interpreter.pipeline import compile_ref; from interpreter.procedure.odds import odds; "
                f"odds(compile_ref({ref!r}), {name!r}, {args!r}); " + peak)
        ours = int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
        shown = f"{ref} {name} " + " ".join(f"{k}={v}" for k, v in args.items())
        print(f"  {shown:<72} {ours / 1024:6.1f}")
        largest = max(largest, (ours, shown))
    print(f"largest: {largest[1]}, {largest[0] / 1024:.1f} MiB")


SECTIONS = {"odds": section_odds, "every": section_every, "run": section_run, "cold": section_cold, "memory": section_memory}

if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    chosen = sys.argv[1:] or list(SECTIONS)
    for i, name in enumerate(chosen):
        if i:
            print()
        SECTIONS[name]()
