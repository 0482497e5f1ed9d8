"""A dice term with every parameter resolved to a number: the unit both rolling and odds work on."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache

from interpreter import limits
from interpreter.dice.keep import Keep
from interpreter.dice.tree import Chain, Compare, Cond, Dice, DiceGroup, Mods, Name, Neg, Node
from interpreter.errors import EvaluationError, LimitExceeded, Location
from interpreter.record import fields, record

Table = tuple[bool, ...]  # indexed by face value; index 0 is unused

_TESTS: dict[str, Callable[[int, int], bool]] = {
    ">=": operator.ge, ">": operator.gt, "==": operator.eq, "<=": operator.le, "<": operator.lt,
}


@record
class TermSpec:
    """One dice term ready to roll: count, sides, and a face table per modifier."""

    text: str
    count: int
    sides: int
    reroll: Table | None
    reroll_again: bool
    explode: Table | None
    explode_once: bool
    keep: Keep | None
    success: Table | None
    deduct: Table | None
    gain: tuple[int, ...]  # what each face adds to the result when kept
    faces: tuple[int, ...] | None = None  # Fate/custom dice: face index i shows faces[i - 1] (ascending)
    raw: tuple[int, ...] | None = None  # the faces as written, repeats included, to draw from
    compound: bool = False  # `!!`: a die's explosions add to that die (each die's value is the sum of its throws)
    tests: tuple[tuple[str, int] | None, tuple[str, int] | None] = (None, None)  # the cs and df conditions
    shown: tuple[int, ...] = ()  # what each face index shows after mi/ma (index 0 unused)
    marks: tuple[tuple[int, ...], ...] | None = None  # symbol dice: each face index's count of every symbol
    symbols: tuple[str, ...] = ()
    codes: tuple[int, ...] | None = None  # symbol dice: the face index of each written face, in written order
    natural: tuple[int, ...] = ()  # what each face index shows before mi/ma, where mi or ma changes a face
    label: str | None = None  # the `[label]` written after the term

    @property
    def counting(self) -> bool:
        """Whether the result is a number of successes rather than a sum."""
        return self.success is not None

    @property
    def plain(self) -> bool:
        """Whether the term has no modifiers at all (mi and ma included) and is of numbered dice."""
        return (self.reroll is None and self.explode is None and self.keep is None
                and self.success is None and not self.natural and self.codes is None)

    def draw_weights(self) -> list[int]:
        """Relative chance of each face (index = face) for one die after its reroll rule."""
        s = self.sides
        table = self.reroll
        if self.codes is not None:
            many = [0] + [self.codes.count(i) for i in range(1, s + 1)]
        else:
            many = [0] + ([1] * s if self.raw is None else [self.raw.count(f) for f in self.faces or ()])
        if table is None:
            return many
        if self.reroll_again:
            return [0 if table[v] else many[v] for v in range(s + 1)]
        matching = sum(m for m, hit in zip(many, table, strict=True) if hit)
        throws = sum(many)
        return [0] + [(0 if table[v] else throws) * many[v] + matching * many[v] for v in range(1, s + 1)]

    def value(self, index: int) -> int:
        """What face index `index` shows (after mi and ma)."""
        return self.shown[index]

    def gain_of(self, value: int) -> int:
        """What a die of this value adds to the result: itself, or its success less its failure when counting."""
        success, deduct = self.tests
        if success is None:
            return value
        return int(meets(success, value)) - int(deduct is not None and meets(deduct, value))

    def face_text(self, index: int) -> str:
        """A symbol face as written (`SA`, `blank`); other faces as their number."""
        if self.marks is None:
            return str(self.shown[index])
        text = "".join(sym * n for sym, n in zip(self.symbols, self.marks[index], strict=True))
        return text or "blank"


def meets(cond: tuple[str, int], value: int) -> bool:
    """Whether a value meets a condition such as ('>=', 8)."""
    return bool(_TESTS[cond[0]](value, cond[1]))


def _table(sides: int, cond: tuple[str, int | None], shown: tuple[int, ...]) -> Table:
    """The faces of a die meeting a condition (tested on what each face shows; index 0 unused)."""
    op, arg = cond
    if op == "max":
        return tuple(v == sides for v in range(sides + 1))
    test = _TESTS[op]
    assert arg is not None
    return (False,) + tuple(bool(test(v, arg)) for v in shown[1:])


def _describe(op: str, arg: int | None) -> str:
    """A condition in words for messages."""
    return "the highest face" if op == "max" else f"{op}{arg}"


@record
class Modifiers:
    """A term's modifiers with every argument a number: what `make_spec` checks and builds tables from.

    A new modifier is a field here (resolved from its `tree.Mods` field in `resolve`) and its behaviour
    where the term's dice are thrown (dice.roller) and weighed (dice.odds, dice.pool).
    """

    reroll: tuple[str, int] | None = None
    reroll_again: bool = False
    explode: tuple[str, int | None] | None = None
    explode_once: bool = False
    keep: Keep | None = None
    success: tuple[str, int] | None = None
    deduct: tuple[str, int] | None = None
    compound: bool = False
    least: int | None = None
    most: int | None = None


@record
class DieForm:
    """What the text fixes about a term's dice: its text and column, written faces, symbols and label."""

    text: str
    col: int = 1
    raw: tuple[int, ...] | None = None  # the faces as written (Fate, custom), repeats included
    marks: tuple[tuple[int, ...], ...] | None = None  # symbol dice: each written face's count of every symbol
    symbols: tuple[str, ...] = ()
    label: str | None = None


