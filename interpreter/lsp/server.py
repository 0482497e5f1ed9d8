"""`rules lsp`: the language server, over stdio, built on pygls (the Python library for the protocol).

Every answer comes from the library itself: diagnostics from the validator and the sheet checks,
hovers from the compiled ruleset and its exact odds, completions from the schema and the
ruleset's names, definitions from the positions the loader kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import threading
import time
from typing import Any

from lsprotocol import types
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from interpreter.lsp import completion, hover, navigation
from interpreter.lsp.checks import Report
from interpreter.lsp.context import place
from interpreter.lsp.session import Session
from interpreter.lsp.spans import word_at
from interpreter.lsp.transport import MAX_FRAME, Protocol, serve_frames
from interpreter.ruleset.model import CompiledRuleset

__all__ = ["HOVER_SECONDS", "make_server", "serve"]

HOVER_SECONDS = 3.0  # a hover's odds stop being computed after this long (each sample is bounded on its own too)
OUT_OF_TIME = "not computed: the hover ran out of time (`rules odds` computes it)"


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rulesmith-rpg")
    except PackageNotFoundError:
        return "0"


def _schema(kind: str) -> dict[str, Any]:
    from interpreter.load.schema import schema

    return schema("overlay.schema.json" if kind == "overlay" else "ruleset.schema.json")


class _Server(LanguageServer):
    session: Session


# Above the complexity gate (C901): one nested handler per editor feature, each a few lines.
def make_server() -> LanguageServer:  # noqa: C901
    """A language server for rulesets, overlays and sheets, its features registered."""
    server = _Server("rulesmith", _version(), text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                     protocol_cls=Protocol)
    session = server.session = Session(server)
    hovering: dict[str, threading.Event] = {}  # uri -> the flag that stops its running hover

    def cursor(uri: str, position: types.Position) -> tuple[list[str], int, int] | None:
        """The lines of an open file and the cursor's line and column in it (None for a file not open)."""
        document = server.workspace.text_documents.get(uri)
        lines = session.lines(uri) if document is not None else []
        row = position.line
        if not lines or not 0 <= row < len(lines):
            return None
        col = document.position_from_client_units(position).character if document is not None else 0
        return lines, row, col

    def names(uri: str) -> CompiledRuleset | None:
        """The ruleset whose names a file's features offer: this text's, else its last valid text's."""
        report = session.reports.get(uri)
        known = report.names if report is not None else None
        last = session.good.get(uri)
        return known or (last.ruleset if last is not None else None)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        session.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        document = server.workspace.text_documents.get(uri)
        size = len(document.source) if document is not None else 0
        if size > MAX_FRAME:  # grown by edits past what one message may bring: not kept
            session.too_big(types.TEXT_DOCUMENT_DID_CHANGE, uri, size)
            return
        session.schedule(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        session.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        session.closed(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    def code_action(ls: LanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        actions = []
        for diagnostic in params.context.diagnostics:
            data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
            fix = data.get("replace")
            if not isinstance(fix, str) or diagnostic.source != "rules":
                continue
            edit = types.WorkspaceEdit(changes={params.text_document.uri: [types.TextEdit(diagnostic.range, fix)]})
            actions.append(types.CodeAction(title=f"Change to '{fix}'", kind=types.CodeActionKind.QuickFix,
                                            diagnostics=[diagnostic], edit=edit, is_preferred=True))
        return actions

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: LanguageServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        at = cursor(uri, params.position)
        ruleset = names(uri)
        if at is None or ruleset is None:
            return None
        lines, row, col = at
        text = lines[row]
        word = word_at(text, col)[0]
        report = session.reports.get(uri)
        base = report.base if report is not None else None
        stop = threading.Event()
        previous = hovering.pop(uri, None)
        if previous is not None:
            previous.set()  # a hover of the same file that is still computing is not wanted any more
        hovering[uri] = stop
        deadline = time.monotonic() + HOVER_SECONDS

        def odds(procedure: str, args: dict[str, str]) -> str:
            from interpreter.lsp.odds import odds_line

            if stop.is_set() or time.monotonic() > deadline:
                return OUT_OF_TIME
            return odds_line(ruleset, procedure, args)

        def answer() -> str | None:
            layers = getattr(report.merged, "layers", ())[1:] if report is not None else ()
            bases = [(layer.file, session.file_lines(from_fs_path(layer.source) or layer.source))
                     for layer in layers if layer.source]
            return hover.hover_text(ruleset, word, place(lines, row, col), text, lines, odds, base, bases)

        try:
            found = await session.hover(answer)
        except asyncio.CancelledError:
            stop.set()
            raise
        finally:
            if hovering.get(uri) is stop:
                del hovering[uri]
        if found is None:
            return None
        return types.Hover(types.MarkupContent(kind=types.MarkupKind.Markdown, value=found))

    @server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=[" ", "(", "{"]))
    def on_completion(ls: LanguageServer, params: types.CompletionParams) -> types.CompletionList:
        uri = params.text_document.uri
        at = cursor(uri, params.position)
        if at is None:
            return types.CompletionList(is_incomplete=False, items=[])
        lines, row, col = at
        here = place(lines, row, col)
        report = session.reports.get(uri) or session.good.get(uri)
        kind = report.kind if report is not None else "ruleset"
        items: list[tuple[str, str]] = []
        if here.key in ("extends",) or kind == "sheet" and here.key == "ruleset":
            items = completion.ruleset_ids()
        elif kind == "overlay" and here.keys == ("constants",) and here.at_key:
            base = report.base if report is not None else None
            items = completion.base_constants(base) if base is not None else []
        elif here.at_key and "with" not in (here.key, *here.keys[-1:]) and kind != "sheet":
            items = completion.keys_at(_schema(kind), here)
        else:
            known = names(uri)
            if known is not None:
                items = completion.names_at(known, here, lines, row, _written_params(report))
        return types.CompletionList(is_incomplete=False, items=[
            types.CompletionItem(label=name, detail=detail or None) for name, detail in items])

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def on_definition(ls: LanguageServer, params: types.DefinitionParams) -> types.Location | None:
        uri = params.text_document.uri
        at = cursor(uri, params.position)
        if at is None:
            return None
        lines, row, col = at
        text = lines[row]
        report = session.reports.get(uri)
        path = to_fs_path(uri) or ""
        if text.startswith("extends:") or report is not None and report.kind == "sheet" and text.startswith("ruleset:"):
            known = report.doc if report is not None and report.doc is not None else None
            if known is not None and report is not None and report.kind == "sheet":
                return navigation.base_of(known, path, "ruleset")
            return navigation.base_of(known, path) if known is not None else None
        doc = (report.merged or report.doc) if report is not None else None
        if doc is None:
            last = session.good.get(uri)
            doc = last.merged if last is not None else None
        if doc is None:
            return None
        return navigation.definition(doc, word_at(text, col)[0], place(lines, row, col))

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    def on_references(ls: LanguageServer, params: types.ReferenceParams) -> list[types.Location]:
        uri = params.text_document.uri
        at = cursor(uri, params.position)
        if at is None:
            return []
        lines, row, col = at
        word = word_at(lines[row], col)[0]
        return navigation.references(uri, lines, word) if word else []

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def on_symbols(ls: LanguageServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
        uri = params.text_document.uri
        report = session.reports.get(uri) or session.good.get(uri)
        if report is None or report.doc is None or not session.is_open(uri):
            return []
        return navigation.outline(report.doc, session.lines(uri))

    return server


def _written_params(report: Report | None) -> dict[str, dict[str, object]]:
    """The parameters of each procedure as the file writes them (procedure -> name -> spec)."""
    data = report.doc.data if report is not None and report.doc is not None else None
    procedures = data.get("procedures") if isinstance(data, dict) else None
    if not isinstance(procedures, dict):
        return {}
    return {str(name): spec["params"] for name, spec in procedures.items()
            if isinstance(spec, dict) and isinstance(spec.get("params"), dict)}


def serve() -> None:
    """Run the server on standard input and output until the editor ends it, then end the process.

    The process ends at once (a check still running on a worker thread is not waited for), with 0 after
    `shutdown` and `exit` or the end of the input, 1 after `exit` alone or a frame that cannot be followed.
    """
    for name in ("pygls", "interpreter.lsp"):  # a message the server could not handle is answered, not logged
        logging.getLogger(name).addHandler(logging.NullHandler())
        logging.getLogger(name).propagate = False
    server = make_server()
    assert isinstance(server, _Server)
    server._stop_event = threading.Event()
    server.protocol.set_writer(StdoutWriter(sys.stdout.buffer))
    try:
        code = asyncio.run(serve_frames(server, sys.stdin.buffer, server.session.too_big))
    except SystemExit as end:
        code = end.code if isinstance(end.code, int) else 0
    except BrokenPipeError:
        code = 0
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)
