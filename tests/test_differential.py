"""The three ways of running a procedure agree on random small procedures.

Each case writes a ruleset with a random procedure, each of whose steps a step kind of the table
(procedure.kinds.KINDS) makes through its record's `sample` over random formulas, and checks:

- a traced run (`rules run`) and a sampled run (`--times`) of the same generator give the same
  outcome and values, or the same error, on every seed;
- the exact odds equal the enumeration of traced runs over every sequence of dice, each weighted
  by its chance (or, when some sequence fails, the odds fail with one of those errors).

`RULESMITH_DIFFERENTIAL=N` runs N procedures instead of the default few hundred.
"""

from __future__ import annotations

import json
import math
import os
import random
from collections import defaultdict
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from interpreter.dice.sources import RandomSource
from interpreter.errors import RulesError
from interpreter.pipeline import compile_ref
from interpreter.procedure.kinds import KINDS
from interpreter.procedure.odds import odds as procedure_odds
from interpreter.procedure.run import run as run_once
from interpreter.procedure.sampler import sampler
from interpreter.record import replace
from interpreter.ruleset.kind import Instances, Kinds, RawStep, distinct

PROCEDURES = int(os.environ.get("RULESMITH_DIFFERENTIAL", "300"))
CHUNK = 12
SEEDS = 12
MAX_PATHS = 4000
NAMES = ("x", "y", "v")  # every name a step binds is bound at the start, so none is ever absent


class Writer:
    """A random procedure within a budget of dice paths: each step kind makes random steps of its own
    (its record's `sample`) through this generator's formulas, dice, names and nested bodies."""

    outcomes = ("great", "good", "bad")
    sheet = False

    def __init__(self, rng: random.Random, kinds: Kinds = KINDS):
        self.rng = rng
        self.kinds = distinct(kinds)
        self.budget = math.log(2500)  # log of the number of dice sequences a run may take, roughly
        self.counters = 0

    # formulas

    def number(self, depth: int = 0) -> str:
        r = self.rng
        pick = r.randrange(10 if depth < 2 else 3)
        if pick == 9 and r.random() < 0.15:  # may divide by zero: an error the paths must agree on
            return f"({self.number(depth + 1)} // {r.choice(NAMES)})"
        if pick == 0:
            return str(r.randint(-2, 4))
        if pick in (1, 2):
            return r.choice((*NAMES, "a", "k"))
        left, right = self.number(depth + 1), self.number(depth + 1)
        if pick == 3:
            return f"({left} {r.choice('+-')} {right})"
        if pick == 4:
            return f"({left} * {r.randint(-2, 3)})"
        if pick == 5:
            return f"({left} // {r.choice((2, 3))})"
        if pick == 6:
            return f"{r.choice(('min', 'max'))}({left}, {right})"
        if pick == 7:
            return f"abs({left})"
        if pick == 8:
            return f"clamp({left}, {r.randint(-2, 0)}, {r.randint(1, 4)})"
        return f"({left} if {self.condition(depth + 1)} else {right})"

    def condition(self, depth: int = 0) -> str:
        r = self.rng
        pick = r.randrange(6 if depth < 2 else 3)
        if pick == 0:
            return "adv"
        if pick in (1, 2):
            return f"{self.number(depth + 1)} {r.choice(('<', '<=', '>', '>=', '==', '!='))} {self.number(depth + 1)}"
        if pick == 3:
            return f"not ({self.condition(depth + 1)})"
        return f"({self.condition(depth + 1)} {r.choice(('and', 'or'))} {self.condition(depth + 1)})"

    def dice(self, pool: bool) -> tuple[list[RawStep], str, float]:
        """Steps setting the names dice may read, a dice expression (of one pool when told), and the log of
        how many sequences of dice it may draw."""
        before: list[RawStep] = [{"let": {"n": f"clamp({self.number()}, 0, 2)", "s": f"clamp({self.number()}, 1, 3)"}}]
        if pool:
            return before, "(s)d2", math.log(8)
        expr, cost = self.rng.choice((
            ("1d3", math.log(3)), ("1d2 + x", math.log(2)), ("2d2", math.log(4)), ("1d4 - 1", math.log(4)),
            ("(n)d3", math.log(9)), ("1d(s)", math.log(3)), ("2d3kh1", math.log(9)),
            ("2d3>=2", math.log(9)), ("1d3 + k", math.log(3)),
        ))
        return before, expr, cost

    def name(self) -> str:
        return self.rng.choice(NAMES)

    def counter(self) -> str:
        self.counters += 1
        return f"c{self.counters}"

    def table(self, rolled: bool) -> str:
        return "loot" if rolled else "bonus"

    def callee(self) -> tuple[str, str, tuple[str, ...]]:
        return "helper", "x", ("r", "good")

    def keep(self, formula: str) -> RawStep:
        return {"let": {self.name(): formula}}

    def decides(self) -> RawStep:
        return {"decide": [{"when": self.condition(), "outcome": self.outcomes[0]}, {"outcome": self.outcomes[1]}]}

    # steps

    def afford(self, cost: float, times: float) -> bool:
        if cost * times > self.budget:
            return False
        self.budget -= cost * times
        return True

    def steps(self, times: float, depth: int) -> list[RawStep] | None:
        """The body of a step at `depth`: one or two steps (None past the second level of nesting)."""
        if depth >= 2:
            return None
        return self.some(self.rng.randint(1, 2), times, depth + 1) or [{"let": {"x": 1}}]

    def some(self, count: int, times: float, depth: int) -> list[RawStep]:
        out: list[RawStep] = []
        for _ in range(count):
            for _ in range(3):  # a kind that makes no step here (a sheet's, one too deep, one over budget): another
                made = self.rng.choice(self.kinds).sample(self, times, depth)
                if made:
                    out += made
                    break
        return out