NONE = Modifiers()


@lru_cache(maxsize=4096)
def make_spec(form: DieForm, count: int, sides: int, mods: Modifiers = NONE) -> TermSpec:
    """Check resolved parameters against the rules and limits and build the term.

    A die with written faces (Fate, custom) is rolled as its distinct faces in ascending order,
    each weighted by how often it is written, so order statistics and tables work on indices.
    A symbol die likewise, its faces told apart by their symbols too and ordered by how many
    symbols they show; `codes` gives the face index of each written face, which is what it draws.
    """
    text, raw, marks, symbols = form.text, form.raw, form.marks, form.symbols
    reroll, explode, keep, success, deduct = mods.reroll, mods.explode, mods.keep, mods.success, mods.deduct
    least, most = mods.least, mods.most
    where = Location(file="<expr>", line=1, col=form.col)
    faces = None if raw is None else tuple(sorted(set(raw)))
    codes = None
    if marks is not None:
        assert raw is not None
        distinct = sorted(set(zip(raw, marks, strict=True)))
        faces = tuple(n for n, _ in distinct)
        codes = tuple(distinct.index(face) + 1 for face in zip(raw, marks, strict=True))
        marks = ((0,) * len(symbols), *(m for _, m in distinct))
        raw = None
    if faces is not None:
        sides = len(faces)
    if count < 0:
        raise EvaluationError(f"'{text}' would roll a negative number of dice ({count})", where)
    if count > limits.MAX_DICE_ROLLED:
        raise LimitExceeded(
            f"'{text}' would roll {count} dice; at most {limits.MAX_DICE_ROLLED} dice may be rolled", where)
    if sides < 1:
        raise EvaluationError(f"'{text}' asks for dice with {sides} sides; a die needs at least 1", where)
    if sides > limits.MAX_FACES:
        raise LimitExceeded(
            f"'{text}' asks for dice with {sides} faces; at most {limits.MAX_FACES} are allowed", where)
    if least is not None and most is not None and least > most:
        raise EvaluationError(f"'{text}' makes every die at least {least} and at most {most}", where)
    natural = (0, *(faces if faces is not None else range(1, sides + 1)))
    low = natural[1:] and min(natural[1:]) if least is None else least
    high = natural[1:] and max(natural[1:]) if most is None else most
    shown = tuple(v if i == 0 else min(max(v, low), high) for i, v in enumerate(natural))
    rtable = _table(sides, reroll, shown) if reroll is not None else None
    if rtable is not None and mods.reroll_again and all(rtable[1:]):
        assert reroll is not None
        raise LimitExceeded(
            f"'{text}' rerolls forever: every face of a d{sides} matches {_describe(*reroll)}", where)
    etable = _table(sides, explode, shown) if explode is not None else None
    if etable is not None and not any(etable):
        etable = None
    if etable is not None and not mods.explode_once:
        assert explode is not None
        reachable = [v for v in range(1, sides + 1)
                     if not (rtable is not None and mods.reroll_again and rtable[v])]
        if all(etable[v] for v in reachable):
            raise LimitExceeded(
                f"'{text}' explodes forever: every face it can show meets {_describe(*explode)}", where)
    if keep is not None and keep[1] < 0:
        raise EvaluationError(f"'{text}' keeps or drops a negative number of dice ({keep[1]})", where)
    stable = _table(sides, success, shown) if success is not None else None
    dtable = _table(sides, deduct, shown) if deduct is not None else None
    if stable is None:
        gain = shown
    else:
        gain = tuple(int(stable[v]) - int(dtable[v] if dtable else 0) for v in range(sides + 1))
    return TermSpec(text, count, sides, rtable, mods.reroll_again, etable, mods.explode_once,
                    keep, stable, dtable, gain, faces, raw, mods.compound and etable is not None,
                    (success, deduct), shown, marks, symbols, codes, natural if natural != shown else (), form.label)


