"""`rules lsp` on files that are not valid yet, overlays' warnings, and which files it checks at all, driven by
pytest-lsp (the server of tests/test_lsp.py): the features read the parts of a file that compile."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from test_lsp import SERVER, opened, reported, shown, write

DRAFT = """\
ruleset: draft
title: Draft
constants:
  dc: 10
traits:
  Might: {label: Might, group: attributes, min: 1, max: 5, default: 2}
procedures:
  check:
    summary: a check against the difficulty
    params:
      bonus: {type: int, default: 0}
      element: {type: choice, options: {cold: 1, fire: 2}, default: fire}
    outcomes: {hit: it hits, miss: it misses}
    samples: [{bonus: 0}, {bonus: 5}]
    steps:
      - roll: {d: 1d20}
      - decide: [{when: d + bonus >= dc, outcome: hit}, {outcome: miss}]
  slip:
    outcomes: {ok: fine}
    sumary: a typo
    steps:
      - decide: [{outcome: ok}]
  guess:
    params:
      edge: {type: int, default: 1}
    outcomes: {ok: fine}
    steps:
      - let: {x: Mihgt + dc}
      - decide: [{outcome: ok}]
"""


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=Path.cwd().as_uri()))
    yield
    await lsp_client.shutdown_session()


def at(text: str, needle: str, offset: int = 0) -> types.Position:
    """The position of the first `needle` in a text (plus `offset` columns)."""
    before = text[:text.index(needle)]
    return types.Position(before.count("\n"), len(before) - (before.rfind("\n") + 1) + offset)


async def hover(client: LanguageClient, path: Path, where: types.Position) -> str | None:
    found = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(path.as_uri()), where))
    return found.contents.value if found is not None and isinstance(found.contents, types.MarkupContent) else None


async def completions(client: LanguageClient, path: Path, where: types.Position) -> dict[str, str | None]:
    found = await client.text_document_completion_async(types.CompletionParams(
        types.TextDocumentIdentifier(path.as_uri()), where))
    items = found.items if isinstance(found, types.CompletionList) else (found or [])
    return {item.label: item.detail for item in items}


@pytest.mark.asyncio(loop_scope="function")  # (its own server per test, as its fixture is)
async def test_a_ruleset_with_an_unknown_key_and_an_unknown_name_still_hovers_and_completes(client, rules, tmp_path,
                                                                                            monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path / "draft.yaml", DRAFT)
    expected = reported(rules("validate", "draft.yaml"))
    assert sorted(e[3].split(";")[0] for e in expected) == ["unknown key 'sumary'", "unknown name 'Mihgt'"]
    found = await opened(client, path)
    assert shown(found) == sorted(e[1:] for e in expected)
    # hover on the valid procedure: its exact odds, 1d20 + bonus >= 10 (11/20 and 16/20), and the choice's word
    text = await hover(client, path, at(DRAFT, "check:", 2))
    assert text is not None
    assert "hit 11/20 (55.00%)" in text and "hit 4/5 (80.00%)" in text
    assert "`element` (choice, default fire)" in text
    # completion inside the broken formula: the file's constants and traits
    offered = await completions(client, path, at(DRAFT, "Mihgt", 2))
    assert offered.get("dc") == "constant = 10" and "Might" in offered
    assert offered.get("edge") == "parameter (int)"  # the broken procedure's own parameter, as written
    # go to definition from the broken formula to the trait
    target = await client.text_document_definition_async(types.DefinitionParams(
        types.TextDocumentIdentifier(path.as_uri()), at(DRAFT, "+ dc", 3)))
    assert isinstance(target, types.Location) and target.range.start.line == at(DRAFT, "  dc: 10").line


@pytest.mark.asyncio(loop_scope="function")  # (its own server per test, as its fixture is)
async def test_a_misspelt_overlay_constant_is_the_warning_rules_validate_gives(client, rules, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = "extends: nwod\nruleset: nwod-typo\nconstants:\n  default_agian: 9\n  \n"
    path = write(tmp_path / "typo.yaml", text)
    warned = [line for line in rules("validate", "typo.yaml").stderr.splitlines() if line.startswith("warning: ")]
    assert len(warned) == 1 and "default_agian" in warned[0]
    found = await opened(client, path)
    assert [(d.severity, d.range.start.line, d.range.start.character) for d in found] == [
        (types.DiagnosticSeverity.Warning, 3, 2)]
    assert found[0].message in warned[0] and found[0].data["replace"] == "default_again"
    # the overlay's constants: complete the base's names, with their values
    offered = await completions(client, path, types.Position(4, 2))
    assert offered.get("default_again") == "= 10 in nwod"
    assert len(offered) > 5 and all(detail and detail.startswith("= ") for detail in offered.values())


@pytest.mark.asyncio(loop_scope="function")  # (its own server per test, as its fixture is)
async def test_only_files_that_declare_themselves_are_checked(client, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    jekyll = write(tmp_path / "_config.yml", "title: My blog\ndescription: notes\ntheme: minima\nplugins:\n  - feed\n")
    assert await opened(client, jekyll) == []
    steps = "procedures: {p: {outcomes: {ok: ok}, steps: [{decide: [{outcome: ok}]}]}}\n"
    named = write(tmp_path / "named.yaml", "# yaml-language-server: $schema=/x/ruleset.schema.json\ntitle: T\n" + steps)
    found = await opened(client, named)  # the modeline says it is a ruleset: its missing `ruleset:` is a problem
    assert [d.message for d in found] == ["missing required key 'ruleset'"]


@pytest.mark.asyncio(loop_scope="function")  # (its own server per test, as its fixture is)
async def test_call_goes_to_the_procedure_not_a_parameter_of_the_same_name(client, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = ("ruleset: calls\ntitle: Calls\nprocedures:\n  pool:\n    outcomes: {ok: ok}\n    steps:\n"
            "      - decide: [{outcome: ok}]\n  attack:\n    params:\n      pool: {type: int, default: 3}\n"
            "    outcomes: {ok: ok}\n    steps:\n      - call: pool\n      - decide: [{outcome: ok}]\n")
    path = write(tmp_path / "calls.yaml", text)
    assert await opened(client, path) == []
    target = await client.text_document_definition_async(types.DefinitionParams(
        types.TextDocumentIdentifier(path.as_uri()), at(text, "call: pool", 7)))
    assert isinstance(target, types.Location) and target.range.start.line == 3


@pytest.mark.asyncio(loop_scope="function")  # (its own server per test, as its fixture is)
async def test_a_dice_hover_too_large_to_build_is_summarised_at_once(client, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = ("ruleset: big\ntitle: Big\ndice:\n  huge: 3d1000+1d1000*3000\n  small: 2d6+1\n"
            "procedures: {p: {outcomes: {ok: ok}, steps: [{decide: [{outcome: ok}]}]}}\n")
    path = write(tmp_path / "big.yaml", text)
    assert await opened(client, path) == []
    started = time.monotonic()
    said = await hover(client, path, at(text, "huge", 1))
    assert said is not None and "too many to compute here" in said and "3003 to 3003000" in said
    assert time.monotonic() - started < 5
    assert await hover(client, path, at(text, "small", 1)) == "`2d6+1`: mean 8, from 3 to 13"
