"""Reading the characters of a dice expression: position, blanks, numbers, face lists."""

from __future__ import annotations

from interpreter import limits
from interpreter.errors import DiceSyntaxError, LimitExceeded, Location

NAME_START = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
NAME_CHARS = NAME_START | set("0123456789")


def fail(message: str, pos: int) -> DiceSyntaxError:
    """A syntax error at a 0-based position of the text."""
    return DiceSyntaxError(message, Location(file="<expr>", line=1, col=pos + 1))


class Scanner:
    """A position in one expression text and the character-level reading the parser builds on."""

    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        self.depth = 0

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
        if self.text[self.pos] in NAME_START:
            end = self.pos
            while end < len(self.text) and self.text[end] in NAME_CHARS:
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

    def face_list(self) -> tuple[int, ...]:
        """The faces of a custom die, `{0, 0, 1, 1, 1, 2}`: whole numbers, negative ones allowed."""
        open_pos = self.pos
        self.pos += 1
        faces: list[int] = []
        while True:
            self.skip_space()
            sign = 1
            if self.peek() == "-":
                sign = -1
                self.pos += 1
            value = self.digits()
            if value is None:
                if self.pos >= len(self.text):
                    raise fail("'{' is never closed", open_pos)
                raise fail(f"expected a whole number as a face, not {self.describe()}", self.pos)
            faces.append(sign * value)
            if len(faces) > limits.MAX_FACES:
                raise LimitExceeded(f"a die may have at most {limits.MAX_FACES} faces",
                                    Location(file="<expr>", line=1, col=self.pos + 1))
            self.skip_space()
            ch = self.peek()
            self.pos += 1
            if ch == "}":
                return tuple(faces)
            if ch != ",":
                self.pos -= 1
                if not ch:
                    raise fail("'{' is never closed", open_pos)
                raise fail(f"expected ',' or '}}' between faces, not {self.describe()}", self.pos)
