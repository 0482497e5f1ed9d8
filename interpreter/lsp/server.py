"""`rules lsp`: the language server, over stdio, built on pygls (the Python library for the protocol).

Every answer comes from the library itself: diagnostics from the validator and the sheet checks,
hovers from the compiled ruleset and its exact odds, completions from the schema and the
ruleset's names, definitions from the positions the loader kept.
"""

from __future__ import annotations

import os
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from interpreter.lsp import completion, hover, navigation
from interpreter.lsp.checks import Report
from interpreter.lsp.context import place
from interpreter.lsp.session import Session
from interpreter.lsp.spans import word_at

__all__ = ["make_server", "serve"]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rulesmith")
    except PackageNotFoundError:
        return "0"


def _schema(kind: str) -> dict[str, Any]:
    from interpreter.load.schema import schema

    return schema("overlay.schema.json" if kind == "overlay" else "ruleset.schema.json")


# Above the complexity gate (C901): one nested handler per LSP feature.
def make_server() -> LanguageServer:  # noqa: C901
    """A language server for rulesets, overlays and sheets, its features registered."""
    server = LanguageServer("rulesmith", _version(), text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
    session = Session(server)

    def cursor(uri: str, position: types.Position) -> tuple[list[str], int, int]:
        lines = session.lines(uri)
        row = position.line
        document = server.workspace.get_text_document(uri)
        col = document.position_from_client_units(position).character if row < len(lines) else 0
        return lines, row, col

    def good(uri: str) -> Report | None:
        return session.good.get(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        session.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        session.schedule(params.text_document.uri)

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
        report = good(uri)
        if report is None or report.ruleset is None:
            return None
        lines, row, col = cursor(uri, params.position)
        text = lines[row] if row < len(lines) else ""
        word = word_at(text, col)[0]
        ruleset = report.ruleset
        base = _base_ruleset(report)

        def odds(procedure: str, args: dict[str, str]) -> str:
            from interpreter.lsp.odds import odds_line

            return odds_line(ruleset, procedure, args)

        bases = [(layer.file, session.lines(from_fs_path(layer.source) or layer.source))
                 for layer in getattr(report.merged, "layers", ())[1:] if layer.source]
        answer = await session.run(hover.hover_text, ruleset, word, place(lines, row, col), text, lines, odds, base,
                                   bases)
        if answer is None:
            return None
        return types.Hover(types.MarkupContent(kind=types.MarkupKind.Markdown, value=answer))

    @server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=[" ", "(", "{"]))
    def on_completion(ls: LanguageServer, params: types.CompletionParams) -> types.CompletionList:
        uri = params.text_document.uri
        lines, row, col = cursor(uri, params.position)
        here = place(lines, row, col)
        report = session.reports.get(uri) or good(uri)
        kind = report.kind if report is not None else "ruleset"
        items: list[tuple[str, str]] = []
        if here.key in ("extends",) or kind == "sheet" and here.key == "ruleset":
            items = completion.ruleset_ids()
        elif here.at_key and "with" not in (here.key, *here.keys[-1:]) and kind != "sheet":
            items = completion.keys_at(_schema(kind), here)
        else:
            known = good(uri)
            if known is not None and known.ruleset is not None:
                items = completion.names_at(known.ruleset, here, lines, row)
        return types.CompletionList(is_incomplete=False, items=[
            types.CompletionItem(label=name, detail=detail or None) for name, detail in items])

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def on_definition(ls: LanguageServer, params: types.DefinitionParams) -> types.Location | None:
        uri = params.text_document.uri
        lines, row, col = cursor(uri, params.position)
        text = lines[row] if row < len(lines) else ""
        report = session.reports.get(uri)
        path = to_fs_path(uri) or ""
        if text.startswith("extends:") or report is not None and report.kind == "sheet" and text.startswith("ruleset:"):
            known = report.doc if report is not None and report.doc is not None else None
            if known is not None and report is not None and report.kind == "sheet":
                return navigation.base_of(known, path, "ruleset")
            return navigation.base_of(known, path) if known is not None else None
        known_good = good(uri)
        if known_good is None or known_good.merged is None:
            return None
        return navigation.definition(known_good.merged, word_at(text, col)[0], place(lines, row, col))

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    def on_references(ls: LanguageServer, params: types.ReferenceParams) -> list[types.Location]:
        uri = params.text_document.uri
        lines, row, col = cursor(uri, params.position)
        word = word_at(lines[row] if row < len(lines) else "", col)[0]
        return navigation.references(uri, lines, word) if word else []

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def on_symbols(ls: LanguageServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
        uri = params.text_document.uri
        report = session.reports.get(uri) or good(uri)
        if report is None or report.doc is None:
            return []
        return navigation.outline(report.doc, session.lines(uri))

    return server


def _base_ruleset(report: Report) -> Any:
    """The compiled base of an overlay (None for a ruleset that extends nothing)."""
    from interpreter.errors import RulesError
    from interpreter.pipeline import compile_ref

    ruleset = report.ruleset
    if ruleset is None or ruleset.extends is None or report.doc is None:
        return None
    ref = report.doc.data.get("extends")
    try:
        return compile_ref(ref, relative_to=os.path.dirname(report.path)) if isinstance(ref, str) else None
    except RulesError:
        return None


def serve() -> None:
    """Run the server on standard input and output until the editor ends it."""
    import sys

    make_server().start_io()
    if sys.stdout.closed:  # the server closes its output as it ends: nothing is left to flush there
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (it lives as long as the process)
