"""The one guard of the command line: one line per mistake, exit 1 for bad input and 2 for usage.

With `--json` anywhere on the command line, the same mistake is one JSON object on stdout
(`{"error": {"message", "file", "line", "column", "path"}}`) with the same exit code. Output that
cannot be written (closed pipe, full disk) is one line with exit 1; anything else is a bug,
reported as one line asking for a report, with exit 3 (and its traceback only under
RULESMITH_DEBUG=1).  Exit 1 means that nothing changed: when a command had already written a file
(a sheet, an exported file, a chart) before its output or a later step failed, it exits 4 instead,
and stderr says which files were changed all the same, so that a caller that retries on 1 does not
apply a change twice.

Both ways a command is read use it: the click group (``group.Group``) and the direct reading of
the everyday `rules run` and `rules odds` lines (``quick``), which does not import click.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import NoReturn, TypeVar

from interpreter.cli import output
from interpreter.errors import RulesError
from interpreter.sheet.changes import counted, written

USER_ERROR = 1
USAGE_ERROR = 2
INTERNAL_ERROR = 3
CHANGED_BUT_FAILED = 4  # a file was written, then the command failed (its output could not be written)

# Output that cannot be written (a closed pipe, a full disk) ends the command with one line.
_OUTPUT_ERRNOS = frozenset({errno.EPIPE, errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})

T = TypeVar("T")


class InternalError(Exception):
    """A bug: an exception no input should cause, shown as one line with exit code 3."""

    exit_code = INTERNAL_ERROR

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UsageMistake(Exception):
    """A command-line usage mistake a command finds in its options (two that exclude each other): exit code 2."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def usage_line(command_path: str, message: str) -> str:
    """A usage mistake as one line that says where to look for help."""
    text = " ".join(line.strip() for line in message.splitlines() if line.strip())
    return f"{command_path}: {text.rstrip('.')}; see '{command_path} -h'"


def internal(err: Exception) -> Exception:
    """The one-line report of a bug, or the exception itself (with its traceback) under RULESMITH_DEBUG=1."""
    if os.environ.get("RULESMITH_DEBUG") == "1":
        return err
    text = " ".join(f"{type(err).__name__}: {err}".split())
    return InternalError(f"internal error: {text[:300]}; please report")


def discard_output() -> None:
    """Point stdout at the null device, so that Python's flush at exit does not fail a second time."""
    with contextlib.suppress(OSError, ValueError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)


def after_changes(code: int) -> int:
    """The exit code of a failure: 4, with a line on stderr naming the files changed, when any were."""
    changed = written()
    if code != USER_ERROR or not changed:
        return code
    more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
    names = ", ".join(name.replace("\n", "\\n") for name in changed[:3]) + more
    with contextlib.suppress(OSError):
        output.echo(f"rules: the change was made all the same: {names} written", err=True)
    return CHANGED_BUT_FAILED


def _trusting_the_working_folder(argv: Sequence[str]) -> contextlib.AbstractContextManager[None]:
    """Let the files a command reads name files anywhere under the folder it runs in (a GM's campaign folder),
    not only beside themselves; the language server, whose documents come from an editor, trusts no folder."""
    from interpreter.load.find import trusting

    try:
        here = os.getcwd()
    except OSError:  # (the folder was removed meanwhile)
        return contextlib.nullcontext()
    command = next((arg for arg in argv if not arg.startswith("-")), None)
    return contextlib.nullcontext() if command == "lsp" else trusting(here)


def _claimed_ids_warned(shown: bool = True) -> None:
    """After a command that ended well: one warning per ruleset-folder file that claimed a bundled id."""
    claims = sys.modules.get("interpreter.load.claims")  # (a command that looked nothing up never imported it)
    if claims is not None:
        for line in claims.take():
            if shown:
                output.echo(f"warning: {line}", err=True)


@contextlib.contextmanager
def process(argv: Sequence[str], own: bool) -> Iterator[None]:
    """What every command runs within: the files it writes counted, the working folder trusted, the ruleset
    folders read once, and the cycle collector paused.

    A command imports most of its code as it runs and makes tens of thousands of long-lived objects and
    almost no cyclic garbage; collecting would scan them all again and again (a fifth of a cold start's
    own time) and free nothing.  When the command line is the process's own (``own``), the objects are
    frozen at the end too, so that the collection Python makes as it exits does not scan them once more.
    """
    from interpreter.load.find import one_look

    collecting = gc.isenabled()
    gc.disable()
    try:
        with counted(), _trusting_the_working_folder(argv), one_look():
            yield
    finally:
        if own:
            gc.freeze()
        if collecting:
            gc.enable()


def invoked(body: Callable[[], T], passing: tuple[type[BaseException], ...] = ()) -> T:
    """Run a command's body: an output failure becomes a user-facing line, anything unexpected a bug report.

    Exceptions of the `passing` kinds (the command line's own) go through as they are.
    """
    try:
        _claimed_ids_warned(shown=False)  # (a command run before in this process may have left some)
        result = body()
        sys.stdout.flush()  # so that an output error is reported here, not after exit
        _claimed_ids_warned()
        return result
    except (RulesError, RecursionError, UsageMistake, InternalError):
        raise
    except passing:
        raise
    except OSError as err:
        if err.errno not in _OUTPUT_ERRNOS:
            raise internal(err) from None
        discard_output()
        raise RulesError(f"cannot write the output: {err.strerror or err}") from None
    except Exception as err:  # noqa: BLE001  (the guard is there to catch what nothing else did)
        raise internal(err) from None


def fail(as_json: bool, code: int, text: str, data: dict[str, object]) -> NoReturn:
    """End the command with one line on stderr (or one JSON object on stdout) and the exit code."""
    try:
        if as_json:
            output.print_json(data)
        else:
            output.echo(text, err=True)
    except OSError:  # stdout is the broken pipe itself: the exit code is all that can be said
        discard_output()
    sys.exit(code)


def failed(err: BaseException, as_json: bool) -> NoReturn:
    """End the command for a mistake of the user's (`RulesError`, input nested too deeply) or a bug."""
    if isinstance(err, RulesError):
        if not as_json:
            output.echo_problem(err)
            sys.exit(after_changes(USER_ERROR))
        fail(as_json, after_changes(USER_ERROR), str(err), output.error_json(err))
    if isinstance(err, RecursionError):
        deep = RulesError("input nested too deeply")
        fail(as_json, after_changes(USER_ERROR), str(deep), output.error_json(deep))
    if isinstance(err, InternalError):
        fail(as_json, err.exit_code, err.message, output.usage_json(err.message))
    raise err


def aborted() -> NoReturn:
    """End a command interrupted (Ctrl-C) or cut from its input: one line, exit 1 (or 4 when a file changed)."""
    fail(False, after_changes(USER_ERROR), "aborted", {})


__all__ = ["CHANGED_BUT_FAILED", "INTERNAL_ERROR", "USAGE_ERROR", "USER_ERROR", "InternalError", "UsageMistake",
           "aborted", "discard_output", "fail", "failed", "internal", "invoked", "process", "usage_line"]
