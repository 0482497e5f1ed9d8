"""Editors: the bundled rulesets name their JSON Schema, and a real YAML language server uses it.

The language-server test runs `yaml-language-server` (the npm package) with node when it is
installed: on PATH, in the repository's node_modules, or where $YAML_LANGUAGE_SERVER points. It
never downloads anything; without the server it is skipped, saying why.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path
from queue import Empty, Queue
from typing import Any

import pytest

from interpreter.load.bundled import bundled_ids, rulesets_dir, schema_path

ROOT = Path(__file__).resolve().parent.parent
MODELINE = "# yaml-language-server: $schema=../schema/ruleset.schema.json"


@pytest.mark.parametrize("ruleset_id", bundled_ids())
def test_a_bundled_ruleset_names_its_schema_on_the_first_line(ruleset_id):
    path = rulesets_dir() / f"{ruleset_id}.yaml"
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first == MODELINE
    # the path is relative to the file, and the schema sits there in a checkout and in an installed package
    assert (path.parent / first.split("$schema=")[1]).resolve() == schema_path().resolve()


def test_rules_schema_prints_the_schema_rulesets_are_checked_against(rules):
    result = rules("schema")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == json.loads(schema_path().read_text(encoding="utf-8"))


def language_server() -> list[str] | None:
    """The command that starts yaml-language-server, or None when it is not installed."""
    given = os.environ.get("YAML_LANGUAGE_SERVER")
    found = given or shutil.which("yaml-language-server")
    local = ROOT / "node_modules" / ".bin" / "yaml-language-server"
    if not found and local.exists():
        found = str(local)
    if not found or shutil.which("node") is None:
        return None
    return [found, "--stdio"]


class Client:
    """A minimal language-server client over stdio: requests, notifications and incoming messages."""

    def __init__(self, command: list[str], cwd: Path, settings: dict[str, Any] | None = None):
        self.settings = settings if settings is not None else {"validate": True}
        self.process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)
        self.incoming: Queue[dict[str, Any]] = Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.process.stdout
        assert out is not None
        while True:
            length = 0
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self.incoming.put(json.loads(out.read(length)))

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def request(self, method: str, params: Any) -> None:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})

    def answer(self, message: dict[str, Any]) -> None:
        """Answer the server's own requests the way a plain editor would."""
        result: Any = None
        if message["method"] == "workspace/configuration":
            result = [self.settings if item.get("section") == "yaml" else None
                      for item in message["params"]["items"]]
        self.send({"id": message["id"], "result": result})

    def close(self) -> None:
        self.process.kill()
        self.process.wait(timeout=30)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()


@pytest.mark.skipif(language_server() is None,
                    reason="yaml-language-server or node is not installed (npm install yaml-language-server)")
def test_a_language_server_reports_a_misspelled_key_from_the_schema_line(tmp_path):
    command = language_server()
    assert command is not None
    (tmp_path / "schema").mkdir()
    (tmp_path / "rulesets").mkdir()
    shutil.copy(schema_path(), tmp_path / "schema" / "ruleset.schema.json")
    text = (rulesets_dir() / "lockwood.yaml").read_text(encoding="utf-8")
    assert text.count("\ndescription: ") == 1
    text = text.replace("\ndescription: ", "\ndescriptoin: ")
    path = tmp_path / "rulesets" / "lockwood.yaml"
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    client = Client(command, tmp_path)
    try:
        client.request("initialize", {"processId": os.getpid(), "rootUri": tmp_path.as_uri(),
                                      "capabilities": {"workspace": {"configuration": True}}})
        client.send({"method": "initialized", "params": {}})
        client.send({"method": "workspace/didChangeConfiguration", "params": {"settings": {"yaml": {"validate": True}}}})
        client.send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "yaml", "version": 1, "text": text}}})
        deadline = time.monotonic() + 120
        diagnostics: list[dict[str, Any]] = []
        while not any("descriptoin" in d.get("message", "") for d in diagnostics):
            try:
                message = client.incoming.get(timeout=max(0.1, deadline - time.monotonic()))
            except Empty:
                break
            if "id" in message and "method" in message:
                client.answer(message)
            elif message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
                diagnostics = message["params"]["diagnostics"]
    finally:
        client.close()
    found = [d for d in diagnostics if "descriptoin" in d.get("message", "")]
    assert found, f"no diagnostic about the misspelled key; got {diagnostics}"
    line = text.splitlines().index(next(x for x in text.splitlines() if x.startswith("descriptoin:")))
    assert found[0]["range"]["start"]["line"] == line


def doc_blocks(language: str) -> list[str]:
    """The ```LANGUAGE blocks of docs/editors.md."""
    text = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)


