"""A step kind is one module: its meaning, dataflow, compiler and sentence are in its own record.

- Every step key of the schema is spelled in code by its kind's module of procedure/kinds alone
  (the table in procedure/kinds/__init__.py aside).
- A kind that exists only in this test, added through the table (a copy of KINDS with one more
  record, handed to the pipeline), compiles, runs traced, sampled and exactly with the three
  agreeing with a count by hand, is described, and is in the differential test's random procedures.
"""

from __future__ import annotations

import ast
import copy
import json
import math
import random
import sys
from collections.abc import Iterator
from dataclasses import FrozenInstanceError
from fractions import Fraction
from pathlib import Path

import pytest

from interpreter import api
from interpreter.cli.prose import step_lines
from interpreter.dice.expr import DiceExpr
from interpreter.dice.sources import RandomSource
from interpreter.errors import Invalid, Location, SchemaViolation, UnknownStepKind
from interpreter.load.bundled import schema_path
from interpreter.load.document import Document
from interpreter.load.find import find
from interpreter.pipeline import compile_documents
from interpreter.procedure.kinds import KINDS
from interpreter.procedure.run import run as run_traced
from interpreter.procedure.sampler import sampler
from interpreter.procedure.writing import Writer
from interpreter.record import record, replace
from interpreter.ruleset.context import CompileContext, P, ProcContext, Scope, Spec, bind
from interpreter.ruleset.kind import Instances, Kinds, RawStep, StepKind, distinct, table
from interpreter.ruleset.liveness import Liveness, Names
from interpreter.ruleset.model import CompiledRuleset
from interpreter.ruleset.specs import Step, StepSpec

sys.path.insert(0, str(Path(__file__).parent))
from test_differential import check_one, generated

ROOT = Path(__file__).resolve().parent.parent
INTERPRETER = ROOT / "interpreter"
KINDS_FOLDER = INTERPRETER / "procedure" / "kinds"
KIND_MODULES = {path.stem for path in KINDS_FOLDER.glob("*.py")} - {"__init__"}

# Modules that spell a step key for another thing of the same name, with what that thing is. A mention
# of a step key anywhere else outside its kind's module fails the test.
HOMONYMS = {
    ("interpreter/cli/dice.py", "roll"): "the `rules roll` command",
    ("interpreter/cli/rolls.py", "roll"): "what the `rules roll` command does",
    ("interpreter/cli/quick.py", "roll"): "the `rules roll` command, read without click",
    ("interpreter/cli/commands.py", "roll"): "the `rules roll` command, loaded when asked for",
    ("interpreter/api/__init__.py", "roll"): "the library's `roll` function, imported when first asked for",
    ("interpreter/lsp/completion.py", "table"): "what a completed name is: a table",
}
# The contexts the written code calls (procedure.context) give the draws a kind's code asks for, `c.call` and
# `c.best`; their signatures name that kind's own records, imported for the type checker alone.
TYPED_DRAWS = {
    ("interpreter/procedure/context.py", "module interpreter.procedure.kinds.best_of"),
    ("interpreter/procedure/context.py", "module interpreter.procedure.kinds.call"),
    ("interpreter/procedure/exact.py", "module interpreter.procedure.kinds.best_of"),
    ("interpreter/procedure/exact.py", "module interpreter.procedure.kinds.call"),
    ("interpreter/procedure/run_context.py", "module interpreter.procedure.kinds.call"),
}


# -- every step key in one module -------------------------------------------------------------------------

def schema_step_keys() -> set[str]:
    """The key that names each kind of step in the schemas (each step branch requires its key first)."""
    keys: set[str] = set()
    for path in sorted(schema_path().parent.glob("*.json")):
        step = json.loads(path.read_text(encoding="utf-8")).get("$defs", {}).get("step") or {}
        keys |= {branch["required"][0] for branch in step.get("oneOf", ()) if branch.get("required")}
    return keys


def _prose(tree: ast.Module) -> set[int]:
    """The nodes that are not code: docstrings, and the names `__all__` lists."""
    out: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            out.add(id(body[0].value))
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            out |= {id(n) for n in ast.walk(node.value)}
    return out


