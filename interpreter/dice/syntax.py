"""The parser of dice expressions: text in, syntax tree (see `tree`) out."""

from __future__ import annotations

from interpreter import limits
from interpreter.dice.tree import COMPARISONS, CONDITIONS, Chain, Compare, Cond, Dice, Mods, Name, Neg, Node, Num
from interpreter.errors import DiceSyntaxError, LimitExceeded, Location

__all__ = ["COMPARISONS", "CONDITIONS", "Chain", "Compare", "Cond", "Dice", "Mods", "Name", "Neg", "Node", "Num",
           "Parser", "parse_tree"]

_NAME_START = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_NAME_CHARS = _NAME_START | set("0123456789")


def _fail(message: str, pos: int) -> DiceSyntaxError:
    """A syntax error at a 0-based position of the text."""
    return DiceSyntaxError(message, Location(file="<expr>", line=1, col=pos + 1))


class Parser:
    """A recursive-descent parser over one expression text."""

    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        self.depth = 0

    # -- helpers ---------------------------------------------------------
    def peek(self, n: int = 1) -> str:
        """The next n characters (fewer at the end)."""
        return self.text[self.pos:self.pos + n]

    def skip_space(self) -> None:
        """Move past blanks."""
        text, pos = self.text, self.pos
        while pos < len(text) and text[pos] in " \t":
            pos += 1
        self.pos = pos

    def describe(self) -> str:
        """A short quote of what comes next, for messages."""
        if self.pos >= len(self.text):
            return "the end of the expression"
        if self.text[self.pos] in _NAME_START:
            end = self.pos
            while end < len(self.text) and self.text[end] in _NAME_CHARS:
                end += 1
            return f"'{self.text[self.pos:end]}'"
        return f"'{self.text[self.pos]}'"

    def enter(self) -> None:
        """Go one nesting level deeper, within the limit."""
        self.depth += 1
        if self.depth > limits.MAX_DICE_DEPTH:
            raise LimitExceeded(
                f"dice expression nested deeper than {limits.MAX_DICE_DEPTH} levels",
                Location(file="<expr>", line=1, col=self.pos + 1))

    def digits(self) -> int | None:
        """An unsigned integer literal, or None when no digit comes next."""
        text, start = self.text, self.pos
        end = start
        while end < len(text) and text[end].isdigit() and text[end].isascii():
            end += 1
        if end == start:
            return None
        self.pos = end
        return int(text[start:end])

    # -- grammar ---------------------------------------------------------
    def parse(self) -> Node:
        """The whole text as one expression."""
        self.skip_space()
        if self.pos >= len(self.text):
            raise _fail("the dice expression is empty", 0)
        node = self.expression()
        self.skip_space()
        if self.pos < len(self.text):
            if self.peek() == ")":
                raise _fail("unmatched ')'", self.pos)
            raise _fail(f"expected an operator before {self.describe()}", self.pos)
        return node

    def expression(self) -> Node:
        """Arithmetic with at most one comparison at the end."""
        left = self.sum()
        self.skip_space()
        op = self.comparison()
        if op is None:
            return left
        col = self.pos + 1 - len(op)
        self.skip_space()
        right = self.sum()
        self.skip_space()
        if self.comparison() is not None:
            raise _fail("only one comparison is allowed in an expression", self.pos - 1)
        return Compare(op, left, right, col)

    def comparison(self) -> str | None:
        """A comparison operator if one comes next (consumed)."""
        for op in COMPARISONS:
            if self.text.startswith(op, self.pos):
                self.pos += len(op)
                return "==" if op == "=" else op
        return None

    def sum(self) -> Node:
        """Terms joined by + and -."""
        col = self.pos + 1
        first = self.product()
        rest: list[tuple[str, Node]] = []
        while True:
            self.skip_space()
            ch = self.peek()
            if ch not in ("+", "-") or not ch:
                break
            self.pos += 1
            self.skip_space()
            rest.append((ch, self.product()))
        return Chain(first, tuple(rest), col) if rest else first

    def product(self) -> Node:
        """Factors joined by * and //."""
        col = self.pos + 1
        first = self.unary()
        rest: list[tuple[str, Node]] = []
        while True:
            self.skip_space()
            if self.peek(2) == "//":
                op = "//"
            elif self.peek() == "*":
                op = "*"
            elif self.peek() == "/":
                raise _fail("use // for division (it rounds down)", self.pos)
            else:
                break
            self.pos += len(op)
            self.skip_space()
            rest.append((op, self.unary()))
        return Chain(first, tuple(rest), col) if rest else first

    def unary(self) -> Node:
        """An atom, possibly negated."""
        self.skip_space()
        if self.peek() == "-":
            col = self.pos + 1
            self.pos += 1
            self.enter()
            operand = self.unary()
            self.depth -= 1
            return Neg(operand, col)
        return self.atom()

    def atom(self) -> Node:
        """A number, a name, a parenthesized expression or a dice term."""
        start = self.pos
        ch = self.peek()
        if ch.isdigit() and ch.isascii():
            value = self.digits()
            assert value is not None
            if self.at_dice():
                return self.dice(Num(value, start + 1), start)
            self.no_bad_die()
            return Num(value, start + 1)
        if ch == "(":
            inner = self.group()
            if self.at_dice():
                return self.dice(inner, start)
            self.no_bad_die()
            return inner
        if ch == "d" and self.at_dice():
            return self.dice(Num(1, start + 1), start)
        if ch and ch in _NAME_START:
            end = start
            while end < len(self.text) and self.text[end] in _NAME_CHARS:
                end += 1
            self.pos = end
            return Name(self.text[start:end], start + 1)
        if not ch:
            raise _fail("the expression ends where a number, name or dice were expected", start)
        raise _fail(f"expected a number, name or dice, not '{ch}'", start)

    def group(self) -> Node:
        """A parenthesized expression."""
        open_pos = self.pos
        self.pos += 1
        self.enter()
        self.skip_space()
        inner = self.expression()
        self.skip_space()
        if self.peek() != ")":
            if self.pos >= len(self.text):
                raise _fail("'(' is never closed", open_pos)
            raise _fail(f"expected ')' before {self.describe()}", self.pos)
        self.pos += 1
        self.depth -= 1
        return inner

    def no_bad_die(self) -> None:
        """Complain about a count followed by a `d` that does not start a die."""
        if self.peek() == "d":
            raise _fail("a die needs its number of sides after 'd', as in 1d6", self.pos)

    def at_dice(self) -> bool:
        """Whether a `d` starting a die comes next: `d` then digits, `%` or `(`."""
        if self.peek() != "d":
            return False
        nxt = self.text[self.pos + 1:self.pos + 2]
        return nxt in ("%", "(") or (nxt.isdigit() and nxt.isascii())

    def argument(self, after: str) -> Node:
        """A modifier's number: a literal or a parenthesized expression."""
        col = self.pos + 1
        if self.peek() == "(":
            return self.group()
        value = self.digits()
        if value is None:
            raise _fail(f"expected a number after '{after}'", self.pos)
        return Num(value, col)

    def condition(self, after: str, required: bool) -> Cond | None:
        """A condition after a modifier: `>=N`, `<N`, `=N`, or a bare `N` (meaning `=N`)."""
        for op in CONDITIONS:
            if self.text.startswith(op, self.pos):
                self.pos += len(op)
                return Cond("==" if op == "=" else op, self.argument(after + op))
        ch = self.peek()
        if ch == "(" or (ch.isdigit() and ch.isascii()):
            return Cond("==", self.argument(after))
        if required:
            raise _fail(f"expected a comparison or a number after '{after}'", self.pos)
        return None

    def dice(self, count: Node, start: int) -> Dice:
        """The rest of a dice term from its `d`: sides, then modifiers."""
        self.pos += 1  # the 'd'
        side_col = self.pos + 1
        if self.peek() == "%":
            self.pos += 1
            sides: Node = Num(100, side_col)
        else:
            sides = self.argument("d")
        mods = self.modifiers()
        return Dice(count, sides, mods, self.text[start:self.pos], start + 1)

    def modifiers(self) -> Mods:
        """Modifiers written right after a dice term, in any order."""
        found: dict[str, object] = {}

        def once(kind: str, label: str, pos: int) -> None:
            if kind in found:
                raise _fail(f"only one {label} modifier is allowed per dice term", pos)
            found[kind] = True

        while True:
            pos = self.pos
            two = self.peek(2)
            ch = self.peek()
            if two in ("kh", "kl", "dh", "dl") or (ch == "k" and two != "kh"):
                name = two if two in ("kh", "kl", "dh", "dl") else "k"
                once("keep", "keep or drop", pos)
                self.pos += len(name)
                kind = "kh" if name == "k" else name
                col = self.pos + 1
                arg: Node = Num(1, col)
                nxt = self.peek()
                if nxt == "(" or (nxt.isdigit() and nxt.isascii()):
                    arg = self.argument(name)
                found["keep_v"] = (kind, arg)
            elif two == "df":
                once("df", "df", pos)
                self.pos += 2
                found["df_v"] = self.condition("df", True)
            elif two == "cs":
                once("cs", "cs", pos)
                self.pos += 2
                found["cs_v"] = self.condition("cs", True)
            elif ch in ("x", "!") and two != "!=":
                once("explode", "explode", pos)
                self.pos += 1
                label = ch
                if self.peek() == "o":
                    self.pos += 1
                    found["explode_once"] = True
                    label += "o"
                cond = self.condition(label, False)
                found["explode_v"] = cond if cond is not None else Cond("max", None)
            elif ch == "r":
                once("reroll", "reroll", pos)
                self.pos += 1
                label = "r"
                if self.peek() == "r":
                    self.pos += 1
                    found["reroll_again"] = True
                    label = "rr"
                found["reroll_v"] = self.condition(label, True)
            elif ch and ch in _NAME_CHARS:
                end = pos
                while end < len(self.text) and self.text[end] in _NAME_CHARS:
                    end += 1
                raise _fail(f"unknown dice modifier '{self.text[pos:end]}'", pos)
            else:
                break
        if "df_v" in found and "cs_v" not in found:
            raise _fail("'df' (deduct failures) needs a 'cs' success condition on the same dice", self.pos)
        return Mods(
            reroll=found.get("reroll_v"),  # type: ignore[arg-type]
            reroll_again=bool(found.get("reroll_again")),
            explode=found.get("explode_v"),  # type: ignore[arg-type]
            explode_once=bool(found.get("explode_once")),
            keep=found.get("keep_v"),  # type: ignore[arg-type]
            success=found.get("cs_v"),  # type: ignore[arg-type]
            deduct=found.get("df_v"),  # type: ignore[arg-type]
        )


def parse_tree(text: str) -> Node:
    """Parse expression text into a syntax tree."""
    if len(text) > limits.MAX_DICE_CHARS:
        raise LimitExceeded(
            f"dice expression is {len(text)} characters long; at most {limits.MAX_DICE_CHARS} are allowed",
            Location(file="<expr>", line=1, col=limits.MAX_DICE_CHARS + 1))
    return Parser(text).parse()