def ruleset_text(seed: int, kinds: Kinds = KINDS) -> str:
    """A ruleset of a random procedure `main` of these step kinds, each step written as JSON (which YAML reads)."""
    rng = random.Random(seed)
    writer = Writer(rng, kinds)
    body = [f"      - {json.dumps(step)}" for step in writer.some(rng.randint(2, 6), 1.0, 0)]
    return "\n".join([
        f"ruleset: differential{seed}",
        "title: A random procedure",
        f"constants: {{k: {rng.randint(1, 3)}}}",
        "tables:",
        "  loot:",
        "    die: 1d3",
        "    rows:",
        "      - {on: 1, outcome: bad}",
        "      - {on: 2, outcome: good, values: {y: 1d2}}",
        "      - {on: 3, value: 4}",
        "  bonus:",
        "    rows:",
        f"      - {{on: [-1, 1], value: {rng.randint(-2, 2)}}}",
        f"      - {{on: [2, 3], value: {rng.randint(0, 3)}}}",
        "    default: {value: 1}",
        "procedures:",
        "  helper:",
        "    params: {x: {type: int, default: 0}}",
        "    outcomes: {good: it holds, bad: it does not}",
        "    values: {r: the roll}",
        "    steps:",
        "      - roll: {r: 1d3 + x}",
        "      - decide: [{when: r >= 3, outcome: good}, {outcome: bad}]",
        "  main:",
        "    params: {a: {type: int, default: 1}, adv: {type: flag}}",
        "    outcomes: {great: the best, good: good, bad: bad}",
        "    values: {x: x, y: y, v: v}",
        "    steps:",
        "      - let: {x: 0, y: 1, v: a}",
        "      - decide: [{outcome: bad}]",
        *body,
        "",
    ])


class Enumerating:
    """Dice given up to a prefix; past it each die shows its first face, and every die drawn is noted."""

    uniform = None  # every die goes through `draw`

    def __init__(self, prefix: list[int]):
        self.prefix = prefix
        self.drawn: list[tuple[int, int]] = []  # (index of the face shown, how many faces)

    def _next(self, faces: int) -> int:
        at = len(self.drawn)
        index = self.prefix[at] if at < len(self.prefix) else 0
        self.drawn.append((index, faces))
        if len(self.drawn) > 200:
            raise RuntimeError("a run drew more than 200 dice")
        return index

    def draw(self, sides: int) -> int:
        return self._next(sides) + 1

    def draw_face(self, faces: tuple[int, ...]) -> int:
        return faces[self._next(len(faces))]


def every_run(ruleset: Any, args: dict[str, Any]) -> Iterator[tuple[Fraction, Any]]:
    """Every sequence of dice a traced run may draw, with its chance and the run's result (or error)."""
    todo: list[list[int]] = [[]]
    seen = 0
    while todo:
        prefix = todo.pop()
        source = Enumerating(prefix)
        try:
            got: Any = run_once(ruleset, "main", args, source)
        except RulesError as err:
            got = err
        seen += 1
        assert seen <= MAX_PATHS, "the generated procedure draws too many sequences of dice"
        chance = Fraction(1)
        for at, (_, faces) in enumerate(source.drawn):
            chance /= faces
            if at >= len(prefix):  # a die past the prefix showed its first face: the others are still to run
                todo.extend([*[i for i, _ in source.drawn[:at]], other] for other in range(1, faces))
        yield chance, got


