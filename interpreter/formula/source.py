"""A formula's text: scanned for depth, parsed as one expression, and mapped back to file positions."""

from __future__ import annotations

import ast
import keyword
import re
import unicodedata
import warnings

from interpreter import limits
from interpreter.errors import FormulaSyntaxError, LimitExceeded, Location


class Source:
    """The formula text, how it is parsed, and how parser positions map back to the file.

    The text is parsed wrapped as ``"(\\n" + text + "\\n)"`` so that a formula
    may span lines and start with spaces; brackets are checked to balance
    first, so the wrapping cannot change what the text means.  Line 1 of the
    wrapped text is the added bracket; line ``k + 1`` is line ``k`` of the text.
    """

    def __init__(self, text: str, where: Location | None):
        self.text = text.replace("\r\n", "\n").replace("\r", "\n")
        self.where = where
        self.lines = self.text.split("\n")
        self.wrapped = "(\n" + self.text + "\n)"

    @property
    def start(self) -> Location:
        return self.at(1, 0)

    def at(self, line: int, col: int) -> Location:
        """The file position of 1-based ``line`` and 0-based character ``col`` in the text."""
        where = self.where
        if where is None:
            return Location("<formula>", line, col + 1)
        if line == 1:
            return Location(where.file, where.line, where.col + col, where.path, where.source)
        return Location(where.file, where.line + line - 1, col + 1, where.path, where.source)

    def at_index(self, index: int) -> Location:
        """The file position of a character index into the text."""
        line = self.text.count("\n", 0, index) + 1
        col = index - (self.text.rfind("\n", 0, index) + 1)
        return self.at(line, col)

    def at_wrapped(self, wrapped_line: int | None, col: int | None, *, in_bytes: bool) -> Location:
        """The file position of a position in the wrapped text (as the parser reports it)."""
        line = (wrapped_line or 1) - 1
        if line < 1:
            return self.start
        if line > len(self.lines):  # the added closing bracket: just after the last character
            return self.at_index(len(self.text.rstrip()))
        col = max(col or 0, 0)
        if in_bytes:
            col = len(self.lines[line - 1].encode("utf-8")[:col].decode("utf-8", "ignore"))
        return self.at(line, col)

    def node_at(self, node: ast.AST) -> Location:
        return self.at_wrapped(node.lineno, node.col_offset, in_bytes=True)  # type: ignore[attr-defined]

    def segment(self, node: ast.AST) -> str:
        """The text of a node, shortened for messages."""
        text = self._written(node) or ast.unparse(node)
        text = " ".join(text.split())
        return text if len(text) <= 60 else text[:57] + "..."


    def _written(self, node: ast.AST) -> str | None:
        """The text a node was parsed from (what ast.get_source_segment gives, without splitting the text anew
        for every node: the code of a formula asks for the text of most of its nodes)."""
        first, last = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        start, end = getattr(node, "col_offset", None), getattr(node, "end_col_offset", None)
        if first is None or last is None or start is None or end is None:
            return None
        lines = self.wrapped_lines
        if first == last:
            text: str = lines[first - 1].encode("utf-8")[start:end].decode("utf-8")
            return text
        head = lines[first - 1].encode("utf-8")[start:].decode("utf-8")
        tail = lines[last - 1].encode("utf-8")[:end].decode("utf-8")
        return "\n".join([head, *lines[first:last - 1], tail])

    @property
    def wrapped_lines(self) -> list[str]:
        found: list[str] | None = self.__dict__.get("_wrapped_lines")
        if found is None:
            found = self.__dict__["_wrapped_lines"] = self.wrapped.split("\n")
        return found


_NOT_CHAIN = r"(?:\bnot\b[\s(]*)"


def prescan(source: Source) -> None:
    """Refuse deep nesting and unbalanced brackets before the parser sees the text.

    One linear pass, skipping string literals and comments: brackets must
    balance, may nest at most ``MAX_FORMULA_DEPTH`` deep, and runs of unary
    operator characters or of ``not`` are bounded the same way.
    """
    text = source.text
    max_depth = limits.MAX_FORMULA_DEPTH
    too_deep = f"formula is nested too deeply (more than {max_depth} levels)"
    closers = {")": "(", "]": "[", "}": "{"}
    stack: list[tuple[str, int]] = []
    run = 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "([{":
            stack.append((c, i))
            if len(stack) > max_depth:
                raise LimitExceeded(too_deep, source.at_index(i))
            run = 0
        elif c in ")]}":
            if not stack or stack[-1][0] != closers[c]:
                raise FormulaSyntaxError(f"unmatched '{c}'", source.at_index(i))
            stack.pop()
            run = 0
        elif c in "+-~":
            run += 1
            if run > max_depth + 1:
                raise LimitExceeded(too_deep, source.at_index(i))
        elif c in " \t\n\\":
            pass
        elif c in "'\"":
            end = _string_end(text, i)
            if end < 0:
                return  # unterminated: the parser reports it
            i = end
            run = 0
            continue
        elif c == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        else:
            run = 0
        i += 1
    if stack:
        opener, index = stack[-1]
        raise FormulaSyntaxError(f"'{opener}' was never closed", source.at_index(index))
    # (a chain that long holds the word that many times: most formulas are told without a pattern)
    deep_not = re.search(_NOT_CHAIN + f"{{{max_depth + 1},}}", text) if text.count("not") > max_depth else None
    if deep_not:
        raise LimitExceeded(too_deep, source.at_index(deep_not.start()))
    if not text.isascii():
        _refuse_folded_names(source)


