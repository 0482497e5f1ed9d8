"""Shell completion: ruleset ids and files, sheets, procedure names, `NAME=` parameters and their values.

Click asks these functions while the user presses Tab (bash, zsh and fish: see shells.py); a
ruleset that does not load simply completes nothing, since a completion must never print an
error. Paths complete folder by folder: a folder is offered with its `/`, then the files in it
that fit (rulesets where a ruleset is asked for, sheets where a sheet is). A request that no
shell makes (``_RULES_COMPLETE=bash_complete`` without ``COMP_WORDS``, or a ``COMP_CWORD`` that
is no number) ends in one line and exit code 2, never a traceback.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from interpreter.errors import RulesError
from interpreter.load.bundled import bundled_ids

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem

    from interpreter.ruleset.model import CompiledRuleset, Param

__all__ = ["guarded", "parameters", "procedures", "rulesets", "sheets"]

# A ruleset names its procedures or the ruleset it extends; a sheet names its ruleset and has neither.
# (patterns kept as text: `re` compiles one when it is first used, not at every start)
_RULESET_KEY = rb"(?m)^(?:procedures|extends)[ \t]*:"
_SHEET_KEY = rb"(?m)^ruleset[ \t]*:"
_PEEK = 64 * 1024  # enough of a file to tell a ruleset from a sheet


def _item(value: str, help: str | None = None) -> CompletionItem:
    """One completion (click's completion module is imported only when Tab is pressed)."""
    from click.shell_completion import CompletionItem

    return CompletionItem(value, help=help)


def _ruleset(ctx: click.Context) -> CompiledRuleset | None:
    from interpreter.pipeline import compile_ref

    ref = ctx.params.get("ruleset") or ctx.params.get("target") or ctx.params.get("house")
    if not isinstance(ref, str):
        return None
    try:
        return compile_ref(ref)
    except (RulesError, OSError, RecursionError):
        return None


def _kind_of(path: str) -> str | None:
    """'ruleset', 'sheet' or None, from the first bytes of a YAML file."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(_PEEK)
    except OSError:
        return None
    if re.search(_RULESET_KEY, head):
        return "ruleset"
    return "sheet" if re.search(_SHEET_KEY, head) else None


def _paths(incomplete: str, kind: str) -> list[CompletionItem]:
    """Folders, and YAML files of one kind, that start with what was typed (hidden ones only when asked for)."""
    folder, _, start = incomplete.rpartition("/")
    where = os.path.expanduser(folder + "/" if folder or incomplete.startswith("/") else ".")
    try:
        entries = sorted(os.scandir(where), key=lambda e: e.name)
    except OSError:
        return []
    prefix = folder + "/" if folder or incomplete.startswith("/") else ""
    items = []
    for entry in entries:
        if not entry.name.startswith(start) or (entry.name.startswith(".") and not start.startswith(".")):
            continue
        try:
            is_dir = entry.is_dir()
        except OSError:
            continue
        if is_dir:
            items.append(_item(prefix + entry.name + "/"))
        elif entry.name.endswith((".yaml", ".yml")) and _kind_of(entry.path) == kind:
            items.append(_item(prefix + entry.name))
    return items


def rulesets(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Ruleset ids (bundled, then from your ruleset folders), then folders and ruleset files that fit."""
    from interpreter.load.find import user_rulesets

    ids = bundled_ids() + sorted(set(user_rulesets()) - set(bundled_ids()))
    items = [_item(i) for i in ids if i.startswith(incomplete)]
    return items + _paths(incomplete, "ruleset")


def sheets(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Folders and character sheet files that start with what was typed."""
    return _paths(incomplete, "sheet")


def procedures(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """The procedures of the ruleset already typed."""
    from interpreter.ruleset.texts import prose  # (this module is loaded by every command; completing is rarer)

    rs = _ruleset(ctx)
    if rs is None:
        return []
    return [_item(name, help=prose(proc.summary, rs.constants)) for name, proc in rs.procedures.items()
            if name.startswith(incomplete)]


def _values(rs: CompiledRuleset, param: Param, with_sheet: bool) -> list[str]:
    """The words a parameter takes: its options, true/false, or trait names (of a trait parameter, or with a sheet)."""
    words = list(param.options)
    if param.type == "flag":
        words += ["true", "false"]
    elif param.type == "trait" or (param.type == "int" and with_sheet):
        words += list(rs.traits)
    return words


def parameters(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """`NAME=` for each parameter of the procedure not given yet, and after `NAME=` the words it takes."""
    from interpreter.ruleset.texts import prose

    rs = _ruleset(ctx)
    proc = rs.procedures.get(ctx.params.get("procedure") or "") if rs is not None else None
    if rs is None or proc is None:
        return []
    if "=" in incomplete:
        name, _, value = incomplete.partition("=")
        found = next((p for p in proc.params if p.name == name), None)
        if found is None:
            return []
        words = _values(rs, found, ctx.params.get("sheet") is not None)
        return [_item(f"{name}={w}") for w in words if w.lower().startswith(value.lower())]
    given = {str(a).partition("=")[0] for a in ctx.params.get("params") or ()}
    return [_item(f"{p.name}=", help=prose(p.help, rs.constants)) for p in proc.params
            if p.name.startswith(incomplete) and p.name not in given]


def guarded(answer: Callable[[], None]) -> None:
    """Answer a completion request (click exits when there is one); a malformed one is one line, exit 2."""
    try:
        answer()
    except Exception as err:  # noqa: BLE001  (whatever a broken request makes click raise)
        reason = f"{err} is not set" if isinstance(err, KeyError) else " ".join(str(err).split())[:200]
        sys.stderr.write(f"rules: shell completion: the request is not one a shell makes ({reason}); "
                         "see 'rules -h' for how to turn completion on\n")
        sys.exit(2)


