"""The parser of dice expressions: text in, syntax tree (see `tree`) out."""

from __future__ import annotations

from interpreter import limits
from interpreter.dice.scan import NAME_CHARS, NAME_START, Scanner, fail
from interpreter.dice.tree import (
    COMPARISONS,
    CONDITIONS,
    Chain,
    Compare,
    Cond,
    Dice,
    DiceGroup,
    Mods,
    Name,
    Neg,
    Node,
    Num,
)
from interpreter.errors import LimitExceeded, Location
from interpreter.record import replace

__all__ = ["COMPARISONS", "CONDITIONS", "Chain", "Compare", "Cond", "Dice", "DiceGroup", "Mods", "Name", "Neg", "Node",
           "Num", "Parser", "parse_tree"]


class Parser(Scanner):
    """A recursive-descent parser over one expression text."""

    # -- grammar ---------------------------------------------------------
    def parse(self) -> Node:
        """The whole text as one expression."""
        self.skip_space()
        if self.pos >= len(self.text):
            raise fail("the dice expression is empty", 0)
        node = self.expression()
        self.skip_space()
        if self.pos < len(self.text):
            if self.peek() == ")":
                raise fail("unmatched ')'", self.pos)
            self.no_count_of_named()
            raise fail(f"expected an operator before {self.describe()}", self.pos)
        return node

    def expression(self) -> Node:
        """Arithmetic with at most one comparison at the end."""
        left = self.sum()
        self.skip_space()
        col = self.pos + 1
        op = self.comparison()
        if op is None:
            return left
        self.skip_space()
        right = self.sum()
        self.skip_space()
        if self.comparison() is not None:
            raise fail("only one comparison is allowed in an expression", self.pos - 1)
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
                raise fail("use // for division (it rounds down)", self.pos)
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
        """A number, a name, a parenthesized expression or a dice term; any but the parenthesized one
        may carry a `[label]`."""
        start = self.pos
        ch = self.peek()
        node: Node
        if ch.isdigit() and ch.isascii():
            value = self.digits()
            assert value is not None
            if self.at_dice():
                node = self.dice(Num(value, start + 1), start)
            else:
                self.no_bad_die()
                node = Num(value, start + 1)
        elif ch == "(":
            inner = self.group()
            if not self.at_dice():
                self.no_bad_die()
                if self.label() is not None:
                    raise fail("a label follows a number, a name, a dice term or a dice group, "
                               "not a parenthesized expression", start)
                return inner
            node = self.dice(inner, start)
        elif ch == "d" and self.at_dice(bare=True):
            node = self.dice(Num(1, start + 1), start)
        elif ch == "{":
            node = self.group_of_dice()
        elif ch and ch in NAME_START:
            end = start
            while end < len(self.text) and self.text[end] in NAME_CHARS:
                end += 1
            self.pos = end
            node = Name(self.text[start:end], start + 1)
        elif not ch:
            raise fail("the expression ends where a number, name or dice were expected", start)
        else:
            self.no_count_of_named()
            raise fail(f"expected a number, name or dice, not '{ch}'", start)
        label = self.label()
        return node if label is None else replace(node, label=label)

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
                raise fail("'(' is never closed", open_pos)
            raise fail(f"expected ')' before {self.describe()}", self.pos)
        self.pos += 1
        self.depth -= 1
        return inner

    def no_count_of_named(self) -> None:
        """Complain about a `#` (a count of a named die) where no named dice are known."""
        if self.peek() == "#":
            raise fail("'#' counts dice of a die named under a ruleset's `dice:` (`(n)#ability`); "
                       "here no die is named", self.pos)

    def no_bad_die(self) -> None:
        """Complain about a count followed by a `d` that does not start a die."""
        if self.peek() == "d":
            raise fail("a die needs its number of sides after 'd', as in 1d6", self.pos)

    def at_dice(self, bare: bool = False) -> bool:
        """Whether a `d` starting a die comes next: `d` then digits, `%`, `(`, `{` or `F`.

        A `dF` with no count is a Fate die only when no longer name goes on from it (`dFoo` is a name).
        """
        if self.peek() != "d":
            return False
        nxt = self.text[self.pos + 1:self.pos + 2]
        if nxt == "F" and bare:
            after = self.text[self.pos + 2:self.pos + 3]
            return not after or after not in NAME_CHARS or after in "kdxrc"
        return nxt in ("%", "(", "{", "F") or (nxt.isdigit() and nxt.isascii())

    def group_of_dice(self) -> DiceGroup:
        """`{A, B, ...}` with an optional keep or drop of whole members: `{1d8x, 1d6x}kh1`."""
        start = self.pos
        self.pos += 1
        self.enter()
        members: list[Node] = []
        while True:
            self.skip_space()
            members.append(self.expression())
            self.skip_space()
            ch = self.peek()
            if ch == "}":
                self.pos += 1
                break
            if ch != ",":
                if not ch:
                    raise fail("'{' is never closed", start)
                raise fail(f"expected ',' or '}}' in a dice group, not {self.describe()}", self.pos)
            self.pos += 1
        self.depth -= 1
        keep = self.keep_modifier() if self.at_keep() else None
        if self.peek() and self.peek() in NAME_CHARS:
            raise fail("a dice group takes only a keep or drop (kh, kl, dh, dl) after its '}'", self.pos)
        return DiceGroup(tuple(members), keep, self.text[start:self.pos], start + 1)

    def argument(self, after: str) -> Node:
        """A modifier's number: a literal or a parenthesized expression."""
        col = self.pos + 1
        if self.peek() == "(":
            return self.group()
        value = self.digits()
        if value is None:
            raise fail(f"expected a number after '{after}'", self.pos)
        return Num(value, col)

    def signed(self, after: str) -> Node:
        """A condition's number, which may be negative (faces of Fate and custom dice can be)."""
        if self.peek() == "-":
            self.pos += 1
            value = self.digits()
            if value is None:
                raise fail(f"expected a number after '{after}-'", self.pos)
            return Num(-value, self.pos + 1)
        return self.argument(after)

    def condition(self, after: str, required: bool) -> Cond | None:
        """A condition after a modifier: `>=N`, `<N`, `=N`, or a bare `N` (meaning `=N`)."""
        for op in CONDITIONS:
            if self.text.startswith(op, self.pos):
                self.pos += len(op)
                return Cond("==" if op == "=" else op, self.signed(after + op))
        ch = self.peek()
        if ch == "(" or (ch.isdigit() and ch.isascii()) or (required and ch == "-"):
            return Cond("==", self.signed(after))
        if required:
            raise fail(f"expected a comparison or a number after '{after}'", self.pos)
        return None

    def dice(self, count: Node, start: int) -> Dice:
        """The rest of a dice term from its `d`: sides, then modifiers."""
        self.pos += 1  # the 'd'
        side_col = self.pos + 1
        faces: tuple[int, ...] | None = None
        marks: tuple[tuple[int, ...], ...] | None = None
        symbols: tuple[str, ...] = ()
        if self.peek() == "%":
            self.pos += 1
            sides: Node = Num(100, side_col)
        elif self.peek() == "F":
            self.pos += 1
            faces = (-1, 0, 1)
            sides = Num(3, side_col)
        elif self.peek() == "{":
            faces, marks, symbols = self.face_list()
            sides = Num(len(faces), side_col)
        else:
            sides = self.argument("d")
        mods = self.modifiers()
        return Dice(count, sides, mods, self.text[start:self.pos], start + 1, faces, None, marks, symbols)

    def at_keep(self) -> bool:
        """Whether a keep or drop modifier comes next."""
        two = self.peek(2)
        return two in ("kh", "kl", "dh", "dl") or (self.peek() == "k" and two != "kh")

    def keep_modifier(self) -> tuple[str, Node]:
        """`kh`, `kl`, `dh`, `dl` or `k` (keep highest) with an optional count (1 when left out)."""
        two = self.peek(2)
        name = two if two in ("kh", "kl", "dh", "dl") else "k"
        self.pos += len(name)
        arg: Node = Num(1, self.pos + 1)
        nxt = self.peek()
        if nxt == "(" or (nxt.isdigit() and nxt.isascii()):
            arg = self.argument(name)
        return ("kh" if name == "k" else name, arg)

    # Above the complexity gate (C901): one arm per dice modifier.
    def modifiers(self) -> Mods:  # noqa: C901
        """Modifiers written right after a dice term, in any order."""
        found: dict[str, object] = {}

        def once(kind: str, label: str, pos: int) -> None:
            if kind in found:
                raise fail(f"only one {label} modifier is allowed per dice term", pos)
            found[kind] = True

        while True:
            pos = self.pos
            two = self.peek(2)
            ch = self.peek()
            if self.at_keep():
                once("keep", "keep or drop", pos)
                found["keep_v"] = self.keep_modifier()
            elif two == "df":
                once("df", "df", pos)
                self.pos += 2
                found["df_v"] = self.condition("df", True)
            elif two == "cs":
                once("cs", "cs", pos)
                self.pos += 2
                found["cs_v"] = self.condition("cs", True)
            elif two == "!!":
                once("explode", "explode", pos)
                self.pos += 2
                found["compound"] = True
                # only a face (`!!5`, `!!(again)`): a comparison right after `!!` is the expression's
                # (`1d6!!>=10` asks whether the die's sum reaches 10)
                nxt = self.peek()
                face = self.signed("!!") if nxt == "(" or (nxt.isdigit() and nxt.isascii()) else None
                found["explode_v"] = Cond("==", face) if face is not None else Cond("max", None)
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
                elif self.peek() == "o":  # Roll20's "reroll once", which `r` already is
                    self.pos += 1
                    label = "ro"
                found["reroll_v"] = self.condition(label, True)
            elif two in ("mi", "ma"):
                kind = "least" if two == "mi" else "most"
                once(kind, two, pos)
                word = two + ("n" if two == "mi" else "x")
                written = word if self.text.startswith(word, pos) else two
                self.pos += len(written)
                found[kind] = self.signed(written)
            elif ch and ch in NAME_CHARS:
                end = pos
                while end < len(self.text) and self.text[end] in NAME_CHARS:
                    end += 1
                raise fail(f"unknown dice modifier '{self.text[pos:end]}'", pos)
            else:
                break
        if "df_v" in found and "cs_v" not in found:
            raise fail("'df' (deduct failures) needs a 'cs' success condition on the same dice", self.pos)
        return Mods(
            reroll=found.get("reroll_v"),  # type: ignore[arg-type]
            reroll_again=bool(found.get("reroll_again")),
            explode=found.get("explode_v"),  # type: ignore[arg-type]
            explode_once=bool(found.get("explode_once")),
            keep=found.get("keep_v"),  # type: ignore[arg-type]
            success=found.get("cs_v"),  # type: ignore[arg-type]
            deduct=found.get("df_v"),  # type: ignore[arg-type]
            compound=bool(found.get("compound")),
            least=found.get("least"),  # type: ignore[arg-type]
            most=found.get("most"),  # type: ignore[arg-type]
        )


def parse_tree(text: str) -> Node:
    """Parse expression text into a syntax tree."""
    if len(text) > limits.MAX_DICE_CHARS:
        raise LimitExceeded(
            f"dice expression is {len(text)} characters long; at most {limits.MAX_DICE_CHARS} are allowed",
            Location(file="<expr>", line=1, col=limits.MAX_DICE_CHARS + 1))
    return Parser(text).parse()
