"""The open files of one editor and what checking them found, turned into the diagnostics it shows.

Checks run one at a time on a worker thread, so the server keeps answering (hover, completion)
while one runs; edits that arrive meanwhile are checked together once it ends.  A problem is
shown in the file that has it: an overlay's problem in its base appears in the base, and the
overlay gets one line at its ``extends:`` saying where to look (a sheet likewise at its
``ruleset:``).
"""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from interpreter.errors import RulesError, one_line
from interpreter.lsp.checks import DocumentChecks, Report
from interpreter.lsp.spans import replacement, span

__all__ = ["Session", "problem_text"]

SOURCE = "rules"


def problem_text(problem: RulesError) -> str:
    """A problem's message as `rules validate` prints it after FILE:LINE:COL: PATH: (with its hint)."""
    return one_line(f"{problem.message}; {problem.hint}" if problem.hint else problem.message)


class Session:
    """The open files, their latest reports, and the diagnostics published for every file."""

    def __init__(self, server: LanguageServer) -> None:
        self.server = server
        self.checker = DocumentChecks()
        self.reports: dict[str, Report] = {}  # uri -> the latest report
        self.good: dict[str, Report] = {}  # uri -> the latest report with a compiled ruleset
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rules-check")
        self._running: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._own: dict[str, list[types.Diagnostic]] = {}  # uri -> from checking that file
        self._through: dict[str, dict[str, list[types.Diagnostic]]] = {}  # uri -> checked uri -> found there

    # ------------------------------------------------------------------ texts
    def text(self, uri: str) -> str:
        """The text of a file: the editor's when it is open, else what is saved."""
        document = self.server.workspace.text_documents.get(uri)
        if document is not None:
            return str(document.source)
        path = to_fs_path(uri) or uri
        try:
            with open(path, encoding="utf-8") as handle:
                return handle.read()
        except (OSError, UnicodeDecodeError):
            return ""

    def lines(self, uri: str) -> list[str]:
        return self.text(uri).splitlines()

    def open_texts(self) -> dict[str, str]:
        """The text of every open file, by real path."""
        out = {}
        for uri, document in self.server.workspace.text_documents.items():
            path = to_fs_path(uri)
            if path:
                out[os.path.realpath(path)] = document.source
        return out

    async def run(self, call: Any, *args: Any) -> Any:
        """Run a function on the worker thread (checks and odds never run two at a time)."""
        return await asyncio.get_running_loop().run_in_executor(self.worker, call, *args)

    # ------------------------------------------------------------------ checks
    def schedule(self, uri: str, follow: bool = True) -> None:
        """Check a file soon (again, if a check of it is running); with ``follow``, then the files that use it."""
        if uri in self._running:
            self._again.add(uri)
            return
        self._running[uri] = asyncio.ensure_future(self._check(uri, follow))

    async def _check(self, uri: str, follow: bool) -> None:
        try:
            while True:
                self._again.discard(uri)
                path = to_fs_path(uri)
                if path is None or uri not in self.server.workspace.text_documents:
                    return
                report = await self.run(self.checker.check, path, self.text(uri), self.open_texts())
                if uri in self._again:
                    continue
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

    def closed(self, uri: str) -> None:
        """Forget a file the editor closed, and clear what was shown for it."""
        path = to_fs_path(uri)
        if path:
            self.checker.forget(path)
        self.reports.pop(uri, None)
        self.good.pop(uri, None)
        self._own.pop(uri, None)
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
        own: list[types.Diagnostic] = []
        for problem in report.problems.get(own_path, []):
            own.append(self.diagnostic(self.lines(uri), problem, types.DiagnosticSeverity.Error))
        for warning in report.warnings:
            own.append(self.diagnostic(self.lines(uri), RulesError(warning.message, warning.where),
                                       types.DiagnosticSeverity.Warning))
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
            lines = self.lines(target)
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
            lines = self.lines(from_fs_path(path) or path)
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
        data: dict[str, Any] = {"path": problem.where.path if problem.where else ""}
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


def _range(line: int, start: int, end: int) -> types.Range:
    return types.Range(types.Position(line, start), types.Position(line, end))
