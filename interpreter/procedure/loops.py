"""Writing best_of and repeat/while (see procedure.writer), and the most work a run can take.

A run of the traced runner counts its steps and dice against `MAX_STEPS` and `MAX_RUN_DICE`.
A written run counts them too (`_work`) only when `bound` says it could reach them: a
procedure without loops over rolls of many dice never can, and saves the counting.
"""

from __future__ import annotations

from typing import Any

from interpreter import limits
from interpreter.dice.expr import DiceExpr
from interpreter.dice.tree import Dice, Name, Num
from interpreter.errors import Location
from interpreter.ruleset.liveness import SHEET, writes
from interpreter.ruleset.model import Ruleset
from interpreter.ruleset.specs import BestOf, Call, Loop, Roll, Steps, TableLookup


def write_best_of(fn: Any, spec: BestOf, where: Location, depth: int) -> None:
    """`best_of`: the body once, and when the count is more, again from the same state, keeping the best."""
    body = spec.steps
    ranked = fn.m.ruleset.procedures[spec.procedure]
    written = sorted((writes(body, fn.m.ruleset.procedures, fn.m.ruleset.tables) | {"outcome"}) - {SHEET})
    keep = [fn.var(n) for n in written] + ["_o"]
    fn.temps += 1
    t = fn.temps
    n, saved, best, score = f"_n{t}", f"_s{t}", f"_k{t}", f"_m{t}"
    info = fn.m.keep(where)
    fn.emit(depth, f"{n} = {fn.f(spec.count)}")
    fn.emit(depth, f"if not 1 <= {n} <= {limits.MAX_LOOP_ITERATIONS}: _best_of_count({n}, {info})")
    worst = fn.f(spec.worst_when) if spec.worst_when is not None else "False"
    fn.emit(depth, f"_w{t} = bool({worst})")
    fn.emit(depth, f"{saved} = ({', '.join(keep)},)")
    fn.loop += 1
    fn.steps(body, depth)
    ranks = fn.m.keep({o: -i for i, o in enumerate(ranked.outcomes)})
    worst_rank = -len(ranked.outcomes)
    tiebreak = fn.f(spec.tiebreak) if spec.tiebreak is not None else "0"
    fn.emit(depth, f"if {n} > 1:")
    fn.emit(depth + 1, f"{score} = ({ranks}.get(_o, {worst_rank}), {tiebreak})")
    fn.emit(depth + 1, f"{best} = ({', '.join(keep)},)")
    fn.emit(depth + 1, f"for _i{t} in range({n} - 1):")
    fn.emit(depth + 2, f"{', '.join(keep)}, = {saved}")
    fn.work(depth + 2, 0, where)  # each run after the first is one more comparison
    fn.steps(body, depth + 2)
    fn.emit(depth + 2, f"_x = ({ranks}.get(_o, {worst_rank}), {tiebreak})")
    fn.emit(depth + 2, f"if (_x < {score}) if _w{t} else (_x > {score}):")
    fn.emit(depth + 3, f"{score} = _x")
    fn.emit(depth + 3, f"{best} = ({', '.join(keep)},)")
    fn.emit(depth + 1, f"{', '.join(keep)}, = {best}")
    fn.loop -= 1


def write_loop(fn: Any, spec: Loop, where: Location, depth: int) -> None:
    """`repeat` / `while`: the body while the count, the maximum and the condition allow, as run_repeat does."""
    fn.temps += 1
    t = fn.temps
    done = f"_d{t}"
    stops = []
    if spec.times is not None:
        fn.emit(depth, f"_times{t} = {fn.f(spec.times)}")
        stops.append(f"{done} >= _times{t}")
    if spec.max is not None:
        fn.emit(depth, f"_most{t} = {fn.f(spec.max)}")
        stops.append(f"{done} >= _most{t}")
    fn.emit(depth, f"{done} = 0")
    fn.emit(depth, f"for _i{t} in range({limits.MAX_LOOP_ITERATIONS + 1}):")
    if spec.condition is not None:
        stops.append(f"not {fn.f(spec.condition)}")
    if stops:
        fn.emit(depth + 1, f"if {' or '.join(stops)}: break")
    fn.emit(depth + 1, f"{done} += 1")
    if spec.counter:
        fn.emit(depth + 1, f"{fn.var(spec.counter)} = {done}")
    fn.steps(spec.steps, depth + 1)
    fn.emit(depth, "else:")
    fn.emit(depth + 1, f"_loop_limit({fn.m.keep(where)})")


def bound(ruleset: Ruleset, steps: Steps) -> tuple[int, int]:
    """The most steps and dice a run of these steps can take (best_of at its largest count)."""
    most_steps = most_dice = 0
    for step in steps:
        spec = step.spec
        most_steps += 1
        inner = [bound(ruleset, nested) for nested in spec.nested()]
        if isinstance(spec, (BestOf, Loop)):
            times = limits.MAX_LOOP_ITERATIONS + 1
            inner = [(s * times + times, d * times) for s, d in inner]
        elif isinstance(spec, Call):
            inner.append(bound(ruleset, ruleset.procedures[spec.procedure].steps))
            most_steps += 1
        elif isinstance(spec, Roll):
            most_dice += sum(dice_bound(ruleset, r.expr) for r in spec.rolls)
        elif isinstance(spec, TableLookup):
            table = ruleset.tables[spec.table]
            rows = [*table.rows, *([table.default] if table.default is not None else [])]
            most_dice += 0 if spec.key is not None else dice_bound(ruleset, table.die)
            most_dice += max((sum(dice_bound(ruleset, e) for _, e in row.values) for row in rows), default=0)
        most_steps += sum(s for s, _ in inner)
        most_dice += sum(d for _, d in inner)
    return most_steps, most_dice


def dice_bound(ruleset: Ruleset, expr: DiceExpr, depth: int = 0) -> int:
    """The most dice one roll can throw: its count when fixed, the roll limit otherwise."""
    tree = expr.tree
    if isinstance(tree, Name) and tree.name in ruleset.dice and depth < limits.MAX_DICE_DEPTH:
        return dice_bound(ruleset, ruleset.dice[tree.name], depth + 1)
    if isinstance(tree, Dice) and isinstance(tree.count, Num) and tree.mods.explode is None \
            and tree.mods.reroll is None:
        return tree.count.value
    return limits.MAX_DICE_ROLLED
