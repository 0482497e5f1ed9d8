"""The three ways of running a procedure agree on random small procedures.

Each case writes a ruleset with a random procedure (`let`, `roll` with and without `read`,
`decide`, `stop`, `if`, `repeat`, `while`, `best_of`, `contest`, die and keyed `table`s, `call`,
over random formulas) and checks:

- a traced run (`rules run`) and a sampled run (`--times`) of the same generator give the same
  outcome and values, or the same error, on every seed;
- the exact odds equal the enumeration of traced runs over every sequence of dice, each weighted
  by its chance (or, when some sequence fails, the odds fail with one of those errors).

`RULESMITH_DIFFERENTIAL=N` runs N procedures instead of the default few hundred.
"""

from __future__ import annotations

import math
import os
import random
from collections import defaultdict
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from interpreter.dice.sources import RandomSource
from interpreter.errors import RulesError
from interpreter.pipeline import compile_ref
from interpreter.procedure.odds import odds as procedure_odds
from interpreter.procedure.run import run as run_once
from interpreter.procedure.sampler import sampler

PROCEDURES = int(os.environ.get("RULESMITH_DIFFERENTIAL", "300"))
CHUNK = 12
SEEDS = 12
MAX_PATHS = 4000
NAMES = ("x", "y", "v")  # every name a step binds is bound at the start, so none is ever absent


