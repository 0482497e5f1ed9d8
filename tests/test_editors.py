"""Editors: the bundled rulesets name their JSON Schema, and a real YAML language server uses it.

The language-server test runs `yaml-language-server` (the npm package) with node when it is
installed: on PATH, in the repository's node_modules, or where $YAML_LANGUAGE_SERVER points. It
never downloads anything; without the server it is skipped, saying why.
"""

from __future__ import annotations

import json
import os
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

    def __init__(self, command: list[str], cwd: Path):
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
            result = [{"validate": True} if item.get("section") == "yaml" else None
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
