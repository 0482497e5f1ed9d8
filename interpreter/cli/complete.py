"""Shell completion of ruleset ids, procedure names and NAME= parameters (bash, zsh and fish).

Click asks these functions while the user presses Tab; a ruleset that does not load simply
completes nothing, since a completion must never print an error.  A request that no shell makes
(``_RULES_COMPLETE=bash_complete`` without ``COMP_WORDS``, or a ``COMP_CWORD`` that is no number)
ends in one line and exit code 2, never a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from interpreter.errors import RulesError
from interpreter.load.bundled import bundled_ids

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem


def _item(value: str, help: str | None = None) -> CompletionItem:
    """One completion (click's completion module is imported only when Tab is pressed)."""
    from click.shell_completion import CompletionItem

    return CompletionItem(value, help=help)


def _ruleset(ctx: click.Context) -> Any:
    from interpreter.pipeline import compile_ref

    ref = ctx.params.get("ruleset") or ctx.params.get("target")
    if not isinstance(ref, str):
        return None
    try:
        return compile_ref(ref)
    except (RulesError, OSError):
        return None


def rulesets(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Bundled ruleset ids, then YAML files, that start with what was typed."""
    from pathlib import Path  # (only completing needs it; a command's start does not)

    items = [_item(i) for i in bundled_ids() if i.startswith(incomplete)]
    folder = Path(incomplete).parent if "/" in incomplete else Path(".")
    try:
        files = sorted(folder.iterdir())
    except OSError:
        files = []
    for path in files:
        shown = str(path) if "/" in incomplete else path.name
        if shown.startswith(incomplete) and path.suffix in (".yaml", ".yml"):
            items.append(_item(shown))
    return items


def procedures(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """The procedures of the ruleset already typed."""
    rs = _ruleset(ctx)
    if rs is None:
        return []
    return [_item(name, help=proc.summary) for name, proc in rs.procedures.items()
            if name.startswith(incomplete)]


def parameters(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """`NAME=` for each parameter of the procedure not given yet, and the words a choice accepts."""
    rs = _ruleset(ctx)
    proc = rs.procedures.get(ctx.params.get("procedure") or "") if rs is not None else None
    if proc is None:
        return []
    if "=" in incomplete:
        name, _, value = incomplete.partition("=")
        found = next((p for p in proc.params if p.name == name), None)
        if found is None:
            return []
        words = list(found.options) or (["true", "false"] if found.type == "flag" else [])
        return [_item(f"{name}={w}") for w in words if w.startswith(value)]
    given = {str(a).partition("=")[0] for a in ctx.params.get("params") or ()}
    return [_item(f"{p.name}=", help=p.help) for p in proc.params
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


__all__ = ["guarded", "parameters", "procedures", "rulesets"]