def enumerated(ruleset: Any, args: dict[str, Any]) -> tuple[dict[str, Fraction], dict[str, dict[Any, Fraction]],
                                                           list[str]]:
    outcomes: dict[str, Fraction] = defaultdict(Fraction)
    values: dict[str, dict[Any, Fraction]] = {n: defaultdict(Fraction) for n in NAMES}
    errors: list[str] = []
    total = Fraction(0)
    for chance, got in every_run(ruleset, args):
        total += chance
        if isinstance(got, RulesError):
            errors.append(str(got))
            continue
        outcomes[got.outcome] += chance
        for name in NAMES:
            values[name][got.values[name]] += chance
    assert total == 1
    return outcomes, values, errors


def check_one(seed: int, folder: Path, kinds: Kinds = KINDS, load: Callable[[Path], Any] | None = None) -> None:
    """The three ways agree on the random procedure of this seed, of these step kinds (`load` compiles its file)."""
    text = ruleset_text(seed, kinds)
    path = folder / f"differential{seed}.yaml"
    path.write_text(text, encoding="utf-8")
    ruleset = load(path) if load is not None else compile_ref(str(path))
    rng = random.Random(seed)
    args = {"a": rng.randint(0, 2), "adv": rng.random() < 0.5}
    where = f"seed {seed}, {args}:\n{text}"

    sample = sampler(ruleset, "main", args)
    for run_seed in range(SEEDS):
        try:
            traced: Any = run_once(ruleset, "main", args, RandomSource(random.Random(run_seed)))
            traced = (traced.outcome, *[traced.values[n] for n in NAMES])
        except RulesError as err:
            traced = str(err)
        try:
            sampled: Any = sample(random.Random(run_seed))
        except RulesError as err:
            sampled = str(err)
        assert traced == sampled, f"run seed {run_seed}, {where}"

    outcomes, values, errors = enumerated(ruleset, args)
    if errors:
        with pytest.raises(RulesError) as failed:
            procedure_odds(ruleset, "main", args)
        assert str(failed.value) in errors, where
        return
    odds = procedure_odds(ruleset, "main", args)
    assert odds.exact, where
    assert dict(odds.outcomes) == {o: outcomes.get(o, Fraction(0)) for o in ("great", "good", "bad")}, where
    for name in NAMES:
        assert dict(odds.values[name]) == {k: p for k, p in values[name].items() if p}, f"{name}, {where}"


@pytest.mark.parametrize("first", range(0, PROCEDURES, CHUNK))
def test_traced_sampled_and_exact_runs_agree_on_random_procedures(first: int, tmp_path: Path) -> None:
    for seed in range(first, min(first + CHUNK, PROCEDURES)):
        check_one(seed, tmp_path)


NEEDS_A_SHEET = frozenset({"update", "damage", "heal", "for_each"})  # their kinds make no step in these procedures


def step_keys(text: str) -> set[str]:
    """The keys of every step of the random procedure of a ruleset text, nested ones included."""
    todo = [json.loads(line.strip()[2:]) for line in text.splitlines() if line.startswith("      - {\"")]
    keys: set[str] = set()
    while todo:
        step = todo.pop()
        keys |= set(step)
        todo += [inner for key in ("then", "else", "steps") for inner in step.get(key) or ()]
    return keys


def generated(kinds: Kinds, count: int = PROCEDURES) -> set[str]:
    return set().union(*(step_keys(ruleset_text(seed, kinds)) for seed in range(count)))


def test_the_generator_writes_every_step_kind() -> None:
    """Each step kind of the table makes random steps of its own (its record's `sample`), so a new kind is in
    the random procedures as soon as it is in the table; only those that need a character sheet are not."""
    keys = generated(KINDS)
    for key in KINDS:
        assert (key in keys) != (key in NEEDS_A_SHEET), key
    for key in ("read", "else", "inherit_outcome", "worst_when", "tiebreak", "counter", "key", "roll_as"):
        assert key in keys, key


def test_the_generator_asks_each_kind_for_its_steps() -> None:
    """A kind's steps come from its own record: one whose `sample` makes nothing is never in a procedure."""
    silent = {key: replace(kind, sample=lambda g, times, depth: []) for key, kind in KINDS.items()}
    assert not generated(MappingProxyType(silent), 20) & set(KINDS)


def test_the_generator_offers_what_a_kind_may_ask_for() -> None:
    """The generator is an `Instances`: every method a kind's `sample` may call is there."""
    writer: Instances = Writer(random.Random(0))
    assert writer.steps(1.0, 2) is None and writer.steps(1.0, 0)
    assert writer.outcomes[0] != writer.outcomes[-1]
