"""The first line of a file rulesmith writes for editors: the schema it is checked against, by its installed path.

A path relative to the file would not resolve once the file is written outside the package; the
installed schema's own path does, on this machine (`rules schema KIND --path` prints it).
"""

from __future__ import annotations

import re

from interpreter.load.bundled import schema_path

__all__ = ["MODELINE", "schema_line", "with_schema_line"]

MODELINE = re.compile(r"# yaml-language-server: \$schema=[^\n]*\n")


def schema_line(kind: str) -> str:
    """The comment that names the installed schema of a kind of file (ruleset, overlay, sheet), with its line break."""
    return f"# yaml-language-server: $schema={schema_path(f'{kind}.schema.json').resolve()}\n"


def with_schema_line(text: str, kind: str) -> str:
    """A file's text with its first line naming the installed schema (replacing a schema line it starts with)."""
    found = MODELINE.match(text)
    return schema_line(kind) + (text[found.end():] if found else text)
