"""`best_of`: run the body N times from the same state and keep the best (or, when told, the worst) run.

Better means a better outcome tier (outcomes are listed best first), then a larger tiebreak;
of two runs that compare equal the earlier is kept (`Runs.better`). How the runs are made is
the writer's to say (`Writer.runs`): exact odds write the body as a program of its own, whose
results the context works out once and combines (procedure.exact); a run with dice from a
source makes the N runs of the body one after another, in place, by the loop written here
(`write_run_loop`). Both keep runs by `Runs.better`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from interpreter import limits
from interpreter.errors import LimitExceeded, Location, RulesError
from interpreter.formula.compile import Formula
from interpreter.procedure.records import NoteRecord
from interpreter.procedure.state import END, State
from interpreter.procedure.writing import Writer
from interpreter.record import replace
from interpreter.ruleset import liveness
from interpreter.ruleset.context import CompileContext, P, ProcContext, Scope, Spec, compile_steps, formula_at
from interpreter.ruleset.kind import Instances, RawStep, StepKind
from interpreter.ruleset.liveness import SHEET, Liveness, Names, names
from interpreter.ruleset.model import CompiledProcedure
from interpreter.ruleset.specs import BestOf, Step, Steps


def compile_best_of(c: CompileContext, spec: Spec, path: P, scope: Scope, ctx: ProcContext) -> BestOf:
    count = formula_at(c, spec["best_of"], path + ("best_of",), scope)
    worst = formula_at(c, spec["worst_when"], path + ("worst_when",), scope) if "worst_when" in spec else None
    scope.weaken()
    steps = compile_steps(c, spec["steps"], path + ("steps",), scope, ctx)
    tiebreak = formula_at(c, spec["tiebreak"], path + ("tiebreak",), scope) if "tiebreak" in spec else None
    return BestOf(count, worst, tiebreak, steps, ctx.name)


def reads(lv: Liveness, spec: BestOf, out: Names) -> tuple[BestOf, Names]:
    body, body_in = lv.steps(spec.steps, out | names(spec.tiebreak))
    return replace(spec, steps=body), body_in | names(spec.count) | names(spec.worst_when)


def writes(spec: BestOf, *_: object) -> set[str]:
    return set()  # (only what its steps write: the run kept leaves them)


class Runs:
    """A best_of step as it runs: how two of its runs compare, and (exact odds) the body's program."""

    __slots__ = ("keys", "program", "ranked", "ranks", "tiebreak", "tiebreak_names", "where", "worst_rank")

    def __init__(self, ranked: CompiledProcedure, tiebreak: Formula | None, where: Location, keys: tuple[str, ...]) -> None:
        self.ranked = ranked  # whose outcome order ranks the runs
        self.ranks = {o: -i for i, o in enumerate(ranked.outcomes)}  # larger is better
        self.worst_rank = -len(ranked.outcomes)  # a run that set no outcome
        self.tiebreak = tiebreak
        self.tiebreak_names = frozenset(tiebreak.names) if tiebreak is not None else frozenset()
        self.where = where
        self.keys = keys  # exact odds: the names that tell kept runs apart (what is live after, and the tiebreak)
        self.program: Any = None  # exact odds: the body's blocks (procedure.program)

    def score_of(self, outcome: str | None, tiebreak: Any) -> tuple[int, Any]:
        """How good a run is: its outcome's tier, then its tiebreak."""
        return (self.worst_rank if outcome is None else self.ranks.get(outcome, self.worst_rank)), tiebreak

    def better(self, score: tuple[int, Any], kept: tuple[int, Any], worst: bool) -> bool:
        """Whether a run of this score replaces the one kept: only when strictly better (or worse, for the worst)."""
        return score < kept if worst else score > kept

    def score(self, run: State, functions: Mapping[str, Any]) -> tuple[int, Any]:
        if self.tiebreak is None:
            return self.score_of(run.outcome, 0)
        try:
            return self.score_of(run.outcome, self.tiebreak.evaluate(run.env, functions))
        except RulesError as err:
            raise err.located(self.where) from None

    def pick(self, kept: State, run: State, worst: bool, functions: Mapping[str, Any]) -> State:
        """Of the run kept so far and the next, the one to keep."""
        return run if self.better(self.score(run, functions), self.score(kept, functions), worst) else kept

    def note(self, count: int, worst: bool) -> NoteRecord:
        """The trace's remark on the runs kept."""
        return NoteRecord(f"kept the {'worst' if worst else 'best'} of {count}")


def count_refused(count: Any, where: Location) -> None:
    raise LimitExceeded(f"best_of count is {count}; it must be 1 to {limits.MAX_LOOP_ITERATIONS}", where)


