"""`rules lsp` hovers over traits, constants and dice, references, the outline, and completion in `call:`,
`with:` and `extends:`, driven by pytest-lsp (the server of tests/test_lsp.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from test_lsp import HOUSE, SERVER, bundled, opened, write

from interpreter.load.bundled import bundled_ids
from interpreter.load.yaml import load_text


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), scope="module")  # one server (tests/test_lsp.py)
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=Path.cwd().as_uri()))
    yield
    await lsp_client.shutdown_session()


async def hover_at(client: LanguageClient, path: Path, row: int, col: int) -> str:
    found = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(path.as_uri()), types.Position(row, col)))
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    return found.contents.value


async def labels_at(client: LanguageClient, path: Path, row: int, col: int) -> set[str]:
    found = await client.text_document_completion_async(types.CompletionParams(
        types.TextDocumentIdentifier(path.as_uri()), types.Position(row, col)))
    assert found is not None
    return {item.label for item in (found.items if isinstance(found, types.CompletionList) else found)}


def at(lines: list[str], needle: str) -> tuple[int, int]:
    row = next(i for i, line in enumerate(lines) if needle in line)
    return row, lines[row].index(needle)


@pytest.mark.asyncio
async def test_hovers_over_a_trait_a_constant_and_a_dice_name(client, tmp_path, monkeypatch):
    """L5: stats range from stat_min 5 to stat_max 20; L1: a check rolls 1d20."""
    monkeypatch.chdir(tmp_path)
    text = bundled("lockwood")
    path = write(tmp_path / "lockwood.yaml", text)
    assert await opened(client, path) == []
    lines = text.splitlines()
    row, col = at(lines, "HP: {formula: END + WILL")
    got = await hover_at(client, path, row, col + len("HP: {formula: "))
    assert got == "**END** (trait): Endurance, group `body`, 5 to 20, default 11"
    row, col = at(lines, "{when: natural >= critwin")
    got = await hover_at(client, path, row, col + len("{when: natural >= "))
    uses = sum(len(re.findall(r"\bcritwin\b", re.sub(r"\s#.*", "", line))) for line in lines
               if not re.match(r"\s*critwin\s*:", line))
    assert got.splitlines()[0] == "**critwin** (constant) = `20`"
    assert got.endswith(f"used {uses} time{'s' if uses != 1 else ''} in this file")
    row, col = at(lines, "roll: {natural: check_die}")
    got = await hover_at(client, path, row, col + len("roll: {natural: "))
    assert got == "`1d20`: mean 10.5, from 1 to 20"


@pytest.mark.asyncio
async def test_hover_over_a_constant_an_overlay_changes_names_the_value_it_overrides(client, tmp_path, monkeypatch):
    """N3: nwod rolls explode on 10 unless told otherwise (default_again 10); the overlay makes it 9."""
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path / "house.yaml", HOUSE)
    assert await opened(client, path) == []
    got = await hover_at(client, path, 3, 4)
    assert got.startswith("**default_again** (constant) = `9`\n\noverrides `10` of nwod\n\nused 0 times in this file, ")
    assert re.search(r"\d+ times? in nwod \(bundled\)$", got)


@pytest.mark.asyncio
async def test_references_and_the_outline(client, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = bundled("lockwood")
    path = write(tmp_path / "lockwood.yaml", text)
    assert await opened(client, path) == []
    lines = text.splitlines()
    row, col = at(lines, "{when: natural >= critwin")
    found = await client.text_document_references_async(types.ReferenceParams(
        text_document=types.TextDocumentIdentifier(path.as_uri()), position=types.Position(row, col + 20),
        context=types.ReferenceContext(include_declaration=False)))
    assert found is not None
    expected = sorted((i, m.start()) for i, line in enumerate(lines) for m in re.finditer(r"\bcritwin\b", line)
                      if not re.match(r"\s*critwin\s*:", line) and "#" not in line[:m.start()])
    assert sorted((r.range.start.line, r.range.start.character) for r in found) == expected
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        types.TextDocumentIdentifier(path.as_uri())))
    assert symbols is not None
    data = load_text(text).data
    assert [s.name for s in symbols] == list(data)
    procedures = next(s for s in symbols if s.name == "procedures")
    assert [c.name for c in procedures.children or []] == list(data["procedures"])


@pytest.mark.asyncio
async def test_completion_after_call_with_and_extends(client, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = bundled("lockwood")
    path = write(tmp_path / "lockwood.yaml", text)
    assert await opened(client, path) == []
    lines = text.splitlines()
    data = load_text(text).data
    row, col = at(lines, "- call: luck")
    assert await labels_at(client, path, row, col + len("- call: ")) == set(data["procedures"])
    row, col = at(lines, "with: {points: luck}")
    assert await labels_at(client, path, row, col + len("with: {")) == set(data["procedures"]["luck"]["params"])
    house = write(tmp_path / "house.yaml", HOUSE)
    assert await opened(client, house) == []
    assert set(bundled_ids()) <= await labels_at(client, house, 0, len("extends: "))
