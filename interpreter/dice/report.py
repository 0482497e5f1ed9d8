"""Text and JSON reports of rolls and distributions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, SupportsFloat

from interpreter.dice.term import parameter_nodes
from interpreter.dice.trace import RollTrace, TermTrace
from interpreter.dice.tree import Chain, Compare, Dice, DiceGroup, Name, Neg, Node, Num

if TYPE_CHECKING:
    from interpreter.dice.distribution import Distribution


class Expression(Protocol):
    """What a report needs of a parsed dice expression: its text and its syntax tree."""

    @property
    def text(self) -> str: ...

    @property
    def tree(self) -> Node: ...


def _die_text(term: TermTrace, i: int) -> str:
    """One die: struck through when dropped, with any reroll history, its throws when it compounded,
    its symbols for a symbol die, and what it showed before `mi` or `ma` changed it."""
    d = term.dice[i]
    text = d.face if d.face is not None else str(d.value)
    if d.throws:
        text = f"{text} ({'+'.join(map(str, d.throws))})"
    if d.natural is not None:
        text = f"{text} (rolled {d.natural})"
    if d.rerolled:
        text = f"{text} (rerolled {', '.join(map(str, d.rerolled))})"
    if d.deducted:
        text = f"{text} (−1)"
    if not d.kept:
        text = f"~~{text}~~"
    return text


def dice_text(term: TermTrace) -> str:
    """A term's dice in brackets, each explosion chain written `10 → 8`."""
    child: dict[int, int] = {}
    for i, d in enumerate(term.dice):
        if d.from_ is not None:
            child[d.from_] = i
    parts = []
    for i, d in enumerate(term.dice):
        if d.from_ is not None:
            continue
        chain = [_die_text(term, i)]
        while i in child:
            i = child[i]
            chain.append(_die_text(term, i))
        parts.append(" → ".join(chain))
    return "[" + ", ".join(parts) + "]"


def _successes(n: int) -> str:
    """'1 success' / 'n successes'."""
    return f"{n} success" if n in (1, -1) else f"{n} successes"


def symbol_totals(term: TermTrace) -> str:
    """How many of each symbol a symbol term's kept dice show, as `2 S, 1 A` ('no symbols' when none)."""
    counts: dict[str, int] = {}
    for d in term.dice:
        if d.kept and d.face is not None and d.face != "blank":
            for sym in _split_symbols(d.face):
                counts[sym] = counts.get(sym, 0) + 1
    return ", ".join(f"{n} {sym}" for sym, n in counts.items()) or "no symbols"


def _split_symbols(face: str) -> list[str]:
    """The symbols of a face as written: `SAA` is S, A, A; `Tr` one symbol."""
    out: list[str] = []
    for ch in face:
        if ch.isupper() or not out:
            out.append(ch)
        else:
            out[-1] += ch
    return out


def _result_text(term: TermTrace, value: int) -> str:
    """A single term's result: successes when it counts, symbol totals for symbol dice, else the number."""
    if term.counting:
        return _successes(value)
    if term.dice and term.dice[0].face is not None:
        return f"{value} ({symbol_totals(term)})"
    return str(value)


def _labelled(text: str, label: str | None) -> str:
    return text if label is None else f"{text}[{label}]"


class _Renderer:
    """Walks a tree in roll order, pairing each dice term with its trace."""

    def __init__(self, roll: RollTrace):
        self.terms: tuple[TermTrace, ...] = roll.terms
        self.at = 0
        self.env = roll.env

    def node(self, node: Node, wrap: bool = False) -> str:
        """The rendering of one node; `wrap` puts sums in parentheses."""
        if isinstance(node, Num):
            return _labelled(str(node.value), node.label)
        if isinstance(node, Dice):
            return _labelled(self.dice(node), node.label)
        if isinstance(node, Name):
            return _labelled(self.name(node), node.label)
        if isinstance(node, Neg):
            return "-" + self.node(node.operand, True)
        if isinstance(node, Compare):
            return f"{self.node(node.left)} {node.op} {self.node(node.right)}"
        if isinstance(node, DiceGroup):
            return _labelled(self.group(node), node.label)
        assert isinstance(node, Chain)
        inner_wrap = node.rest[0][0] in ("*", "//")
        text = self.node(node.first, inner_wrap)
        for op, operand in node.rest:
            text += f" {op} {self.node(operand, inner_wrap)}"
        return f"({text})" if wrap and not inner_wrap else text

    def dice(self, node: Dice) -> str:
        """A dice term's dice, after any dice rolled for its parameters."""
        params = [self.node(p) for p in parameter_nodes(node)
                  if p is not None and not isinstance(p, Num)]
        term = self.terms[self.at]
        self.at += 1
        text = dice_text(term)
        if term.counting:
            text += f" ({_successes(term.result)})"
        elif term.dice and term.dice[0].face is not None:
            text += f" ({symbol_totals(term)})"
        if params:
            text = f"{node.text} with {', '.join(params)}: {text}"
        return text

    def group(self, node: DiceGroup) -> str:
        """Each member of a dice group with its total; a dropped member says so."""
        parts = []
        for member in node.members:
            first = self.at
            text = self.node(member)
            used = self.terms[first:self.at]
            if isinstance(member, Dice) and used:
                text += f" = {used[0].result}"
            if used and not any(d.kept for t in used for d in t.dice):
                text += " (dropped)"
            parts.append(text)
        return "{" + ", ".join(parts) + "}"

    def name(self, node: Name) -> str:
        """A name and the value it stood for."""
        value = self.env.get(node.name) if hasattr(self.env, "get") else None
        tree = getattr(value, "tree", None)
        if tree is not None:
            return f"{node.name}({self.node(tree)})"
        return f"{node.name}({int(value) if value is not None else '?'})"