def readme_house() -> str:
    """The overlay README.md tells the reader to save as house.yaml."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.search(r"Save this as\s+`house.yaml`:\s*```yaml\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE).group(1)


def test_the_vs_code_block_starts_rules_lsp_with_the_generic_clients_settings():
    settings = [json.loads(block) for block in doc_blocks("json") if "glspc" in block]
    assert len(settings) == 1
    (block,) = settings
    assert set(block) == {"glspc.server.command", "glspc.server.commandArguments", "glspc.server.languageId"}
    assert [block["glspc.server.command"], *block["glspc.server.commandArguments"]] == ["rules", "lsp"]


def test_the_helix_block_is_toml_that_gives_yaml_the_server():
    import tomllib

    (block,) = doc_blocks("toml")
    config = tomllib.loads(block)
    server = config["language-server"]["rulesmith"]
    assert [server["command"], *server["args"]] == ["rules", "lsp"]
    assert any(lang["name"] == "yaml" and "rulesmith" in lang["language-servers"] for lang in config["language"])


def _sexps(text: str) -> list[str]:
    """The top-level forms of Emacs Lisp text, refusing unbalanced parentheses and unclosed strings."""
    forms, depth, start, i = [], 0, None, 0
    while i < len(text):
        c = text[i]
        if c == ";":
            i = text.find("\n", i)
            i = len(text) if i < 0 else i
            continue
        if c == '"':
            end = i + 1
            while end < len(text) and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            assert end < len(text), "an unclosed string"
            i = end + 1
            continue
        if c == "(":
            if depth == 0:
                start = i
            depth += 1
        elif c == ")":
            depth -= 1
            assert depth >= 0, "a ')' closes nothing"
            if depth == 0:
                forms.append(text[start:i + 1])
        i += 1
    assert depth == 0, "a '(' is never closed"
    return forms


def test_the_emacs_block_is_one_balanced_form_that_registers_rules_lsp_with_eglot():
    (block,) = doc_blocks("elisp")
    (form,) = _sexps(block)
    assert form.startswith("(with-eval-after-load 'eglot") and "eglot-server-programs" in form
    assert '("rules" "lsp")' in form


@pytest.mark.skipif(shutil.which("nvim") is None, reason="Neovim is not installed (apt-get install neovim)")
def test_the_neovim_block_is_lua_that_loads(tmp_path):
    (block,) = doc_blocks("lua")
    script = tmp_path / "init.lua"
    script.write_text(block, encoding="utf-8")
    check = f"lua local f, e = loadfile('{script}'); if not f then io.stderr:write(e) vim.cmd('cquit 1') end"
    out = subprocess.run(["nvim", "--headless", "--clean", "-c", check, "-c", "qa!"],
                         check=False, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr


def _diagnostics(client: Client, uris: set[str], until: Any, seconds: float = 120) -> dict[str, list[dict[str, Any]]]:
    """The latest diagnostics published for some files, read until a condition holds (or the guard runs out)."""
    found: dict[str, list[dict[str, Any]]] = {}
    deadline = time.monotonic() + seconds
    while not until(found):
        try:
            message = client.incoming.get(timeout=max(0.1, deadline - time.monotonic()))
        except Empty:
            break
        if "id" in message and "method" in message:
            client.answer(message)
        elif message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] in uris:
            found[message["params"]["uri"]] = message["params"]["diagnostics"]
    return found


@pytest.mark.skipif(language_server() is None,
                    reason="yaml-language-server or node is not installed (npm install yaml-language-server)")
def test_readmes_house_overlay_is_clean_under_the_documented_schema_setting_and_a_typo_is_one_diagnostic(
        tmp_path, rules):
    command = language_server()
    assert command is not None
    (block,) = [json.loads(b) for b in doc_blocks("json") if "yaml.schemas" in b]
    schemas = {}
    for path, globs in block["yaml.schemas"].items():
        kind = Path(path).name.split(".")[0]
        schemas[rules("schema", *([kind] if kind != "ruleset" else []), "--path").stdout.strip()] = globs
    settings = {"validate": True, "schemas": schemas}
    house = tmp_path / "house.yaml"
    house.write_text(readme_house(), encoding="utf-8")
    typo = tmp_path / "house-typo.yaml"
    typo.write_text(readme_house().replace("constants:", "constans:"), encoding="utf-8")
    removal = tmp_path / "house-removal.yaml"  # a merge patch's null removes a procedure
    removal.write_text("extends: lockwood\nruleset: no-friendly-fire\nprocedures:\n  friendly_fire: null\n",
                       encoding="utf-8")
    files = [house, typo, removal]
    client = Client(command, tmp_path, settings)
    try:
        client.request("initialize", {"processId": os.getpid(), "rootUri": tmp_path.as_uri(),
                                      "capabilities": {"workspace": {"configuration": True}}})
        client.send({"method": "initialized", "params": {}})
        client.send({"method": "workspace/didChangeConfiguration", "params": {"settings": {"yaml": settings}}})
        def open_file(path: Path) -> None:
            client.send({"method": "textDocument/didOpen", "params": {"textDocument": {
                "uri": path.as_uri(), "languageId": "yaml", "version": 1, "text": path.read_text(encoding="utf-8")}}})

        # the typo first: once its diagnostic is in, the schemas are loaded, and the next files are
        # checked against them from their first diagnostics on
        open_file(typo)
        found = _diagnostics(client, {typo.as_uri()}, lambda f: bool(f.get(typo.as_uri())))
        for path in (house, removal):
            open_file(path)
        uris = {p.as_uri() for p in files}
        found.update(_diagnostics(client, uris - {typo.as_uri()}, lambda f: set(f) == uris - {typo.as_uri()}))
    finally:
        client.close()
    # the typo's diagnostic shows that the schema was applied; the README's overlay has none
    assert [d["message"] for d in found[typo.as_uri()]] == ["Property constans is not allowed."]
    assert found[typo.as_uri()][0]["range"]["start"]["line"] == 2
    assert found[house.as_uri()] == [] and found[removal.as_uri()] == []
