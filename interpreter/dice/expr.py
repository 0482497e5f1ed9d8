"""Dice expressions: parsing, rolling with a full trace, and exact odds.

The notation is described in docs/dice.md.  Everything other modules need is importable
from here: parse, DiceExpr, DiceSource, RandomSource, GivenSource, RollTrace, TermTrace, Die,
Distribution, render_roll, roll_json, distribution_json.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from interpreter import budget, limits
from interpreter.absent import Absent
from interpreter.dice.report import distribution_json, render_roll, roll_json
from interpreter.dice.roller import Context, Draw, Env, Runner, Traces, compile_node, static_dice
from interpreter.dice.size import refuse_too_large
from interpreter.dice.sources import DiceSource, GivenSource, RandomSource
from interpreter.dice.syntax import parse_tree
from interpreter.dice.term import TermSpec, forget_resolved, free_names, parameter_nodes, spec_for, walk
from interpreter.dice.trace import Die, RollTrace, TermTrace
from interpreter.dice.tree import Dice, Name, Node, Num
from interpreter.dice.warnings import DiceWarning, warnings_of
from interpreter.errors import BadParameter, EvaluationError, LimitExceeded, Location, UnknownName

if TYPE_CHECKING:
    from interpreter.dice.distribution import Distribution

# Exact odds (dice.odds, dice.distribution and fractions) are imported by what computes them:
# a command that only rolls never loads them.

__all__ = [
    "DiceExpr",
    "DiceSource",
    "Die",
    "Distribution",
    "GivenSource",
    "RandomSource",
    "RollTrace",
    "TermTrace",
    "clear_caches",
    "distribution_json",
    "parse",
    "parse_parameter",
    "render_roll",
    "roll_json",
]

_DIST_CACHE: dict[tuple[Any, ...], Distribution] = {}
_DIST_CACHE_SIZE = 4096


class DiceExpr:
    """A parsed dice expression; immutable, hashable, and equal to another with the same text."""

    __slots__ = ("_run", "_static", "names", "text", "tree", "warnings")

    text: str
    names: frozenset[str]
    tree: Node
    warnings: tuple[DiceWarning, ...]
    _run: Runner | int
    _static: int

    def __init__(self, text: str):
        tree = parse_tree(text)
        static = static_dice(tree)
        if static > limits.MAX_DICE_ROLLED:
            raise LimitExceeded(
                f"'{text}' would roll {static} dice; at most {limits.MAX_DICE_ROLLED} dice may be rolled",
                Location("<expr>", 1, 1))
        set_ = object.__setattr__
        set_(self, "text", text)
        set_(self, "names", free_names(tree))
        set_(self, "tree", tree)
        set_(self, "_static", static)
        set_(self, "_run", compile_node(tree))
        set_(self, "warnings", warnings_of(text, tree))

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError("a dice expression cannot be changed")

    def __hash__(self) -> int:
        return hash(self.text)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DiceExpr):
            return NotImplemented
        return self.text == other.text

    def __repr__(self) -> str:
        return f"DiceExpr({self.text!r})"

    def roll(self, env: Env, source: DiceSource) -> RollTrace:
        """Roll the expression, drawing every die from `source`."""
        traces: Traces = []
        value, _ = self.rolled(env, source, traces)
        return RollTrace(value, traces, env)

    def rolled(self, env: Env, source: DiceSource,
               traces: Traces | None = None) -> tuple[int, int]:
        """The value of one roll and how many dice it threw; each dice term's trace goes into `traces` when given."""
        run = self._run
        if isinstance(run, int):
            return run, 0
        ctx: Context = [self._static, 0, source, source.uniform]
        value = run(env, source.draw, ctx, [] if traces is None else traces)
        if not limits.INT_MIN <= value <= limits.INT_MAX:
            raise EvaluationError(f"the result of '{self.text}' is too large")
        return value, ctx[0]

    @property
    def runner(self) -> Runner | int:
        """The compiled roll function (or the constant value) the expression rolls with."""
        return self._run

    @property
    def static(self) -> int:
        """How many dice the expression rolls before explosions, rerolls and dice given by name."""
        return self._static

    def run_in(self, env: Env, draw: Draw, ctx: Context, traces: Traces) -> int:
        """Roll as part of a larger roll (for a dice-typed parameter), sharing its dice count."""
        ctx[0] += self._static
        if ctx[0] > limits.MAX_DICE_ROLLED:
            raise LimitExceeded(f"the roll needs more than {limits.MAX_DICE_ROLLED} dice")
        run = self._run
        return run if isinstance(run, int) else run(env, draw, ctx, traces)

    def pool_spec(self, env: Env) -> TermSpec:
        """The one dice term of a pool with its parameters resolved; each must have one value."""
        tree = self.tree
        if not isinstance(tree, Dice):
            raise BadParameter(f"'{self.text}' is not one dice term, so it has no pool to read")
        return self.spec_of(tree, env)

    def spec_of(self, node: Dice, env: Env) -> TermSpec:
        """A dice term of this expression with its parameters resolved; each must have one value."""
        return spec_for(node, [None if part is None else self.fixed(part, env) for part in parameter_nodes(node)])

    def fixed(self, node: Node, env: Env) -> int:
        """The one value a part of this expression (a term's count, a keep) has; an error when it varies."""
        if isinstance(node, Num):
            return node.value
        given = env.get(node.name) if isinstance(node, Name) else None
        if type(given) is int:  # a count given by a parameter: no odds needed
            return given
        dist = _odds().node_distribution(node, lambda name: _resolve(name, env))
        if len(dist.probs) != 1:
            raise BadParameter(f"exact odds of the pool '{self.text}' need its dice count and modifiers fixed")
        value: int = dist.probs[0][0]
        return value

    def saturated(self, env: Env, hint: int = 0) -> tuple[Distribution, int] | None:
        """For an expression whose odds are cut off only because of endless explosions that never
        take away: the exact distribution of min(value, cap) and the cap; None when the expression is
        exact already or cannot be saturated.

        The cap is where what remains of the distribution falls below the truncation mass, so values
        below it are told apart; or `hint`, when larger (a comparison asked for it).  Compounding dice
        kept or dropped are the exception: their exact odds grow costly with the cap, so they are
        saturated just above their highest face, or at the hint.
        """
        tree = self.tree
        if isinstance(tree, Name):
            named = _lookup(tree.name, env, tree.col)
            return named.saturated(env, hint) if isinstance(named, DiceExpr) else None
        if _kept_compounding(tree):
            cap = max(hint, _highest_face(tree) + 1)
        else:
            full = self.distribution(env)
            if not full.truncated or not full.values:
                return None
            cap = max(hint, full.tail_start(limits.TRUNCATION_MASS))
        with budget.odds_budget():
            capped = _odds().node_distribution(tree, lambda node: _resolve(node, env), cap)
        if not capped.exact:
            return None
        return capped.map(lambda v: min(v, cap)), cap

    def env_key(self, env: Env) -> tuple[object, ...]:
        """The values of `env` the expression's dice depend on (for caching what is worked out of them)."""
        return _env_key(self, env, 0)

    def distribution(self, env: Env) -> Distribution:
        """The exact distribution of the expression's value (truncated only for endless explosions)."""
        key = (self, _env_key(self, env, 0))
        found = _DIST_CACHE.get(key)
        if found is not None:
            return found
        refuse_too_large(self.tree, env, self.text)  # foreseen from the text, before any work
        with budget.odds_budget():
            dist: Distribution = _odds().node_distribution(self.tree, lambda node: _resolve(node, env))
        values = dist.values
        if values and not (values[0] >= limits.INT_MIN and values[-1] <= limits.INT_MAX):
            raise EvaluationError(f"the result of '{self.text}' can be too large")
        if len(_DIST_CACHE) >= _DIST_CACHE_SIZE:
            _DIST_CACHE.clear()
        _DIST_CACHE[key] = dist
        return dist


