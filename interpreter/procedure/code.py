"""The module a writer (procedure.writing) writes: its source, the objects the source names, and its parts."""

from __future__ import annotations

from collections.abc import Mapping

from interpreter.errors import Location, RulesError
from interpreter.formula.code import HELPERS
from interpreter.procedure.state import END


class Code:
    """The source of one module being written and the objects its source names."""

    def __init__(self, helpers: Mapping[str, object], listing: list[str] | None = None) -> None:
        self.helpers = helpers  # what the code of the steps calls, by the names it uses
        self.globals: dict[str, object] = {**HELPERS, **helpers, "RulesError": RulesError, "END": END}
        self._kept: dict[int, str] = {}
        self._temps = 0
        self.lines = 0  # lines written so far (limits.MAX_WRITTEN_LINES)
        self.listing = listing  # when kept: the source of every module written, steps named by YAML line

    def keep(self, obj: object) -> str:
        """An identifier for an object, stored in the module's globals."""
        name = self._kept.get(id(obj))
        if name is None:
            name = self._kept[id(obj)] = f"_g{len(self._kept)}"
            self.globals[name] = obj
        return name

    def temp(self) -> str:
        """A new local variable."""
        self._temps += 1
        return f"t{self._temps}"

    def run(self, source: str, label: str) -> dict[str, object]:
        """Compile and run the module's source; its globals, with what it defined."""
        if self.listing is not None:
            self.listing.append("\n".join([f"# {label}", *self.legend(), source]))
        exec(compile(source, label, "exec"), self.globals)  # noqa: S102  # only what a writer made
        return self.globals


    def legend(self) -> list[str]:
        """Comment lines saying what each object the source names by a made-up identifier is."""
        lines = []
        for name in sorted(self._kept.values(), key=lambda n: int(n[2:])):
            lines.append(f"# {name} = {_shown(self.globals[name])}")
        return lines


class Part:
    """A part of the code being written (a block, or a segment of a function): its lines and what is known of it."""

    def __init__(self, key: tuple[str, ...] | None, where: Location | None) -> None:
        self.lines: list[str] = []
        self.key = key  # exact odds: the names that tell worlds apart where it starts
        self.where = where  # where its first step is written
        self.cost = 0  # the steps it takes
        self.loop_body: int | None = None  # for a loop's head: the part its body starts at
        self.endless: tuple[str, frozenset[str]] | None = None  # a loop with no bound's head: its passes, its writes
        self.retire: tuple[str, ...] = ()  # top level: reported values final before it starts
        self.closed = False  # it ends by jumping elsewhere (nothing falls through)
        self.draws = 0  # the draws (rolls, calls, best_of runs) its code makes


def _shown(obj: object) -> str:
    """An object as a legend shows it, on one short line: a place as file:line:col, a function by its name, an
    object without a repr of its own by its class."""
    if isinstance(obj, Location):
        return f"{obj.file}:{obj.line}:{obj.col} ({obj.path})"
    name = getattr(obj, "__qualname__", None)
    if callable(obj) and isinstance(name, str):
        return f"the function {name}"
    shown = " ".join(repr(obj).split())
    if shown.startswith("<") and " at 0x" in shown:
        return f"a {type(obj).__name__} ({type(obj).__module__})"
    return shown if len(shown) <= 100 else shown[:97] + "..."


__all__ = ["Code", "Part"]
