"""The syntax tree of a dice expression: literals, names, operators, comparisons, dice terms and groups.

A `[label]` written after a number, a name, a dice term or a group is kept on that node (`label`) for
the trace; it changes nothing else.
"""

from __future__ import annotations

from interpreter.record import record

COMPARISONS = (">=", "<=", "==", "!=", ">", "<", "=")
CONDITIONS = (">=", "<=", ">", "<", "=")


@record
class Num:
    """An integer literal."""

    value: int
    col: int
    label: str | None = None


@record
class Name:
    """A variable looked up in the environment when rolling or computing odds."""

    name: str
    col: int
    label: str | None = None


@record
class Neg:
    """Unary minus."""

    operand: Node
    col: int


@record
class Chain:
    """A left-to-right run of operators of one precedence level: `a + b - c` or `a * b // c`."""

    first: Node
    rest: tuple[tuple[str, Node], ...]
    col: int


@record
class Compare:
    """A comparison giving 1 when true and 0 when false."""

    op: str
    left: Node
    right: Node
    col: int


@record
class Cond:
    """A modifier condition such as `>=8`; `arg` is None for "the highest face"."""

    op: str
    arg: Node | None


@record
class Mods:
    """The modifiers written after one dice term."""

    reroll: Cond | None = None
    reroll_again: bool = False
    explode: Cond | None = None
    explode_once: bool = False
    keep: tuple[str, Node] | None = None
    success: Cond | None = None
    deduct: Cond | None = None
    compound: bool = False  # `!!`: a die and the throws its explosions add are one die
    least: Node | None = None  # `miN`: a die showing less than N counts as N
    most: Node | None = None  # `maN`: a die showing more than N counts as N


@record
class Dice:
    """A dice term: a count, a number of sides and modifiers."""

    count: Node
    sides: Node
    mods: Mods
    text: str
    col: int
    faces: tuple[int, ...] | None = None  # the faces as written, for Fate and custom dice (a symbol face: its symbol count)
    label: str | None = None
    marks: tuple[tuple[int, ...], ...] | None = None  # symbol dice: each written face's count of every symbol
    symbols: tuple[str, ...] = ()  # symbol dice: the symbols, in the order they are first written


@record
class DiceGroup:
    """Expressions in braces, `{1d8x, 1d6x}kh1`: each rolled in turn; keep/drop picks whole members."""

    members: tuple[Node, ...]
    keep: tuple[str, Node] | None
    text: str
    col: int
    label: str | None = None


Node = Num | Name | Neg | Chain | Compare | Dice | DiceGroup