def _kept_compounding(tree: Node) -> bool:
    """Whether a tree holds a compounding term that keeps or drops dice and adds up their values."""
    return any(isinstance(node, Dice) and node.mods.compound and node.mods.keep is not None
               and node.mods.success is None for node in walk(tree))


def _highest_face(tree: Node) -> int:
    """The highest face any dice term of the tree with a fixed number of sides can show (at least 1)."""
    faces = [1]
    for node in walk(tree):
        if isinstance(node, Dice):
            if node.faces is not None:
                faces.extend(node.faces)
            elif isinstance(node.sides, Num):
                faces.append(node.sides.value)
    return max(faces)


def _lookup(name: str, env: Env, col: int = 0) -> Any:
    """An environment value, checked to be an int, a bool or a dice expression."""
    where = Location("<expr>", 1, col) if col else None
    try:
        value = env[name]
    except KeyError:
        raise UnknownName(f"unknown name '{name}' in dice expression", where) from None
    if isinstance(value, (int, DiceExpr)):
        return value
    if isinstance(value, Absent):
        raise value.error(name)  # located at the step that rolls
    raise BadParameter(f"'{name}' must be a whole number or a dice expression, not {type(value).__name__}", where)


def _env_key(expr: DiceExpr, env: Env, depth: int) -> tuple[Any, ...]:
    """The values an expression's result depends on, for caching its distribution."""
    if depth > limits.MAX_DICE_DEPTH:
        raise LimitExceeded(f"dice expressions refer to each other more than {limits.MAX_DICE_DEPTH} deep")
    items: list[tuple[Any, ...]] = []
    for name in sorted(expr.names):
        value = _lookup(name, env)
        if isinstance(value, DiceExpr):
            items.append((name, value, _env_key(value, env, depth + 1)))
        else:
            items.append((name, int(value)))
    return tuple(items)


def _resolve(node: Name, env: Env) -> Distribution:
    """The distribution a name stands for."""
    value = _lookup(node.name, env, node.col)
    if isinstance(value, DiceExpr):
        return value.distribution(env)
    point: Distribution = _odds().Distribution.point(int(value))
    return point


@lru_cache(maxsize=4096)
def parse(text: str) -> DiceExpr:
    """Parse dice notation; the same text gives the same object."""
    if not isinstance(text, str):
        raise BadParameter(f"a dice expression must be text, not {type(text).__name__}")
    return DiceExpr(text)


def parse_parameter(text: str) -> DiceExpr:
    """A dice parameter's value: an expression, or dice separated by commas (`d8,d6,d6,d4`), one dice group."""
    depth = 0
    for ch in text:
        depth += ch in "({"
        depth -= ch in ")}"
        if ch == "," and depth == 0:
            return parse("{" + text + "}")
    return parse(text)


def clear_caches() -> None:
    """Forget every cached distribution and term (for timing cold computations)."""
    _DIST_CACHE.clear()
    _odds().term_distribution.cache_clear()
    forget_resolved()


def _odds() -> Any:
    """The exact-odds module, imported when first needed."""
    from interpreter.dice import odds

    return odds


def __getattr__(name: str) -> Any:
    if name == "Distribution":  # (re-exported, and imported only when asked for)
        from interpreter.dice.distribution import Distribution

        return Distribution
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