def render_roll(expr: Expression, roll: RollTrace) -> str:
    """One readable line: the expression, its dice and the result."""
    tree = expr.tree
    if isinstance(tree, Dice) and not roll.terms:
        return f"{expr.text}: [] = {roll.value}"
    if isinstance(tree, Dice) and len(roll.terms) == 1:
        term = roll.terms[0]
        return f"{expr.text}: {dice_text(term)} = {_result_text(term, roll.value)}"
    body = _Renderer(roll).node(tree)
    result = str(roll.value)
    if isinstance(tree, Compare):
        result += " (true)" if roll.value else " (false)"
    return f"{expr.text}: {body} = {result}"


def percent(p: SupportsFloat) -> str:
    """A probability as a short percentage: `85%`, `4.5%`, `0.03%`, `<0.01%` (never `100%` unless certain)."""
    share = float(p) * 100
    if share in (0, 100):
        return f"{share:g}%"
    if share < 0.01:
        return "<0.01%"
    text = f"{share:.{1 if share >= 1 else 2}f}".rstrip("0").rstrip(".")
    return ("99.9" if text == "100" else text) + "%"


FEW_VALUES = 6  # a distribution with at most this many values is told value by value in its chat line


def odds_line(text: str, dist: Distribution) -> str:
    """The odds of an expression as one line for a chat: every value when there are few
    (`d20>=15: 0 70%, 1 30% | mean 0.3`), else the range, the mean and the likeliest value
    (`3d6: 3 to 18, mean 10.5, most often 10 (12.5%)`)."""
    probs = dist.probs
    mean = f"mean {dist.mean:.4g}"
    if not probs:
        return f"{text}: no possible values"
    if len(probs) <= FEW_VALUES:
        line = f"{text}: " + ", ".join(f"{v} {percent(p)}" for v, p in probs) + f" | {mean}"
    else:
        top, p_top = max(probs, key=lambda item: item[1])
        likeliest = f"each {percent(p_top)}" if all(p == p_top for _, p in probs) else \
            f"most often {top} ({percent(p_top)})"
        line = f"{text}: {probs[0][0]} to {probs[-1][0]}, {mean}, {likeliest}"
    if dist.truncated:
        line += f" (endless explosions cut off: {dist.truncated:.3g})"
    return line


def roll_json(expr: Expression, roll: RollTrace) -> dict[str, Any]:
    """The roll as a JSON-ready object: expression, result, every die, and a summary per term."""
    terms = []
    first = 0
    for t in roll.terms:
        item: dict[str, Any] = {"term": t.text, "sides": t.sides, "result": t.result,
                                "first": first, "count": len(t.dice)}
        if t.faces is not None:
            item["faces"] = list(t.faces)
        if t.label is not None:
            item["label"] = t.label
        terms.append(item)
        first += len(t.dice)
    return {"expr": expr.text, "result": roll.value, "dice": roll.to_json(), "terms": terms}


def distribution_json(expr_text: str, dist: Distribution) -> dict[str, Any]:
    """The distribution as a JSON-ready object (values as string keys)."""
    out: dict[str, Any] = {
        "expr": expr_text,
        "mean": dist.mean,
        "distribution": {str(v): float(p) for v, p in dist.probs},
    }
    if dist.exact:
        from fractions import Fraction  # (only exact odds are shown here, and they were computed as fractions)

        out["exact"] = {str(v): f"{p.numerator}/{p.denominator}" for v, p in dist.probs
                        if isinstance(p, Fraction)}
    if dist.truncated:
        out["truncated"] = dist.truncated
    return out