def mentions(source: str, keys: set[str]) -> Iterator[tuple[str, int]]:
    """(key, line) for each place code names a step kind: its key as a string, or its module imported."""
    tree = ast.parse(source)
    prose = _prose(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in keys \
                and id(node) not in prose:
            yield node.value, node.lineno
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("interpreter.procedure.kinds"):
            for alias in node.names:  # a kind's module, or a name from one
                module = node.module if node.module != "interpreter.procedure.kinds" else f"{node.module}.{alias.name}"
                if module.rsplit(".", 1)[1] in KIND_MODULES:
                    yield f"module {module}", node.lineno


def owner(key: str) -> str:
    """The module of procedure/kinds whose record handles a step key."""
    kind = KINDS[key]
    return f"interpreter/{kind.compile.__module__.split('.', 1)[1].replace('.', '/')}.py"


def test_every_step_key_of_the_schema_is_a_kind_of_the_table_and_no_other() -> None:
    assert set(KINDS) == schema_step_keys()
    for kind in distinct(KINDS):  # a record's functions are its own module's
        modules = {f.__module__ for f in (kind.compile, kind.reads, kind.writes, kind.write, kind.describe, kind.sample)}
        assert len(modules) == 1, kind.keys


def test_no_module_but_its_kinds_names_a_step_kind() -> None:
    keys = schema_step_keys()
    registry = KINDS_FOLDER / "__init__.py"
    found: dict[str, list[str]] = {key: [] for key in keys}
    imports = []
    for path in sorted(INTERPRETER.rglob("*.py")):
        if path == registry:
            continue
        shown = path.relative_to(ROOT).as_posix()
        for key, line in mentions(path.read_text(encoding="utf-8"), keys):
            if key.startswith("module "):
                if path.parent != KINDS_FOLDER and (shown, key) not in TYPED_DRAWS:  # (a kind may use another's code)
                    imports.append(f"{shown}:{line}: {key}")
            elif (shown, key) not in HOMONYMS and shown != owner(key):
                found[key].append(f"{shown}:{line}")
    assert {key: where for key, where in found.items() if where} == {}
    assert imports == []


def test_the_check_sees_a_mention_added_anywhere() -> None:
    """The checker itself: a step key in code is found, in a docstring or `__all__` it is not."""
    source = '"""A `roll` step."""\n__all__ = ["roll"]\ndef f(step):\n    """roll"""\n    return step.get("roll")\n'
    assert list(mentions(source, {"roll", "let"})) == [("roll", 5)]
    assert list(mentions("from interpreter.procedure.kinds import let\n", {"let"})) == \
        [("module interpreter.procedure.kinds.let", 1)]
    assert list(mentions("from interpreter.procedure.kinds.roll import write_roll_into\n", set())) == \
        [("module interpreter.procedure.kinds.roll", 1)]
    assert list(mentions("from interpreter.procedure.kinds import KINDS\n", {"let"})) == []


def test_a_kind_that_forgets_a_part_is_not_made() -> None:
    parts = {name: getattr(KINDS["let"], name) for name in ("keys", "specs", "compile", "reads", "writes", "draws",
                                                             "jumps", "goes_on", "write", "describe", "sample")}
    for left_out in parts:
        with pytest.raises(TypeError):
            StepKind(**{k: v for k, v in parts.items() if k != left_out})
    with pytest.raises(FrozenInstanceError):
        KINDS["let"].draws = True  # type: ignore[misc]
    with pytest.raises(ValueError, match="two kinds"):
        table(KINDS["let"], replace(KINDS["roll"], keys=("roll", "let")))


# -- a kind of this test's own: `flip: NAME` binds NAME to 0 or 1, each half the time ----------------------

@record
class Flip(StepSpec):
    name: str
    coin: DiceExpr
    where: Location


def compile_flip(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> Flip:
    coin = c.dice_expr("1d2", path + ("flip",), scope)
    bind(scope, ctx, spec["flip"])
    return Flip(spec["flip"], coin, c.where(path + ("flip",)))


def flip_reads(lv: Liveness, spec: Flip, out: Names) -> tuple[Flip, set[str]]:
    return spec, set(out) - {spec.name}


def flip_writes(spec: Flip, *_: object) -> set[str]:
    return {spec.name}


def write_flip(w: Writer, step: Step[Flip]) -> None:
    w.drawing(step.where)
    side = w.temp()
    with w.located(step.where):
        w.emit(f"{side} = {w.roll(step.spec.name, step.spec.coin, step.where)}")
    w.set(step.spec.name, f"{side} - 1")


def describe_flip(step: Step[Flip]) -> str:
    return f"Flip a coin into `{step.spec.name}`."


def sample_flip(g: Instances, times: float, depth: int) -> list[RawStep]:
    return [{"flip": g.name()}] if g.afford(math.log(2), times) else []


FLIP = StepKind(keys=("flip",), specs=(Flip,), compile=compile_flip, reads=flip_reads, writes=flip_writes, draws=True, jumps=False,
                goes_on=True, write=write_flip, describe=describe_flip, sample=sample_flip)
WITH_FLIP: Kinds = table(*distinct(KINDS), FLIP)


def check_with_flip(doc: Document) -> None:
    """The schema with a step branch for `flip`, standing in for the bundled schema's check."""
    import jsonschema

    schema = json.loads(schema_path().read_text(encoding="utf-8"))
    branches = schema["$defs"]["step"]["oneOf"]
    branch = copy.deepcopy(branches[0])
    branch.update(properties={"flip": {"type": "string"}}, required=["flip"], description="Flip a coin.")
    branches.append(branch)
    problems = [SchemaViolation(e.message, None) for e in jsonschema.validators.validator_for(schema)(schema)
                .iter_errors(doc.data)]
    if problems:
        raise Invalid(problems, doc)


def load_with_flip(path: Path) -> CompiledRuleset:
    ruleset, _ = compile_documents(find(str(path)), {}, check_with_flip, WITH_FLIP)
    return ruleset


COINS = """\
ruleset: coins
title: Coins
procedures:
  main:
    params: {bonus: {type: int, default: 0}}
    outcomes: {heads: the coin came up heads, tails: it did not}
    values: {coin: the coin, total: the coin and a d4}
    steps:
      - flip: coin
      - roll: {d: 1d4}
      - let: {total: "d + coin + bonus"}
      - if: "coin == 1"
        then:
          - decide: [{outcome: heads}]
        else:
          - decide: [{outcome: tails}]
"""


@pytest.fixture
def coins(tmp_path: Path) -> CompiledRuleset:
    path = tmp_path / "coins.yaml"
    path.write_text(COINS, encoding="utf-8")
    return load_with_flip(path)


def test_the_language_refuses_a_kind_it_does_not_have(tmp_path: Path) -> None:
    path = tmp_path / "coins.yaml"
    path.write_text(COINS, encoding="utf-8")
    with pytest.raises(UnknownStepKind, match=r"unknown step kind in \['flip'\]"):
        compile_documents(find(str(path)), {}, check_with_flip)  # the step compiles by no kind of KINDS


def test_a_kind_added_through_the_table_runs_traced(coins: CompiledRuleset) -> None:
    heads = api.run(coins, "main", dice=[2, 3])
    assert (heads.outcome, heads.values["coin"], heads.values["total"]) == ("heads", 1, 4)
    tails = api.run(coins, "main", {"bonus": 2}, dice=[1, 4])
    assert (tails.outcome, tails.values["coin"], tails.values["total"]) == ("tails", 0, 6)
    assert [r.name for r in heads.trace if hasattr(r, "name")][:2] == ["coin", "d"]


def test_a_kind_added_through_the_table_is_sampled_as_it_is_traced(coins: CompiledRuleset) -> None:
    sample = sampler(coins, "main", {"bonus": 1})
    seen = set()
    for seed in range(200):
        traced = run_traced(coins, "main", {"bonus": 1}, RandomSource(random.Random(seed)))
        assert sample(random.Random(seed)) == (traced.outcome, traced.values["coin"], traced.values["total"])
        seen.add(traced.outcome)
    assert seen == {"heads", "tails"}


def test_a_kind_added_through_the_table_has_exact_odds(coins: CompiledRuleset) -> None:
    total: dict[int, Fraction] = {}
    for coin in (0, 1):  # by hand: every side of the coin and face of the d4, each an eighth
        for d in range(1, 5):
            total[coin + d + 1] = total.get(coin + d + 1, Fraction(0)) + Fraction(1, 8)
    odds = api.odds(coins, "main", {"bonus": 1})
    assert odds.exact
    assert dict(odds.outcomes) == {"heads": Fraction(1, 2), "tails": Fraction(1, 2)}
    assert dict(odds.values["total"]) == total
    assert dict(odds.values["coin"]) == {0: Fraction(1, 2), 1: Fraction(1, 2)}


def test_a_kind_added_through_the_table_is_described(coins: CompiledRuleset) -> None:
    lines = step_lines(coins.procedures["main"].steps, coins.kinds)
    assert lines[0] == "1. Flip a coin into `coin`."
    assert "   Otherwise:" in lines


def test_the_differential_test_generates_a_kind_added_through_the_table(tmp_path: Path) -> None:
    assert "flip" in generated(WITH_FLIP, 40)
    assert "flip" not in generated(KINDS, 40)
    checked = 0
    for seed in range(40):
        from test_differential import ruleset_text, step_keys

        if "flip" in step_keys(ruleset_text(seed, WITH_FLIP)):
            check_one(seed, tmp_path, WITH_FLIP, load_with_flip)
            checked += 1
    assert checked >= 5
