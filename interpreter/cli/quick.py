"""The everyday `rules run`, `rules odds` and `rules roll` lines, read without click.

Importing click costs a start about as much as everything a warm `rules run` does after it, and
most lines a bot or a game master types are plain: `rules run RULESET PROCEDURE NAME=VALUE...
--seed 7 --json`. Such a line is read here, by the small grammar below, and handed to the same
body the click command calls (``run_odds``, ``rolls``), inside the same guard (``guard``): the
same output, the same one-line mistakes, the same exit codes, the same files written.

Anything the grammar does not know exactly is read by click instead, untouched: help (`-h`), an
option not in the table below or given twice, a value that is not plainly one (`--seed 1e3`,
`--times 0`, `--dice -1`, a `--sheet` that is a folder), `--` and words starting with `-`, a
group option before the command, shell completion, `python -m`, and any line on Windows (where
click expands wildcards). The grammar only declines; it never reports a mistake of its own. A
test reads random lines both ways and holds the parameters equal wherever this reading takes a
line, and runs whole commands both ways (``tests/test_quick_lines.py``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import NoReturn

from interpreter.record import record


def _whole(text: str) -> int | None:
    """A plain whole number (digits, an optional minus sign), as click's INT reads it; None for anything else."""
    digits = text.removeprefix("-")
    return int(text) if digits.isdigit() and len(digits) <= 18 else None


def _positive(text: str) -> int | None:
    value = _whole(text)
    return value if value is not None and value >= 1 else None


def _text(text: str) -> str:
    return text


def _file(text: str) -> str | None:
    """A file's path as click's `Path(dir_okay=False)` takes it: None (click says why) for a folder or a file
    that cannot be read."""
    import stat

    try:
        mode = os.stat(text).st_mode
    except (OSError, ValueError):
        return text  # (not there: the command says so, as it does after click)
    return None if stat.S_ISDIR(mode) or not os.access(text, os.R_OK) else text


@record
class Grammar:
    """One command's line: its positional names (the first `required` of them needed), the name that takes
    the remaining words (None: no more words), its flags and its options with one value (each with the
    reader of its value); and the one body the command runs (`module:function`), which its click command
    calls too."""

    positional: tuple[str, ...]
    required: int
    rest: str | None
    flags: Mapping[str, str]
    values: Mapping[str, tuple[str, Callable[[str], object]]]
    body: str


GRAMMARS: Mapping[str, Grammar] = {
    "run": Grammar(("ruleset", "procedure"), 2, "params",
                   {"--json": "as_json", "--dry-run": "dry_run", "--no-backup": "no_backup"},
                   {"--seed": ("seed", _whole), "--dice": ("given", _text), "--times": ("times", _positive),
                    "--sheet": ("sheet", _file)}, "interpreter.cli.run_odds:run"),
    "odds": Grammar(("target", "procedure"), 1, "params",
                    {"--json": "as_json", "--csv": "as_csv", "--all": "show_all", "--at-least": "at_least",
                     "--at-most": "at_most", "--outcomes": "outcomes_only"},
                    {"--where": ("where", _text), "--percentiles": ("percentiles", _text), "--sheet": ("sheet", _file)},
                    "interpreter.cli.run_odds:odds"),
    "roll": Grammar(("expr",), 1, None, {"--json": "as_json"}, {"--seed": ("seed", _whole), "--dice": ("given", _text)},
                    "interpreter.cli.rolls:roll"),
}
"""Command -> what of its line is read here (a subset of the click command's; a test holds them alike)."""


def parsed(argv: Sequence[str], environ: Mapping[str, str]) -> tuple[str, dict[str, object]] | None:
    """The command and the parameters given on the line (only those given), or None when click is to read it."""
    if not argv or argv[0] not in GRAMMARS or any(key.endswith("_COMPLETE") for key in environ):
        return None
    grammar = GRAMMARS[argv[0]]
    given: dict[str, object] = {}
    words: list[str] = []
    rest = iter(argv[1:])
    for word in rest:
        if not word.startswith("-"):
            words.append(word)
            continue
        option, equals, value = word.partition("=")
        if option in grammar.flags and not equals and grammar.flags[option] not in given:
            given[grammar.flags[option]] = True
            continue
        if option not in grammar.values or grammar.values[option][0] in given:
            return None
        if not equals:
            value = next(rest, "-")  # (none left: click says so)
        name, read = grammar.values[option]
        converted = read(value) if not value.startswith("-") or read is _whole else None
        if converted is None:
            return None
        given[name] = converted
    if len(words) < grammar.required or (grammar.rest is None and len(words) > len(grammar.positional)):
        return None
    given.update(zip(grammar.positional, words, strict=False))
    if grammar.rest is not None:
        given[grammar.rest] = tuple(words[len(grammar.positional):])
    return argv[0], given


def program_name() -> str | None:
    """The command's name as click shows it in a usage line (the file run); None under `python -m`."""
    main = sys.modules.get("__main__")
    if getattr(main, "__package__", None) not in (None, ""):
        return None
    return os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else None


def main(argv: Sequence[str]) -> None:
    """Run the line when it is one read here (and exit); return when click is to read it."""
    if os.name == "nt":  # (click expands wildcards and ~ in the words of a Windows command line)
        return
    read = parsed(argv, os.environ)
    prog = program_name()
    if read is None or prog is None:
        return
    _run(f"{prog} {read[0]}", read[0], read[1], argv)


def body_of(command: str) -> Callable[..., None]:
    """The one body of a command the grammar reads (imported now), which its click command calls too."""
    import importlib

    module, _, name = GRAMMARS[command].body.partition(":")
    body: Callable[..., None] = getattr(importlib.import_module(module), name)
    return body


def _run(path: str, command: str, given: dict[str, object], argv: Sequence[str]) -> NoReturn:
    from interpreter.cli import guard, output
    from interpreter.cli.file_warnings import telling
    from interpreter.errors import RulesError

    body = body_of(command)
    as_json = "--json" in argv
    with guard.process(argv, own=True):
        try:
            with telling():
                guard.invoked(lambda: body(**given))
        except guard.UsageMistake as err:
            line = guard.usage_line(path, err.message)
            guard.fail(as_json, guard.USAGE_ERROR, line, output.usage_json(line))
        except KeyboardInterrupt:
            output.echo("", err=True)
            guard.aborted()
        except (RulesError, RecursionError, guard.InternalError) as err:
            guard.failed(err, as_json)
    sys.exit(0)


__all__ = ["GRAMMARS", "Grammar", "body_of", "main", "parsed", "program_name"]
