"""A procedure for exact odds: blocks of code over one world's names, and the jumps between them.

The steps are written by their kinds (procedure.kinds) through a `BlockWriter`: names live in
the world's dict `e`, the outcome on the state `s`, and what rolls (a roll, a pool, a call, a
best_of) is asked of the context `c`, which gives each result in turn (procedure.exact). The code
of consecutive steps runs in one block; a new block starts before a step that branches (so that
worlds that are the same state are merged there first: the block's `key` says by which names)
and where control returns to an earlier point (a loop). A block ends by returning the number of
the block to run next (`END` when the procedure is done).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from interpreter.errors import Location
from interpreter.procedure.state import END
from interpreter.procedure.writing import Code, StepWriter, Writer
from interpreter.record import record
from interpreter.ruleset.liveness import ALL, SHEET, Liveness, writes

if TYPE_CHECKING:
    from interpreter.dice.expr import DiceExpr
    from interpreter.procedure.context import Block
    from interpreter.ruleset.model import CompiledProcedure, CompiledRuleset
    from interpreter.ruleset.specs import Steps


@record
class Program:
    """The blocks of one procedure (or of a best_of's body), and what exact odds need to know of them."""

    blocks: tuple[Block, ...]
    keys: tuple[tuple[str, ...] | None, ...]  # per block: the names that tell worlds apart where it starts
    costs: tuple[int, ...]  # per block: the steps it takes, counted against the step limit
    places: tuple[Location, ...]  # per block: where its first step is written
    loop_bodies: tuple[int | None, ...]  # per block: for a loop's head, the block its body starts at
    endless: tuple[tuple[str, frozenset[str]] | None, ...]  # per head of a loop with no bound: its passes, its writes
    retire: tuple[tuple[str, ...], ...]  # per block: reported values final before it starts (top level)
    reads: frozenset[str] | None  # for a best_of body: the names its runs read and write; None when unknown
    written: tuple[str, ...]  # for a best_of body: the names its runs may write


class BlockWriter(Writer):
    """Writes the blocks of one program: names in the world's dict `e`, rolls asked of the context."""

    env = "e"
    stopped = "s.stopped"

    def merge_point(self, key: tuple[str, ...] | None, where: Location) -> None:
        nxt = self.block(key, where)
        self.jump(nxt)
        self.enter(nxt)

    def jump(self, target: int) -> None:
        self.emit(f"return {'END' if target == END else target}")
        if self.depth == 1:
            self.parts[self.current].closed = True

    def jump_if(self, holds: str, then: int, otherwise: int) -> None:
        self.emit(f"return {then} if {holds} else {otherwise}")
        if self.depth == 1:
            self.parts[self.current].closed = True

    def read_held(self, name: str, where: str) -> tuple[list[str], str]:
        t = self.temp()
        return [f"{t} = e.get({name!r}, _M)",
                f"if type({t}) is not int and type({t}) is not bool: {t} = _read({t}, {name!r}, {where})"], t

    def get(self, name: str) -> str:
        return f"e.get({name!r}, _M)"

    def set(self, name: str, code: str) -> None:
        self.emit(f"e[{name!r}] = {code}")

    def has(self, name: str) -> str:
        return f"{name!r} in e"

    def drop(self, name: str) -> None:
        self.emit(f"e.pop({name!r}, None)")

    def names(self) -> str:
        return "e"

    def given(self, names: tuple[str, ...]) -> str:
        return "e"

    def outcome(self, name: str) -> None:
        self.emit(f"s.outcome = {name!r}")
        rank = repr(self.fixed[name]) if name in self.fixed else f"e.get({name!r}, 0)"
        self.emit(f"e['outcome'] = {rank}")

    def outcome_of(self, code: str) -> None:
        self.emit(f"s.set_outcome({code})")

    def outcome_held(self) -> tuple[str, str]:
        return "s.outcome", "e.get('outcome', 0)"

    def put_outcome(self, name: str, rank: str) -> None:
        self.emit(f"s.outcome = {name}")
        self.emit(f"e['outcome'] = {rank}")

    def trace(self, code: str) -> None:
        """Exact odds keep no trace."""

    def charge(self, steps: int) -> None:
        """Exact odds count the steps of a block for every world it runs over (procedure.exact)."""

    def seen(self, expr: DiceExpr) -> str:
        """The names a dice expression reads: the world's, and the fixed ones written into the code."""
        names = Liveness(self.ruleset.dice, self.ruleset.tables, (), self.ruleset.procedures,
                         self.ruleset.kinds).dice_reads(expr)
        fixed = sorted(n for n in names if n in self.fixed)
        if not fixed:
            return "e"
        return "{**e, " + ", ".join(f"{n!r}: {self.value_of(n)}" for n in fixed) + "}"

    def split(self, where: Location) -> None:
        self.merge_point(None, where)

    def runs(self, runs: Any, count: str, worst: str, steps: Steps) -> bool:
        """The body is a program of its own, whose runs the context works out once and keeps by `runs.better`."""
        runs.program = write(self.ruleset, runs.ranked, steps, self.writers, self.code.helpers, top=False,
                             out=runs.tiebreak_names, bound=self.bound, listing=self.code.listing)
        self.emit(f"c.best(s, {self.keep(runs)}, {count}, {worst})")
        self.emit("e = s.env")
        self.emit("if s.stopped: return END")
        return True

    def program(self, reads: frozenset[str] | None = None, written: tuple[str, ...] = ()) -> Program:
        """The blocks written, compiled into one module."""
        lines: list[str] = []
        for i, part in enumerate(self.parts):
            lines.append(f"def b{i}(s, c):")
            lines.append("    e = s.env")
            lines.append("    F = c.functions")
            lines.extend(part.lines)
            if not part.closed:
                lines.append("    return END")
        label = f"<procedure {self.proc.name}>" if self.top else f"<procedure {self.proc.name}: a best_of's steps>"
        namespace = self.code.run("\n".join(lines) + "\n", label)
        default = self.proc.where
        return Program(tuple(cast("Block", namespace[f"b{i}"]) for i in range(len(self.parts))),
                       tuple(p.key for p in self.parts), tuple(p.cost for p in self.parts),
                       tuple(p.where or default for p in self.parts), tuple(p.loop_body for p in self.parts),
                       tuple(p.endless for p in self.parts),
                       tuple(p.retire for p in self.parts), reads, written)


def write(ruleset: CompiledRuleset, proc: CompiledProcedure, steps: Steps, writers: Mapping[str, StepWriter],
          helpers: Mapping[str, object], top: bool = True, out: frozenset[str] | None = None,
          bound: Mapping[str, object] | None = None, listing: list[str] | None = None) -> Program:
    """The program of a procedure's steps; with `out` (a best_of's body, not `top`) it also knows the names
    its runs read and write (`out`: the names read of a run once it is over, besides what it writes). With a
    `listing`, the source of its blocks (and of its best_of bodies') is kept there."""
    writer = BlockWriter(ruleset, proc, Code(helpers, listing), writers, top, bound)
    writer.enter(writer.block(None, None))
    writer.steps(steps)
    if out is None:
        return writer.program()
    liveness = Liveness(ruleset.dice, ruleset.tables, (), ruleset.procedures, ruleset.kinds)
    _, reads = liveness.steps(steps, out)
    written = writes(steps, ruleset.procedures, ruleset.tables, ruleset.kinds) | {"outcome"}
    known = not ({ALL, SHEET} & (reads | written))
    return writer.program(frozenset(reads | written) if known else None, tuple(sorted(written - {SHEET})))


__all__ = ["END", "BlockWriter", "Program", "write"]