class Writer:
    """A random procedure, as YAML lines, within a budget of dice paths."""

    def __init__(self, rng: random.Random):
        self.rng = rng
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

    def dice(self) -> tuple[str, float]:
        """A dice expression and the log of how many sequences of dice it may draw."""
        return self.rng.choice((
            ("1d3", math.log(3)), ("1d2 + x", math.log(2)), ("2d2", math.log(4)), ("1d4 - 1", math.log(4)),
            ("(n)d3", math.log(9)), ("1d(s)", math.log(3)), ("2d3kh1", math.log(9)),
            ("2d3>=2", math.log(9)), ("1d3 + k", math.log(3)),
        ))

    # steps

    def steps(self, indent: str, count: int, times: float, depth: int) -> list[str]:
        lines: list[str] = []
        for _ in range(count):
            lines += self.step(indent, times, depth)
        return lines

    def afford(self, cost: float, times: float) -> bool:
        if cost * times > self.budget:
            return False
        self.budget -= cost * times
        return True

    def step(self, indent: str, times: float, depth: int) -> list[str]:
        r = self.rng
        kinds = ["let", "roll", "roll", "roll", "read", "decide", "stop", "contest", "table", "lookup", "call"]
        if depth < 2:
            kinds += ["if", "repeat", "while", "best_of"]
        kind = r.choice(kinds)
        name = r.choice(NAMES)
        if kind == "let":
            return [f"{indent}- let: {{{name}: \"{self.number()}\"}}"]
        if kind in ("roll", "read"):
            expr, cost = self.dice()
            if kind == "read":
                expr, cost = "(s)d2", math.log(8)
            if not self.afford(cost, times):
                return [f"{indent}- let: {{{name}: \"{self.number()}\"}}"]
            lines = [f"{indent}- let: {{n: \"clamp({self.number()}, 0, 2)\", s: \"clamp({self.number()}, 1, 3)\"}}",
                     f"{indent}- roll: {{{name}: \"{expr}\"}}"]
            if kind == "read":
                other = r.choice([n for n in NAMES if n != name])
                lines.append(f"{indent}  read: {{{other}: {r.choice(('highest', 'count == 2', 'dice', 'lowest'))}}}")
            return lines
        if kind == "decide":
            return [f"{indent}- decide:",
                    f"{indent}    - {{when: \"{self.condition()}\", outcome: {r.choice(('great', 'good'))}}}",
                    f"{indent}    - {{when: \"{self.condition()}\", outcome: bad}}"]
        if kind == "stop":
            return [f"{indent}- stop: \"{self.condition()}\"", f"{indent}  outcome: {r.choice(('great', 'bad'))}"]
        if kind == "contest":
            sides = f"actor: \"{self.number()}\", defender: \"{self.number()}\""
            ties = r.choice(("actor", "defender"))
            return [f"{indent}- contest: {{{sides}, ties: {ties}, win: good, lose: bad, margin: {name}}}"]
        if kind == "table":
            if not self.afford(math.log(6), times):
                return []
            return [f"{indent}- table: loot", f"{indent}  roll_as: {name}"]
        if kind == "lookup":
            return [f"{indent}- table: bonus", f"{indent}  key: \"{self.number()}\"", f"{indent}  value_as: {name}"]
        if kind == "call":
            if not self.afford(math.log(3), times):
                return []
            lines = [f"{indent}- call: helper", f"{indent}  with: {{x: \"{self.number()}\"}}", f"{indent}  as: h"]
            if r.random() < 0.5:
                lines.append(f"{indent}  inherit_outcome: true")
            return [*lines, f"{indent}- let: {{{name}: \"h_r + h_good\"}}"]
        if kind == "if":
            lines = [f"{indent}- if: \"{self.condition()}\"", f"{indent}  then:"]
            lines += self.steps(indent + "    ", r.randint(1, 2), times, depth + 1) or [f"{indent}    - let: {{x: 1}}"]
            if r.random() < 0.6:
                lines.append(f"{indent}  else:")
                lines += self.steps(indent + "    ", r.randint(1, 2), times, depth + 1) or [f"{indent}    - let: {{y: 1}}"]
            return lines
        self.counters += 1
        counter = f"c{self.counters}"
        if kind == "repeat":
            count = r.choice(("2", "clamp(a, 0, 2)", "1"))
            lines = [f"{indent}- repeat: \"{count}\"", f"{indent}  counter: {counter}", f"{indent}  steps:"]
            body = self.steps(indent + "    ", r.randint(1, 2), times * 2, depth + 1)
            return [*lines, *body, f"{indent}    - let: {{v: \"v + {counter}\"}}"]
        if kind == "while":
            lines = [f"{indent}- while: \"{self.condition()}\"", f"{indent}  max: {r.randint(1, 3)}",
                     f"{indent}  counter: {counter}", f"{indent}  steps:"]
            body = self.steps(indent + "    ", r.randint(1, 2), times * 3, depth + 1)
            return [*lines, *body, f"{indent}    - let: {{x: \"x + {counter}\"}}"]
        lines = [f"{indent}- best_of: 2", f"{indent}  worst_when: \"{self.condition()}\"",
                 f"{indent}  tiebreak: {name}", f"{indent}  steps:"]
        body = self.steps(indent + "    ", r.randint(1, 2), times * 2, depth + 1)
        return [*lines, *body, f"{indent}    - decide:",
                f"{indent}        - {{when: \"{self.condition()}\", outcome: great}}",
                f"{indent}        - {{outcome: good}}"]


def ruleset_text(seed: int) -> str:
    rng = random.Random(seed)
    writer = Writer(rng)
    body = writer.steps("      ", rng.randint(2, 6), 1.0, 0)
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


def check_one(seed: int, folder: Path) -> None:
    text = ruleset_text(seed)
    path = folder / f"differential{seed}.yaml"
    path.write_text(text, encoding="utf-8")
    ruleset = compile_ref(str(path))
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


def test_the_generator_writes_every_step_kind() -> None:
    """The random procedures of the default run use every step kind this test is about."""
    text = "\n".join(ruleset_text(seed) for seed in range(PROCEDURES))
    for key in ("- let:", "- roll:", "read:", "- decide:", "- stop:", "- if:", "else:", "- repeat:", "- while:",
                "- best_of:", "- contest:", "- table: loot", "- table: bonus", "- call: helper", "inherit_outcome"):
        assert key in text, key