# (patterns kept as text: `re` compiles one when it is first used, not at every start)
_WORD = r"[^\W\d]\w*"


def _refuse_folded_names(source: Source) -> None:
    """Refuse a name Python would read as another (full-width 'ＳＴＲ' is read as 'STR'): the name shown must be the one run."""
    for match in re.finditer(_WORD, source.text):
        word = match.group()
        folded = unicodedata.normalize("NFKC", word)
        if folded != word:
            raise FormulaSyntaxError(f"the name '{word}' would be read as '{folded}'; write '{folded}'",
                                     source.at_index(match.start()))


def _string_end(text: str, i: int) -> int:
    """Index just after the string literal starting at ``i``, or -1 if it never ends."""
    quote = text[i]
    if text.startswith(quote * 3, i):
        end = text.find(quote * 3, i + 3)
        return -1 if end < 0 else end + 3
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == quote:
            return j + 1
        if c == "\n":
            return -1
        j += 1
    return -1


_STATEMENT_MESSAGES: dict[type, str] = {
    ast.Import: "import is not allowed",
    ast.ImportFrom: "import is not allowed",
    ast.Assign: "assignment is not allowed",
    ast.AugAssign: "assignment is not allowed",
    ast.AnnAssign: "assignment is not allowed",
    ast.FunctionDef: "function definitions are not allowed",
    ast.AsyncFunctionDef: "function definitions are not allowed",
    ast.ClassDef: "class definitions are not allowed",
}


def parse(source: Source) -> ast.Expression:
    """Parse the (already scanned) text as one expression, or raise a located error."""
    if not source.text.strip():
        raise FormulaSyntaxError("empty formula", source.start)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source.wrapped, mode="eval")
    except SyntaxError as err:
        raise _statement_error(source) or FormulaSyntaxError(
            _syntax_message(err, source.wrapped), source.at_wrapped(err.lineno, (err.offset or 1) - 1, in_bytes=False)
        ) from None
    except ValueError as err:  # e.g. a null character, on older Pythons
        raise FormulaSyntaxError(str(err), source.start) from None
    except (RecursionError, MemoryError):
        raise LimitExceeded("formula is too complex", source.start) from None
    body = tree.body
    if isinstance(body, ast.Tuple) and not body.elts and body.lineno == 1:
        raise FormulaSyntaxError("empty formula", source.start)  # only a comment
    return tree


def _syntax_message(err: SyntaxError, wrapped: str = "") -> str:
    msg = err.msg or "invalid syntax"
    if "null bytes" in msg:
        return "formulas cannot contain null characters"
    if msg == "invalid syntax":
        lines = wrapped.split("\n")
        row = lines[err.lineno - 1] if err.lineno and 0 < err.lineno <= len(lines) else ""
        rest = row[(err.offset or 1) - 1:] + "".join(lines[err.lineno:] if err.lineno else [])
        if rest.strip() in ("", ")"):
            return "the formula ends where a number or name was expected"
        dotted = re.search(r"(?<![\w.])([A-Za-z_]\w*)\.([A-Za-z_]\w*)", wrapped)
        if dotted is not None and keyword.iskeyword(dotted.group(1)):  # `try.total`, a call `as: try`
            return (f"'{dotted.group(0)}' is not a name: a call's values are written "
                    f"'{dotted.group(1)}_{dotted.group(2)}'")
        return "this is not a formula: check for a missing operator or bracket"
    if msg.startswith("invalid syntax. Perhaps you forgot a comma"):
        return "two values stand side by side; put an operator between them"
    if msg == "invalid decimal literal":
        return "a number runs into letters (dice such as 1d6 belong in roll steps, not formulas)"
    # Line numbers inside the message would count the added bracket; drop them.
    return re.sub(r" \(detected at line \d+\)", "", msg)


def _statement_error(source: Source) -> FormulaSyntaxError | None:
    """A clear message when the text is a statement (``import os``, ``x = 1``) rather than an expression."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = ast.parse(source.text, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for index, stmt in enumerate(module.body):
        if isinstance(stmt, ast.Expr):
            if index:
                return FormulaSyntaxError(
                    "a formula must be a single expression", _text_node_at(source, stmt)
                )
            continue
        message = _STATEMENT_MESSAGES.get(type(stmt), "statements are not allowed")
        return FormulaSyntaxError(message, _text_node_at(source, stmt))
    return None


def _text_node_at(source: Source, node: ast.AST) -> Location:
    """Position of a node parsed from the unwrapped text."""
    return source.at_wrapped(node.lineno + 1, node.col_offset, in_bytes=True)  # type: ignore[attr-defined]
