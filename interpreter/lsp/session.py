"""The open files of one editor and what checking them found, turned into the diagnostics it shows.

The texts are what the editor sent: a file that is not open is never read for a request.  Only
the diagnostics and hovers that point into a file an open one uses (an overlay's base) read it,
and only a regular file under the workspace, the ruleset folders or the bundled rulesets, within
the size limit.

Checks run on worker threads, one at a time per file and several files at once, so one costly file
never holds back the diagnostics of another, and the server keeps answering (hover, completion)
while they run; edits that arrive meanwhile are checked together once the running check ends, whose
report is then dropped.  A check is stopped when a newer text of its file arrives (the newer text is then
checked) and after limits.MAX_CHECK_SECONDS of CPU time, when the file gets one line saying so
(:mod:`interpreter.lsp.stopping`).  Hovers run on threads of their own.  A problem is shown in the file that
has it: an overlay's problem in its base appears in the base, and the overlay gets one line at its
``extends:`` saying where to look (a sheet likewise at its ``ruleset:``).
"""

from __future__ import annotations

import asyncio
import functools
import os
import stat
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from interpreter import limits
from interpreter.errors import Location, RulesError, one_line
from interpreter.lsp.checks import DocumentChecks, Report
from interpreter.lsp.spans import replacement, span
from interpreter.lsp.stopping import Stoppable

__all__ = ["Session", "problem_text"]

SOURCE = "rules"
T = TypeVar("T")
CHECKERS = 3  # files checked at once
MAX_DIAGNOSTICS = 500  # problems shown in one file (an editor's list is no use past that)


def problem_text(problem: RulesError) -> str:
    """A problem's message as `rules validate` prints it after FILE:LINE:COL: PATH: (with its hint)."""
    return one_line(f"{problem.message}; {problem.hint}" if problem.hint else problem.message)


