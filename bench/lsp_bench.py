"""Diagnostics as you type: the time from an edit to the diagnostics `rules lsp` publishes for it.

Run as `python bench/lsp_bench.py [EDITS]`. It starts `rules lsp` as an editor would (over stdio),
opens a copy of the 1,132-line nwod ruleset, then makes EDITS edits in one procedure (a key
misspelt, then put right, and so on), each sent as the whole new text, and times each edit to the
diagnostics that answer it (one problem after a typo, none after the fix). Beside it, in the same
run: the same check without the pieces kept between edits (`rules validate FILE` does this:
parse, schema, compile) and, where installed, the YAML language server (npm `yaml-language-server`,
or $YAML_LANGUAGE_SERVER) answering the same edits from the JSON Schema alone.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from queue import Queue
from typing import Any

from interpreter.load.bundled import rulesets_dir, schema_path

EDITS = int(sys.argv[1]) if len(sys.argv) > 1 else 40


class Server:
    """A language server started as a child process, spoken to over its standard input and output."""

    def __init__(self, command: list[str], cwd: Path, settings: dict[str, Any] | None = None) -> None:
        self.process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)
        self.settings = settings or {}
        self.messages: Queue[dict[str, Any]] = Queue()
        self.ids = 0
        threading.Thread(target=self._read, daemon=True).start()
        self.request("initialize", {"processId": os.getpid(), "rootUri": cwd.as_uri(),
                                    "capabilities": {"workspace": {"configuration": True}}})
        self.send({"method": "initialized", "params": {}})
        if settings:
            self.send({"method": "workspace/didChangeConfiguration", "params": {"settings": {"yaml": settings}}})

    def _read(self) -> None:
        out = self.process.stdout
        assert out is not None
        while True:
            size = 0
            while (line := out.readline()) not in (b"\r\n", b"\n"):
                if not line:
                    return
                name, _, value = line.decode("ascii").partition(":")
                size = int(value) if name.lower() == "content-length" else size
            self.messages.put(json.loads(out.read(size)))

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def request(self, method: str, params: Any) -> None:
        self.ids += 1
        self.send({"id": self.ids, "method": method, "params": params})

    def diagnostics(self, uri: str, count: int) -> list[dict[str, Any]]:
        """Wait for diagnostics of a file with ``count`` entries (answering the server's own requests)."""
        while True:
            message = self.messages.get(timeout=120)
            if "id" in message and "method" in message:
                items = message.get("params", {}).get("items", [])
                result = [self.settings if i.get("section") == "yaml" else None for i in items] or None
                self.send({"id": message["id"], "result": result})
            elif message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
                found = message["params"]["diagnostics"]
                if len(found) == count:
                    return list(found)

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


def timed_edits(server: Server, path: Path, good: str, bad: str, bad_count: int) -> list[float]:
    """Milliseconds from each edit to the diagnostics that answer it."""
    uri = path.as_uri()
    server.send({"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "yaml", "version": 1, "text": good}}})
    server.diagnostics(uri, 0)
    out = []
    for version in range(2, EDITS + 2):
        text, count = (bad, bad_count) if version % 2 == 0 else (good, 0)
        start = time.perf_counter()
        server.send({"method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}})
        server.diagnostics(uri, count)
        out.append((time.perf_counter() - start) * 1000)
    return out


def whole_checks(path: Path, text: str, runs: int) -> list[float]:
    """Milliseconds of the same check done afresh each time (no pieces kept), as `rules validate FILE` does."""
    from interpreter.lsp.checks import DocumentChecks

    out = []
    for _ in range(runs):
        checker = DocumentChecks()  # nothing kept from one check to the next
        start = time.perf_counter()
        checker.check(str(path), text, {})
        out.append((time.perf_counter() - start) * 1000)
    return out


def _row(name: str, times: list[float]) -> str:
    times = sorted(times)
    p90 = times[min(len(times) - 1, int(len(times) * 0.9))]
    return f"{name:<46} {statistics.median(times):>8.1f} {p90:>8.1f} {times[-1]:>8.1f}"


def main() -> None:
    good = (rulesets_dir() / "nwod.yaml").read_text(encoding="utf-8")
    lines = good.count("\n")
    bad = good.replace("\n  initiative:\n    summary:", "\n  initiative:\n    sumary:", 1)
    assert bad != good
    rules = shutil.which("rules", path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    assert rules is not None, "install the package first: pip install ."
    with tempfile.TemporaryDirectory(prefix="rulesmith-lsp-bench-") as folder:
        work = Path(folder)
        path = work / "nwod-copy.yaml"
        path.write_text(good, encoding="utf-8")
        env = dict(os.environ, RULESMITH_CACHE_DIR=str(work / "cache"))
        os.environ.update(env)
        print(f"nwod, {lines} lines; {EDITS} edits in one procedure, each answered by its diagnostics")
        print(f"{'milliseconds':<46} {'median':>8} {'p90':>8} {'max':>8}")
        server = Server([rules, "lsp"], work)
        try:
            ours = timed_edits(server, path, good, bad, 1)
        finally:
            server.close()
        print(_row("rules lsp: edit -> diagnostics", ours))
        whole = whole_checks(path, good, max(5, EDITS // 4))
        print(_row("the same check afresh (no pieces kept)", whole))
        yls = os.environ.get("YAML_LANGUAGE_SERVER") or shutil.which("yaml-language-server")
        if yls and shutil.which("node"):
            settings = {"validate": True, "schemas": {str(schema_path().resolve()): ["*.yaml"]}}
            peer = Server([yls, "--stdio"], work, settings)
            unlined = good.split("\n", 1)[1]  # without the schema line, which names a path beside the package
            try:
                theirs = timed_edits(peer, path, unlined, bad.split("\n", 1)[1], 1)
            finally:
                peer.close()
            print(_row("yaml-language-server (schema only)", theirs))
            print(f"ratio, median: ours / yaml-language-server = {statistics.median(ours) / statistics.median(theirs):.2f}x")
        print(f"ratio, median: ours / afresh = {statistics.median(ours) / statistics.median(whole):.2f}x")
        within = sum(1 for t in ours if t <= 300)
        print(f"edits answered within 300 ms: {within} of {len(ours)}")


if __name__ == "__main__":
    main()
