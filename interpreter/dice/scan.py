"""Reading the characters of a dice expression: position, blanks, numbers, face lists."""

from __future__ import annotations

from interpreter import limits
from interpreter.errors import DiceSyntaxError, LimitExceeded, Location

NAME_START = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
NAME_CHARS = NAME_START | set("0123456789")
MAX_LABEL = 64


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

    def face_list(self) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...] | None, tuple[str, ...]]:
        """The faces of a custom die: whole numbers (`{0, 0, 1, 1, 1, 2}`, negative ones allowed), or
        faces of symbols (`{blank, S, SS, SA}`: each capital letter, with any small letters after it, one
        symbol).  Gives each face's number (a symbol face: how many symbols it shows), each face's count
        of every symbol (None for numbers) and the symbols in the order they are first written."""
        open_pos = self.pos
        self.pos += 1
        faces: list[int] = []
        marks: list[list[str]] = []
        while True:
            self.skip_space()
            at = self.pos
            if self.peek() in NAME_START and self.peek():
                marks.append(self._symbol_face())
                faces.append(len(marks[-1]))
            else:
                sign = 1
                if self.peek() == "-":
                    sign = -1
                    self.pos += 1
                value = self.digits()
                if value is None:
                    if self.pos >= len(self.text):
                        raise fail("'{' is never closed", open_pos)
                    raise fail(f"expected a whole number as a face (or symbols such as SA), not {self.describe()}", self.pos)
                faces.append(sign * value)
            if marks and len(marks) != len(faces):
                raise fail("a die's faces are all numbers or all symbols ('blank' for a face without any)", at)
            if len(faces) > limits.MAX_FACES:
                raise LimitExceeded(f"a die may have at most {limits.MAX_FACES} faces",
                                    Location(file="<expr>", line=1, col=self.pos + 1))
            self.skip_space()
            ch = self.peek()
            self.pos += 1
            if ch == "}":
                if not marks:
                    return tuple(faces), None, ()
                symbols = tuple(dict.fromkeys(s for face in marks for s in face))
                return tuple(faces), tuple(tuple(face.count(s) for s in symbols) for face in marks), symbols
            if ch != ",":
                self.pos -= 1
                if not ch:
                    raise fail("'{' is never closed", open_pos)
                raise fail(f"expected ',' or '}}' between faces, not {self.describe()}", self.pos)

    def _symbol_face(self) -> list[str]:
        """One face of symbols, `SA` or `blank`: its symbols in order."""
        start = self.pos
        text = self.text
        end = start
        while end < len(text) and text[end] in NAME_CHARS:
            end += 1
        word = text[start:end]
        if word == "blank":
            self.pos = end
            return []
        symbols: list[str] = []
        i = start
        while i < end:
            if not ("A" <= text[i] <= "Z"):
                raise fail(f"'{word}' is not a face of symbols: each symbol starts with a capital letter "
                           "(SA is S and A; 'blank' is a face without any)", i)
            j = i + 1
            while j < end and "a" <= text[j] <= "z":
                j += 1
            symbols.append(text[i:j])
            i = j
        self.pos = end
        return symbols

    def label(self) -> str | None:
        """A `[label]` coming next (after blanks), read and returned; None when none comes (nothing read)."""
        pos = self.pos
        self.skip_space()
        if self.peek() != "[":
            self.pos = pos
            return None
        start = self.pos
        end = self.text.find("]", start + 1)
        if end < 0:
            raise fail("'[' is never closed", start)
        text = self.text[start + 1:end]
        if not text.strip() or "[" in text or len(text) > MAX_LABEL:
            raise fail(f"a label is 1 to {MAX_LABEL} characters between '[' and ']'", start)
        self.pos = end + 1
        return text.strip()