class Session:
    """The open files, their latest reports, and the diagnostics published for every file."""

    def __init__(self, server: LanguageServer) -> None:
        self.server = server
        self.checkers: dict[str, DocumentChecks] = {}  # uri -> what is kept of that file's checks
        self.reports: dict[str, Report] = {}  # uri -> the latest report
        self.good: dict[str, Report] = {}  # uri -> the latest report with a compiled ruleset
        self.worker = ThreadPoolExecutor(max_workers=CHECKERS, thread_name_prefix="rules-check")
        self.hovers = ThreadPoolExecutor(max_workers=2, thread_name_prefix="rules-hover")
        self._running: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._checking: dict[str, Stoppable[Report]] = {}  # uri -> its running check, to stop when superseded
        self._own: dict[str, list[types.Diagnostic]] = {}  # uri -> from checking that file
        self._through: dict[str, dict[str, list[types.Diagnostic]]] = {}  # uri -> checked uri -> found there

    # ------------------------------------------------------------------ texts
    def is_open(self, uri: str) -> bool:
        return uri in self.server.workspace.text_documents

    def text(self, uri: str) -> str:
        """The text of an open file as the editor sent it; empty for a file that is not open."""
        document = self.server.workspace.text_documents.get(uri)
        return str(document.source) if document is not None else ""

    def lines(self, uri: str) -> list[str]:
        """The lines of an open file (none for a file over the size limit, which is never checked line by line)."""
        text = self.text(uri)
        return text.splitlines() if len(text) <= limits.MAX_FILE_BYTES else []

    def roots(self) -> list[str]:
        """The folders a file may be read from when it is not open: the workspace's, the folders of the open files
        (where the loader finds what they name), the ruleset folders and the bundled rulesets."""
        from interpreter.load.bundled import rulesets_folder
        from interpreter.load.find import user_folders

        workspace = self.server.workspace
        found = [workspace.root_path] + [to_fs_path(f.uri) for f in workspace.folders.values()]
        found += [os.path.dirname(to_fs_path(uri) or "") for uri in list(workspace.text_documents)]
        return [os.path.realpath(p) for p in {*found, *user_folders(), rulesets_folder()} if p]

    def file_lines(self, uri: str) -> list[str]:
        """The lines of a file an open one uses: the editor's text when it is open, else the saved file, when it
        is a regular file under :meth:`roots` within the size limit (else none)."""
        if self.is_open(uri):
            return self.lines(uri)
        path = to_fs_path(uri)
        real = os.path.realpath(path) if path else ""
        if not real or not any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in self.roots()):
            return []
        try:
            handle = os.open(real, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens without waiting, then is refused
        except OSError:
            return []
        with os.fdopen(handle, "rb") as saved:
            info = os.fstat(saved.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > limits.MAX_FILE_BYTES:
                return []
            data = saved.read(limits.MAX_FILE_BYTES + 1)
        try:
            return data.decode("utf-8").splitlines() if len(data) <= limits.MAX_FILE_BYTES else []
        except UnicodeDecodeError:
            return []

    def open_texts(self) -> dict[str, str]:
        """The text of every open file within the size limit, by real path."""
        out = {}
        for uri, document in list(self.server.workspace.text_documents.items()):
            path = to_fs_path(uri)
            source = document.source
            if path and len(source) <= limits.MAX_FILE_BYTES:
                out[os.path.realpath(path)] = source
        return out

    async def run(self, call: Callable[..., T], *args: object) -> T:
        """Run a function on a check thread."""
        return await asyncio.get_running_loop().run_in_executor(self.worker, call, *args)

    async def hover(self, call: Callable[..., T], *args: object) -> T:
        """Run a function on a hover thread."""
        return await asyncio.get_running_loop().run_in_executor(self.hovers, call, *args)

    def too_big(self, method: str, uri: str, length: int) -> None:
        """A file sent in a message too big to read, or grown past it by edits: forget it and say so at its first line."""
        if method not in (types.TEXT_DOCUMENT_DID_OPEN, types.TEXT_DOCUMENT_DID_CHANGE):
            return
        if self.is_open(uri):
            self.server.workspace.remove_text_document(uri)
        problem = RulesError(f"this file's text ({length} bytes as sent) is more than the server reads; "
                             f"a ruleset may have {limits.MAX_FILE_BYTES} bytes", Location(line=1, col=1))
        self.closed(uri, [self.diagnostic([], problem, types.DiagnosticSeverity.Error)])

    # ------------------------------------------------------------------ checks
    def schedule(self, uri: str, follow: bool = True) -> None:
        """Check a file soon (again, if a check of it is running); with ``follow``, then the files that use it."""
        if uri in self._running:
            self._again.add(uri)
            running = self._checking.get(uri)
            if running is not None:
                running.stop("superseded")  # its report would be dropped: the newer text is checked at once
            return
        self._running[uri] = asyncio.ensure_future(self._check(uri, follow))

    async def _check(self, uri: str, follow: bool) -> None:
        failed = False
        try:
            while True:
                self._again.discard(uri)
                path = to_fs_path(uri)
                if path is None or uri not in self.server.workspace.text_documents:
                    return
                checker = self.checkers.setdefault(uri, DocumentChecks())
                text = self.text(uri)
                check = self._checking[uri] = Stoppable(functools.partial(checker.check, path, text,
                                                                          self.open_texts()))
                running = asyncio.ensure_future(self.run(check.call))
                watching = asyncio.ensure_future(check.watch(running))
                try:
                    found = await running
                except Exception:  # a failure of the check itself, not of the file: checked afresh once more
                    if failed:
                        raise
                    failed = True
                    self.checkers[uri] = DocumentChecks()
                    continue
                finally:
                    watching.cancel()
                    self._checking.pop(uri, None)
                if uri in self._again:
                    continue
                report = found if found is not None else _stopped(path, text)
                if uri in self.server.workspace.text_documents:
                    self._publish(uri, report)
                break
        finally:
            self._running.pop(uri, None)
        if follow and report.kind != "sheet":
            for other in list(self.server.workspace.text_documents):
                known = self.reports.get(other)
                if other != uri and known is not None and known.kind in ("overlay", "sheet"):
                    self.schedule(other, follow=False)

    def closed(self, uri: str, instead: list[types.Diagnostic] | None = None) -> None:
        """Forget a file the editor closed, and clear what was shown for it (showing ``instead``, when given)."""
        running = self._checking.get(uri)
        if running is not None:
            running.stop("closed")  # its report would not be shown
        self.checkers.pop(uri, None)
        self.reports.pop(uri, None)
        self.good.pop(uri, None)
        self._own.pop(uri, None)
        if instead:
            self._own[uri] = instead
        for target in list(self._through):
            self._through[target].pop(uri, None)
            self._send(target)
        self._send(uri)

    # ------------------------------------------------------------------ diagnostics
    def _publish(self, uri: str, report: Report) -> None:
        self.reports[uri] = report
        if report.ruleset is not None:
            self.good[uri] = report
        own_path = report.path
        lines = self.lines(uri)
        own: list[types.Diagnostic] = []
        problems = report.problems.get(own_path, [])
        for problem in problems[:MAX_DIAGNOSTICS]:
            own.append(self.diagnostic(lines, problem, types.DiagnosticSeverity.Error))
        if len(problems) > MAX_DIAGNOSTICS:
            more = RulesError(f"{len(problems) - MAX_DIAGNOSTICS} more problems are not shown; `rules validate` "
                              "lists them all", Location(line=1, col=1))
            own.append(self.diagnostic(lines, more, types.DiagnosticSeverity.Error))
        for warning in report.warnings:
            if not warning.where or not (warning.where.source or warning.where.file) or os.path.realpath(
                    warning.where.source or warning.where.file) == own_path:
                own.append(self.diagnostic(lines, warning, types.DiagnosticSeverity.Warning))
        elsewhere = {path: found for path, found in report.problems.items() if path != own_path}
        if elsewhere and report.doc is not None:
            own.append(self._pointer(uri, report, elsewhere))
        self._own[uri] = own
        touched = set()
        for target in list(self._through):
            if uri in self._through[target]:
                del self._through[target][uri]
                touched.add(target)
        for path, found in elsewhere.items():
            target = from_fs_path(path) or path
            lines = self.file_lines(target)
            self._through.setdefault(target, {})[uri] = [
                self.diagnostic(lines, p, types.DiagnosticSeverity.Error) for p in found]
            touched.add(target)
        self._send(uri)
        for target in touched - {uri}:
            self._send(target)

    def _pointer(self, uri: str, report: Report, elsewhere: dict[str, list[RulesError]]) -> types.Diagnostic:
        """One line at `extends:` (or a sheet's `ruleset:`) naming the problems found in the files it uses."""
        assert report.doc is not None
        key = "extends" if report.kind == "overlay" else "ruleset"
        where = report.doc.where((key,))
        count = sum(len(found) for found in elsewhere.values())
        first = next(iter(elsewhere.values()))[0]
        text = f"{count} problem{'s' if count != 1 else ''} in what this file uses; the first: {first}"
        related = []
        for path, found in elsewhere.items():
            lines = self.file_lines(from_fs_path(path) or path)
            for problem in found:
                line, start, end = span(lines, problem)
                row = lines[line] if line < len(lines) else ""
                stretch = _range(line, self._units(row, start), self._units(row, end))
                related.append(types.DiagnosticRelatedInformation(
                    types.Location(from_fs_path(path) or path, stretch), problem_text(problem)))
        diagnostic = self.diagnostic(self.lines(uri), RulesError(text, where), types.DiagnosticSeverity.Error)
        diagnostic.related_information = related
        diagnostic.code = "elsewhere"
        return diagnostic

    def diagnostic(self, lines: list[str], problem: RulesError, severity: types.DiagnosticSeverity) -> types.Diagnostic:
        """A problem as a diagnostic: its message and hint, the range of what it is about, its quick fix."""
        line, start, end = span(lines, problem)
        data: dict[str, object] = {"path": problem.where.path if problem.where else ""}
        fix = replacement(problem)
        if fix is not None:
            data["replace"] = fix
        row = lines[line] if line < len(lines) else ""
        return types.Diagnostic(range=_range(line, self._units(row, start), self._units(row, end)),
                                message=problem_text(problem), severity=severity, source=SOURCE, data=data)

    def _units(self, row: str, col: int) -> int:
        """A column in the client's units (UTF-16 unless it asked otherwise)."""
        return int(self.server.workspace.position_codec.client_num_units(row[:col]))

    def _send(self, uri: str) -> None:
        found = list(self._own.get(uri, []))
        for diagnostics in self._through.get(uri, {}).values():
            found.extend(d for d in diagnostics if d not in found)
        self.server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=found))


def _stopped(path: str, text: str) -> Report:
    """The report of a check stopped for its time: one line at the top of the file saying so."""
    from interpreter.lsp.checks import kind_of, shown_path

    kind = kind_of(text) or "other"
    command = "rules sheet check" if kind == "sheet" else "rules validate"
    problem = RulesError(f"the check of this file was stopped: it took more than {limits.MAX_CHECK_SECONDS:g} s "
                         f"of CPU time, the most an editor's check may take; `{command} {shown_path(path)}` checks it "
                         "in full", Location(line=1, col=1))
    return Report(os.path.realpath(path), kind, {os.path.realpath(path): [problem]})


def _range(line: int, start: int, end: int) -> types.Range:
    return types.Range(types.Position(line, start), types.Position(line, end))
