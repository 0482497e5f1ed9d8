"""`rules lsp` end to end, driven by pytest-lsp as an editor would: diagnostics equal to `rules validate`
and `rules sheet check`, quick fixes, hovers with exact odds, completion, going to an overlay's base."""

from __future__ import annotations

import asyncio
import re
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from interpreter.load.bundled import rulesets_dir

SERVER = [sys.executable, "-c", "from interpreter.cli import main; main()", "lsp"]
LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<path>\$\S*): (?P<message>.*)$")
HOUSE = "extends: nwod\nruleset: nwod-9again\nconstants:\n  default_again: 9     # every roll explodes on 9 or 10\n"


# One server for the tests of a module, as an editor keeps one open across files: each test opens files of its
# own folder (the event loop of async tests is the module's, pyproject.toml's asyncio_default_test_loop_scope).
@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), scope="module")
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=Path.cwd().as_uri()))
    yield
    await lsp_client.shutdown_session()


def bundled(ruleset_id: str) -> str:
    return (rulesets_dir() / f"{ruleset_id}.yaml").read_text(encoding="utf-8")


async def diagnostics_of(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    """The next diagnostics published for a file (a guard against a hang, not a timing)."""
    async def published() -> list[types.Diagnostic]:
        while uri not in client.diagnostics:
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        return list(client.diagnostics[uri])

    return await asyncio.wait_for(published(), timeout=120)


async def opened(client: LanguageClient, path: Path, text: str | None = None) -> list[types.Diagnostic]:
    uri = path.as_uri()
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=uri, language_id="yaml", version=1, text=path.read_text(encoding="utf-8") if text is None else text)))
    return await diagnostics_of(client, uri)


async def changed(client: LanguageClient, path: Path, text: str, version: int) -> list[types.Diagnostic]:
    uri = path.as_uri()
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangeWholeDocument(text=text)]))
    return await diagnostics_of(client, uri)


def reported(result) -> list[tuple[str, int, int, str]]:
    """(file, line, column, message) of each problem line a command printed, lines and columns from 0."""
    out = []
    for line in result.stderr.splitlines():
        found = LINE.match(line)
        if found:
            out.append((found["file"], int(found["line"]) - 1, int(found["col"]) - 1, found["message"]))
    return out


def shown(found: list[types.Diagnostic]) -> list[tuple[int, int, str]]:
    return sorted((d.range.start.line, d.range.start.character, d.message) for d in found)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.asyncio