def write_best_of(w: Writer, step: Step[BestOf]) -> None:
    spec = step.spec
    count, worst = w.temp(), w.temp()
    w.drawing(step.where)
    with w.located(step.where):
        times = w.value(spec.count)
        w.emit(f"{count} = {times}")
        if w.known(times) != (True, 1):
            w.emit(f"{worst} = bool({w.value(spec.worst_when) if spec.worst_when is not None else 'False'})")
    if w.known(times) == (True, 1):  # one run from the state here is the steps run here
        w.steps(spec.steps)
        return
    w.emit(f"if not 1 <= {count} <= {limits.MAX_LOOP_ITERATIONS}: _best_of_count({count}, {w.keep(step.where)})")
    tiebreak = tuple(sorted(spec.tiebreak.names)) if spec.tiebreak is not None else ()
    runs = Runs(w.ruleset.procedures[spec.procedure], spec.tiebreak, step.where, step.live + tiebreak)
    if not w.runs(runs, count, worst, spec.steps):
        write_run_loop(w, runs, count, worst, spec.steps)


def write_run_loop(w: Writer, runs: Runs, count: str, worst: str, steps: Steps) -> None:
    """The runs one after another: the state the steps may change is saved before the first run (`start`), each
    run starts from it, and after each the run kept so far is saved with its score and whether it stopped
    (`kept`); after the last, the kept run's state is put back. A stop in a run ends that run only; the step
    stops the procedure when the run kept stopped."""
    written = liveness.writes(steps, w.ruleset.procedures, w.ruleset.tables, w.ruleset.kinds)
    if SHEET in written:
        written = written | w.sheet_held()
    names = sorted(n for n in written if n != SHEET)
    held = ", ".join([w.get(n) for n in names] + list(w.outcome_held()))
    start, kept, score, done = w.temp(), w.temp(), w.temp(), w.temp()
    w.emit(f"{start} = ({held},) if {count} > 1 else None")
    w.emit(f"{kept} = None")
    w.emit(f"{done} = 0")
    body, end, after = w.block(None, None), w.block(None, None), w.block(None, None)
    out = w.run_ends[-1] if w.run_ends else END  # where a stop of the kept run goes: the enclosing run's end
    w.jump(body)
    w.enter(body)
    w.run_ends.append(end)
    w.steps(steps)
    w.run_ends.pop()
    w.jump(end)
    w.enter(end)
    with w.under(f"if {count} == 1:"):  # one run: it is the one kept
        with w.under(f"if {w.stopped}:"):
            w.jump(out)
        w.jump(after)
    with w.located(runs.where):
        tiebreak = w.value(runs.tiebreak) if runs.tiebreak is not None else "0"
        w.emit(f"{score} = {w.keep(runs)}.score_of({w.outcome_held()[0]}, {tiebreak})")
    with w.under(f"if {kept} is None or {w.keep(runs)}.better({score}, {kept}[0], {worst}):"):
        w.emit(f"{kept} = ({score}, {w.stopped}, {held},)")
    w.emit(f"{done} += 1")
    with w.under(f"if {done} < {count}:"):
        w.charge(1)  # each run after the first is one more comparison
        _restore(w, names, start, 0)
        w.emit(f"{w.stopped} = False")
        w.jump(body)
    _restore(w, names, kept, 2)
    w.emit(f"{w.stopped} = {kept}[1]")
    with w.under(f"if {count} > 1:"):
        w.trace(f"{w.keep(runs)}.note({count}, {worst})")
    with w.under(f"if {w.stopped}:"):
        w.jump(out)
    w.jump(after)
    w.enter(after)


def _restore(w: Writer, names: list[str], saved: str, at: int) -> None:
    """Put back the names and the outcome saved in a tuple, from its item `at` on."""
    for i, name in enumerate(names):
        w.put(name, f"{saved}[{at + i}]")
    n = len(names)
    w.put_outcome(f"{saved}[{at + n}]", f"{saved}[{at + n + 1}]")


def describe(step: Step[BestOf]) -> str:
    spec = step.spec
    text = f"Do this `{spec.count.text}` times and keep the best run (best by the outcome order of `{spec.procedure}`)"
    if spec.worst_when is not None:
        text += f", the worst instead when `{spec.worst_when.text}`"
    if spec.tiebreak is not None:
        text += f", ties going to the higher `{spec.tiebreak.text}`"
    return text + ":"


def sample(g: Instances, times: float, depth: int) -> list[RawStep]:
    """Two runs of a body that ends by setting an outcome, the worse kept when a condition holds."""
    head: RawStep = {"best_of": 2, "worst_when": g.condition(), "tiebreak": g.name()}
    body = g.steps(times * 2, depth)
    return [] if body is None else [{**head, "steps": [*body, g.decides()]}]


KIND = StepKind(
    keys=("best_of",), specs=(BestOf,), compile=compile_best_of, reads=reads, writes=writes, draws=True,
    jumps=True, goes_on=False, write=write_best_of, describe=describe, sample=sample,
    helpers={"_best_of_count": count_refused}
)