_RESOLVED: dict[tuple[int, tuple[int | None, ...]], tuple[Dice, TermSpec]] = {}
MOD_FIELDS = tuple(f.name for f in fields(Mods))  # Modifiers has the same fields, resolved


def _argument(written: Cond | tuple[str, Node] | Node | bool | None) -> Node | None:
    """The sub-tree giving a written modifier its number (None when it takes none)."""
    if isinstance(written, Cond):
        return written.arg
    if isinstance(written, tuple):
        return written[1]
    return None if written is None or isinstance(written, bool) else written


# What a dice node fixes, found once per node: (the node, its parameter sub-trees, its DieForm, the
# modifiers that take no number, and (parameter index, name, operator or None) for those that do).
Shape = tuple[Dice, tuple[Node | None, ...], DieForm, dict[str, object], tuple[tuple[int, str, str | None], ...]]
_SHAPES: dict[int, Shape] = {}


def _shape(node: Dice) -> Shape:
    """A dice node's parameters and modifiers, field by field of `tree.Mods` (cached, bounded)."""
    found = _SHAPES.get(id(node))
    if found is not None and found[0] is node:
        return found
    written = [getattr(node.mods, name) for name in MOD_FIELDS]
    params = (node.count, node.sides, *(_argument(w) for w in written))
    fixed: dict[str, object] = {name: w for name, w in zip(MOD_FIELDS, written, strict=True)
                                if w is None or isinstance(w, bool)}
    numbered: tuple[tuple[int, str, str | None], ...] = tuple(
        (i + 2, name, w.op if isinstance(w, Cond) else w[0] if isinstance(w, tuple) else None)
        for i, (name, w) in enumerate(zip(MOD_FIELDS, written, strict=True)) if w is not None and not isinstance(w, bool))
    form = DieForm(node.text, node.col, node.faces, node.marks, node.symbols, node.label)
    shape: Shape = (node, params, form, fixed, numbered)
    if len(_SHAPES) >= 4096:  # bounded: forget everything rather than grow
        _SHAPES.clear()
    _SHAPES[id(node)] = shape
    return shape


def spec_for(node: Dice, args: Sequence[int | None]) -> TermSpec:
    """The resolved term for given parameter values (count, sides, then each modifier's, as `parameter_nodes`)."""
    key = (id(node), tuple(args))
    found = _RESOLVED.get(key)
    if found is not None and found[0] is node:
        return found[1]
    count, sides = args[0], args[1]
    assert count is not None and sides is not None
    _, _, form, fixed, numbered = _shape(node)
    resolved = dict(fixed)
    for i, name, op in numbered:  # a condition or keep as (operator, number), a bare number as itself
        resolved[name] = args[i] if op is None else (op, args[i])
    spec = make_spec(form, count, sides, Modifiers(**resolved))  # type: ignore[arg-type]
    if len(_RESOLVED) >= 4096:  # bounded: forget everything rather than grow
        _RESOLVED.clear()
    _RESOLVED[key] = (node, spec)
    return spec


def forget_resolved() -> None:
    """Empty the caches of resolved terms."""
    _RESOLVED.clear()
    make_spec.cache_clear()


def parameter_nodes(node: Dice) -> tuple[Node | None, ...]:
    """The parameter sub-trees of a dice term in a fixed order: count, sides, then each modifier's
    number in the order of `tree.Mods` (None where absent or where it takes none)."""
    return _shape(node)[1]


def walk(node: Node) -> Iterator[Node]:
    """Every node of a tree, the tree first."""
    stack: list[Node] = [node]
    while stack:
        item = stack.pop()
        yield item
        if isinstance(item, Neg):
            stack.append(item.operand)
        elif isinstance(item, Chain):
            stack.append(item.first)
            stack.extend(n for _, n in item.rest)
        elif isinstance(item, Compare):
            stack += [item.left, item.right]
        elif isinstance(item, Dice):
            stack.extend(p for p in parameter_nodes(item) if p is not None)
        elif isinstance(item, DiceGroup):
            stack.extend(item.members)
            if item.keep is not None:
                stack.append(item.keep[1])


def free_names(node: Node) -> frozenset[str]:
    """Every variable name used anywhere in a tree."""
    return frozenset(item.name for item in walk(node) if isinstance(item, Name))