async def test_a_formula_naming_an_unknown_trait_is_the_problem_rules_validate_reports(client, rules, tmp_path,
                                                                                       monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = bundled("lockwood").replace("HP: {formula: END + WILL,", "HP: {formula: END + WILLL,")
    path = write(tmp_path / "broken.yaml", text)
    expected = reported(rules("validate", "broken.yaml"))
    assert [e[3] for e in expected] == ["unknown name 'WILLL'; did you mean 'WILL'?"]
    found = await opened(client, path)
    assert shown(found) == sorted(e[1:] for e in expected)
    assert found[0].severity == types.DiagnosticSeverity.Error and found[0].source == "rules"
    assert found[0].range.end.character - found[0].range.start.character == len("WILLL")


@pytest.mark.asyncio
async def test_every_problem_of_a_ruleset_with_several_is_reported_where_rules_validate_puts_it(
        client, rules, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = (bundled("wwn").replace("\nprocedures:\n", "\nprocedures:\n  extra:\n    sumary: a typo\n"
                                    "    steps:\n      - let: {x: no_such_name + 1}\n", 1))
    path = write(tmp_path / "several.yaml", text)
    expected = reported(rules("validate", "several.yaml"))
    assert len(expected) >= 2
    assert shown(await opened(client, path)) == sorted(e[1:] for e in expected)


@pytest.mark.asyncio
async def test_one_indentation_slip_gives_one_diagnostic(client, rules, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = bundled("lockwood").replace("\n      stat: {type: int, help: the stat rolled}",
                                       "\n       stat: {type: int, help: the stat rolled}", 1)
    path = write(tmp_path / "slip.yaml", text)
    expected = reported(rules("validate", "slip.yaml"))
    assert len(expected) == 1
    found = await opened(client, path)
    assert shown(found) == [e[1:] for e in expected]


@pytest.mark.asyncio
async def test_the_did_you_mean_quick_fix_clears_the_diagnostic_once_applied(client, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = bundled("lockwood").replace("\n    summary: Both sides roll", "\n    sumary: Both sides roll", 1)
    path = write(tmp_path / "typo.yaml", text)
    found = await opened(client, path)
    assert [d.message for d in found] == ["unknown key 'sumary'; did you mean 'summary'?"]
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(path.as_uri()), range=found[0].range,
        context=types.CodeActionContext(diagnostics=found)))
    assert actions is not None and len(actions) == 1
    action = actions[0]
    assert isinstance(action, types.CodeAction) and action.kind == types.CodeActionKind.QuickFix
    assert action.edit is not None and action.edit.changes is not None
    (edit,) = action.edit.changes[path.as_uri()]
    lines = text.splitlines(keepends=True)
    row = lines[edit.range.start.line]
    lines[edit.range.start.line] = row[:edit.range.start.character] + edit.new_text + row[edit.range.end.character:]
    fixed = "".join(lines)
    assert fixed == bundled("lockwood")
    assert await changed(client, path, fixed, 2) == []


@pytest.mark.asyncio
async def test_hover_on_a_procedure_shows_its_exact_odds_at_its_samples(client, tmp_path, monkeypatch):
    """L12: a talent attempt is 1d4: 3-4 success, 2 failure, 1 backfire."""
    monkeypatch.chdir(tmp_path)
    text = bundled("lockwood")
    path = write(tmp_path / "lockwood.yaml", text)
    assert await opened(client, path) == []
    lines = text.splitlines()
    row = next(i for i, line in enumerate(lines) if line == "  talent:" and i > lines.index("procedures:"))
    hover = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(path.as_uri()), types.Position(row, 4)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    got = hover.contents.value
    # the oracle: counting the faces of 1d4
    faces = {"success": [3, 4], "failure": [2], "backfire": [1]}
    expected = ", ".join(f"{o} {Fraction(len(f), 4).numerator}/{Fraction(len(f), 4).denominator} "
                         f"({len(f) / 4:.2%})" for o, f in faces.items())
    assert f"`talent`: {expected}" in got
    assert "**talent** (procedure)" in got


@pytest.mark.asyncio
async def test_hover_says_too_big_to_compute_here_past_the_work_budget(client, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = ("extends: nwod\nruleset: big-pools\nprocedures:\n  extended:\n"
            "    samples: [{pool: 60, required: 400, max_rolls: 40, again: 8}]\n")
    path = write(tmp_path / "big.yaml", text)
    assert await opened(client, path) == []
    hover = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(path.as_uri()), types.Position(3, 4)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "`extended pool=60 required=400 max_rolls=40 again=8`: too big to compute here" in hover.contents.value


@pytest.mark.asyncio
async def test_completion_inside_a_formula_offers_the_rulesets_names(client, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = bundled("lockwood")
    path = write(tmp_path / "lockwood.yaml", text)
    assert await opened(client, path) == []
    lines = text.splitlines()
    row = next(i for i, line in enumerate(lines) if "let: {total: natural + stat + mod" in line)
    col = lines[row].index("natural + stat") + len("natural + ")
    items = await client.text_document_completion_async(types.CompletionParams(
        types.TextDocumentIdentifier(path.as_uri()), types.Position(row, col)))
    assert items is not None
    labels = {item.label for item in (items.items if isinstance(items, types.CompletionList) else items)}
    # traits, constants, derived values, tables, the procedure's parameters, names bound above
    assert {"STR", "LUCK", "critwin", "stat_budget", "HP", "healing", "talent", "stat", "dc", "advantage",
            "natural", "luck_roll", "luck_penalty"} <= labels
    assert "summary" not in labels and "steps" not in labels


@pytest.mark.asyncio
async def test_completion_at_a_new_step_offers_the_step_kinds_only(client, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = bundled("lockwood")
    lines = text.splitlines()
    row = next(i for i, line in enumerate(lines) if "let: {total: natural + stat + mod" in line)
    lines.insert(row, "      - ")
    path = write(tmp_path / "lockwood.yaml", text)
    await opened(client, path, "\n".join(lines) + "\n")
    items = await client.text_document_completion_async(types.CompletionParams(
        types.TextDocumentIdentifier(path.as_uri()), types.Position(row, 8)))
    assert items is not None
    labels = {item.label for item in (items.items if isinstance(items, types.CompletionList) else items)}
    assert {"roll", "let", "call", "decide"} <= labels
    assert not labels & {"as", "with", "when", "outcome", "steps"}


@pytest.mark.asyncio
async def test_go_to_definition_of_extends_opens_the_base(client, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path / "house.yaml", HOUSE)
    assert await opened(client, path) == []
    found = await client.text_document_definition_async(types.DefinitionParams(
        types.TextDocumentIdentifier(path.as_uri()), types.Position(0, 10)))
    assert isinstance(found, types.Location)
    # the bundled nwod of the package the server runs (installed, or this checkout)
    base = Path(found.uri.removeprefix("file://"))
    assert base.name == "nwod.yaml" and base.read_bytes() == (rulesets_dir() / "nwod.yaml").read_bytes()
    # and a constant the overlay changes goes to where the merged ruleset defines it: here, the overlay
    at = await client.text_document_definition_async(types.DefinitionParams(
        types.TextDocumentIdentifier(path.as_uri()), types.Position(3, 4)))
    assert isinstance(at, types.Location) and at.uri == path.as_uri() and at.range.start.line == 3


@pytest.mark.asyncio
async def test_an_overlay_is_checked_merged_with_its_base_each_problem_in_the_file_that_wrote_it(
        client, rules, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    base = write(tmp_path / "base.yaml", bundled("lockwood"))
    text = "extends: base.yaml\nruleset: no-crits\nconstants:\n  critwin: null\n  move_dc: seven\n"
    path = write(tmp_path / "house.yaml", text)
    expected = reported(rules("validate", "house.yaml"))
    in_house = sorted(e[1:] for e in expected if e[0] == "house.yaml")
    in_base = sorted(e[1:] for e in expected if e[0] == "base.yaml")
    assert in_house and in_base
    found = await opened(client, path)
    own = [d for d in found if d.code != "elsewhere"]
    assert shown(own) == in_house
    pointer = [d for d in found if d.code == "elsewhere"]
    assert len(pointer) == 1 and pointer[0].range.start.line == 0
    assert await diagnostics_of(client, base.as_uri()) and shown(client.diagnostics[base.as_uri()]) == in_base


@pytest.mark.asyncio
async def test_a_sheets_diagnostics_are_what_rules_sheet_check_reports(client, rules, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert rules("sheet", "new", "lockwood", "-o", "ada.yaml", "--name", "Ada").exit_code == 0
    text = (tmp_path / "ada.yaml").read_text(encoding="utf-8")
    text = re.sub(r"\n  STR: \d+", "\n  STR: 99", text).replace("\ntraits:", "\ntrates: 1\ntraits:")
    path = write(tmp_path / "ada.yaml", text)
    expected = reported(rules("sheet", "check", "ada.yaml"))
    assert expected
    assert shown(await opened(client, path)) == sorted(e[1:] for e in expected)
    fixed = re.sub(r"\n  STR: 99", "\n  STR: 10", text).replace("\ntrates: 1", "")
    assert await changed(client, path, fixed, 2) == []


@pytest.mark.asyncio
async def test_an_edit_is_checked_as_typed_unsaved(client, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path / "house.yaml", HOUSE)
    assert await opened(client, path) == []
    found = await changed(client, path, HOUSE.replace("constants:", "constans:"), 2)
    assert [d.message for d in found] == ["unknown key 'constans'; did you mean 'constants'?"]
    assert path.read_text(encoding="utf-8") == HOUSE  # nothing was written


@pytest.mark.asyncio
async def test_a_yaml_file_that_is_no_ruleset_overlay_or_sheet_is_left_alone(client, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path / "compose.yaml", "services:\n  web:\n    image: nginx\n")
    assert await opened(client, path) == []
