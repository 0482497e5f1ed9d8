"""The one family of errors a user can cause, each carrying where it happened."""

from __future__ import annotations

from interpreter.record import field, record


@record
class Location:
    """A place in a source file: file name, 1-based line and column, and the JSON path.

    ``source`` is the path the file can be read from to show the line, when ``file`` (the
    name shown in messages) is not one; it takes no part in comparisons.
    """

    file: str = "<input>"
    line: int = 0
    col: int = 0
    path: str = ""
    source: str = field(default="", compare=False, repr=False)

    def shifted(self, cols: int) -> Location:
        """The same place moved right by a number of columns (for a spot inside a scalar)."""
        return Location(self.file, self.line, self.col + cols, self.path, self.source)

    def __str__(self) -> str:
        if self.line:
            return f"{self.file}:{self.line}:{self.col}"
        return self.file


class RulesError(Exception):
    """Something about the input is wrong."""

    def __init__(self, message: str, where: Location | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.where = where
        self.hint = hint

    def located(self, where: Location) -> RulesError:
        """This error with a location, unless it already has one."""
        if self.where is None or not self.where.line:
            self.where = where
        return self

    def __str__(self) -> str:
        text = self.message
        if self.hint:
            text = f"{text}; {self.hint}"
        if self.where is not None:
            head = str(self.where)
            if self.where.path:
                head = f"{head}: {self.where.path}"
            text = f"{head}: {text}"
        return one_line(text)


def one_line(text: str) -> str:
    """Text with line breaks and other unprintable characters escaped: an error is one line, whatever it quotes."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class RulesetLoadError(RulesError):
    """The file cannot be read as a ruleset document."""


class SchemaViolation(RulesError):
    """The document does not have the shape the schema asks for."""


class FormulaSyntaxError(RulesError):
    """A formula uses syntax that is not allowed."""


class DiceSyntaxError(RulesError):
    """A dice expression cannot be parsed."""


class UnknownName(RulesError):
    """A formula or reference names something that is not defined."""

    def __init__(self, message: str, where: Location | None = None, hint: str | None = None, name: str | None = None):
        super().__init__(message, where, hint)
        self.name = name  # the undefined name, when the error is about one name used in a formula


class UnknownStepKind(RulesError):
    """A procedure step has a kind the interpreter does not know."""


class LimitExceeded(RulesError):
    """A fixed limit (dice, size, depth, work) was reached."""


class TableMiss(RulesError):
    """No table row matches the key."""


class BadParameter(RulesError):
    """A parameter given to a procedure is missing or has the wrong type."""


class EvaluationError(RulesError):
    """A formula or procedure failed while running (division by zero, overflow, ...)."""


class Invalid(RulesError):
    """Several problems found in one document; each is kept in ``problems``."""

    def __init__(self, problems: list[RulesError], document: object = None):
        super().__init__(f"{len(problems)} problem(s)")
        self.problems = problems
        self.document = document  # the document the schema refused, when these are its problems

    def __str__(self) -> str:
        """One line, as every error's: the first problem, and how many more ``problems`` holds."""
        if not self.problems:
            return self.message
        first = str(self.problems[0])
        more = len(self.problems) - 1
        return f"{first} (and {more} more problem{'s' if more > 1 else ''})" if more else first

    def lines(self) -> list[str]:
        """Every problem's line, in order."""
        return [str(p) for p in self.problems] or [self.message]


def reported(problems: list[RulesError]) -> list[RulesError]:
    """The problems a command line shows: the first ``limits.MAX_REPORTED_PROBLEMS``, then one problem (at the
    next one's place) saying how many more there are, so that 60,000 mistakes are not 60,000 lines."""
    from interpreter import limits

    cap = limits.MAX_REPORTED_PROBLEMS
    if len(problems) <= cap:
        return problems
    more = len(problems) - cap
    return [*problems[:cap], RulesError(f"... and {more} more problem{'s' if more > 1 else ''}, not shown",
                                        problems[cap].where, "fix these first, then check again")]


class Refused(RulesError):
    """A procedure refused to act on a sheet (not enough experience, a condition forbids it)."""


# The engine's messages speak to the `rules` command, whose options they name; a program calling the
# library gave parameters instead, and hears of those (docs/api.md).
LIBRARY_WORDS: tuple[tuple[str, str], ...] = (
    (r"give --sheet FILE", "give sheet= (a sheet file's path)"),
    (r"--sheet\b", "a sheet"),
    (r"`rules run [^`]*`", "`sample(...)`"),
    (r"`rules roll [^`]*`", "`roll(expr)`"),
    (r"`rules odds[^`]*`", "`odds(...)`"),
    (r"--(dice|seed|times)\b", r"\1"),
)


def in_library_words(err: RulesError) -> RulesError:
    """The same error with the command line's words (`--sheet`, `rules roll ...`) put as the library's."""
    import re

    def said(text: str) -> str:
        for pattern, words in LIBRARY_WORDS:
            text = re.sub(pattern, words, text)
        return text

    for each in (err, *(err.problems if isinstance(err, Invalid) else ())):
        each.message = said(each.message)
        each.args = (each.message, *each.args[1:])
        if each.hint:
            each.hint = said(each.hint)
    return err
