"""Hostile editors: `rules lsp` over stdio, sent what an editor (or anything posing as one) may send.

Each case runs this checkout's `rules lsp` in a process of its own, as the hostile corpus runs a command
(tests/hostile/case.py: its CPU limit set before anything of rulesmith is imported, a 1 GiB address space),
talks to it frame by frame, and checks what it answered, how it ended, and its CPU time and peak memory
(read from ``wait4``): a frame announcing 100 TB, a frame over the limit, params that do not fit the
protocol, requests for files that are not open (``/dev/zero``, a FIFO, ``/etc/passwd``), and documents
made costly to check or hover while another waits for its diagnostics.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from hostile.case import ADDRESS_SPACE, LAUNCH, MEMORY_BYTES, ROOT, kill_group, measured

START_CPU = 3.0  # CPU seconds a server may take to start, answer a few requests and end (imports included)
WAIT = 60.0  # seconds a test waits for an answer before it calls the server stuck


# before limits are lowered, a file is checked once: the imports of the first check are not counted against them
WARM = ("import interpreter.limits as lowered\nfrom interpreter.lsp.checks import DocumentChecks\n"
        "DocumentChecks().check('warm.yaml', 'ruleset: warm\\ntitle: W\\nprocedures: {}\\n', {})\n")


class Wire:
    """`rules lsp` in its own process, bounded as a hostile case is, and the frames it sends back."""

    def __init__(self, folder: Path, cpu: float = START_CPU, lowered: dict[str, float] | None = None) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("RULESMITH")}
        env.update(PYTHONPATH=str(ROOT), RULESMITH_CACHE_DIR=str(folder / "cache"),
                   XDG_CONFIG_HOME=str(folder / ".config-none"), CORPUS_LIMITS=f"{math.ceil(cpu) + 2} {ADDRESS_SPACE}",
                   CORPUS_USAGE=str(folder / "server.usage"))
        (folder / "server.usage").unlink(missing_ok=True)
        self.err = folder / "server.err"
        with open(self.err, "wb") as err:
            entry = "from interpreter.cli import console\n"
            assert entry in LAUNCH  # (the limits are lowered just before the command line is imported)
            launch = LAUNCH.replace(entry, WARM + "".join(
                f"lowered.{name} = {value!r}\n" for name, value in lowered.items()) + entry) if lowered else LAUNCH
            self.proc = subprocess.Popen([sys.executable, "-c", launch, "lsp"], cwd=folder, env=env,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                         start_new_session=True)
        self.folder = folder
        self.inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self.ids = 0
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                if line.strip() == b"" and length is not None:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            self.inbox.put(json.loads(out.read(length)))

    def raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: Any) -> None:
        body = json.dumps(message).encode()
        self.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: Any) -> int:
        self.ids += 1
        self.send({"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params})
        return self.ids

    def wait_for(self, wanted: Any, timeout: float = WAIT) -> dict[str, Any]:
        """The first message (seen or to come) for which ``wanted(message)`` holds."""
        for message in self.seen:
            if wanted(message):
                self.seen.remove(message)
                return message
        end = time.monotonic() + timeout
        while True:
            try:
                message = self.inbox.get(timeout=max(end - time.monotonic(), 0.01))
            except queue.Empty:
                raise AssertionError(f"no such message within {timeout} s") from None
            if message is None:
                raise AssertionError(f"the server ended: {self.err.read_text()[-500:]!r}")
            if wanted(message):
                return message
            self.seen.append(message)

    def answer(self, msg_id: int | None, timeout: float = WAIT) -> dict[str, Any]:
        return self.wait_for(lambda m: "method" not in m and m.get("id", "-") == msg_id, timeout)

    def diagnostics(self, uri: str, timeout: float = WAIT) -> list[dict[str, Any]]:
        found = self.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                              and m["params"]["uri"] == uri, timeout)
        return list(found["params"]["diagnostics"])

    def start(self) -> None:
        self.answer(self.request("initialize", {"processId": None, "rootUri": self.folder.as_uri(),
                                                "capabilities": {}}))
        self.notify("initialized", {})

    def open(self, path: Path, text: str) -> str:
        uri = path.as_uri()
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1,
                                                              "text": text}})
        return uri

    def end(self, timeout: float = WAIT) -> tuple[int, float, int, str]:
        """Close the input and wait: (exit code, CPU seconds, peak resident bytes, stderr); -9 when killed."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                self.proc.stdin.close()
        timer = threading.Timer(timeout, kill_group, (self.proc,))
        timer.start()
        try:
            _, status, usage = os.wait4(self.proc.pid, 0)
        finally:
            timer.cancel()
        code, used, peak = measured(self.folder / "server.usage", status, usage)
        self.proc.returncode = code
        self.reader.join(timeout)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        return code, used, peak, self.err.read_text()

    def shutdown(self) -> tuple[int, float, int, str]:
        """`shutdown` answered, then `exit`: the process ends with 0."""
        self.answer(self.request("shutdown", None))
        self.notify("exit", None)
        return self.end()


def bounded(ended: tuple[int, float, int, str], cpu: float = START_CPU, memory: int = MEMORY_BYTES,
            code: int = 0) -> str:
    found, used, peak, err = ended
    assert found == code, f"exit {found}, not {code}: {err[-500:]!r}"
    assert "Traceback" not in err and "MemoryError" not in err, err[-500:]
    assert used <= cpu, f"{used:.2f} s of CPU, more than {cpu}"
    assert peak <= memory, f"{peak >> 20} MB, more than {memory >> 20}"
    return err


def position(line: int, character: int) -> dict[str, int]:
    return {"line": line, "character": character}


def test_a_frame_announcing_100_tb_ends_the_server_with_one_line(tmp_path):
    wire = Wire(tmp_path)
    wire.start()
    wire.raw(b"Content-Length: 100000000000000\r\n\r\n{}")
    err = bounded(wire.end(), code=1)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rules lsp: a message of 100000000000000 bytes"), err


def test_a_header_line_without_end_ends_the_server_with_one_line(tmp_path):
    wire = Wire(tmp_path)
    wire.start()
    wire.raw(b"Content-Length: 12" + b"0" * 8192)  # a header line of 8 KB, never ended
    err = bounded(wire.end(), code=1)
    assert err.strip().splitlines() == [("rules lsp: a header line longer than 4096 bytes; the server ends "
                                         "(an editor restarts it)")]


def test_a_frame_over_the_limit_is_read_through_answered_and_the_next_request_served(tmp_path):
    wire = Wire(tmp_path)
    wire.start()
    big = tmp_path / "big.yaml"
    uri = wire.open(big, "ruleset: big\ntitle: Big\n" + "#" * (20 << 20))  # a 20 MB message, read in chunks
    found = wire.diagnostics(uri)
    assert len(found) == 1 and "more than the server reads" in found[0]["message"]
    body = json.dumps({"jsonrpc": "2.0", "id": 77, "method": "textDocument/hover", "params": {
        "textDocument": {"uri": uri}, "position": position(0, 0), "padding": "x" * (20 << 20)}}).encode()
    wire.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    refused = wire.answer(77)
    five = wire.open(tmp_path / "five.yaml", "ruleset: five\ntitle: Five\n" + "x: 1\n" * (1 << 20))  # 5 MB, one frame
    told = wire.diagnostics(five)
    assert [(d["range"]["start"]["line"], d["message"]) for d in told] == [(0, "file is 5242906 bytes; the limit is 1048576")]
    assert refused["error"]["code"] == -32600 and "bytes" in refused["error"]["message"]
    hovered = wire.answer(wire.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": position(0, 0)}))
    assert hovered["result"] is None
    bounded(wire.shutdown())


def test_every_request_is_answered_even_when_it_does_not_fit_the_protocol(tmp_path):
    wire = Wire(tmp_path)
    wire.start()
    uri = wire.open(tmp_path / "a.yaml", "ruleset: a\ntitle: A\n")
    wire.diagnostics(uri)
    bad = wire.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": "x", "character": []}})
    assert wire.answer(bad)["error"]["code"] == -32602
    missing = wire.request("textDocument/completion", {"position": position(0, 0)})
    assert wire.answer(missing)["error"]["code"] == -32602
    wire.raw(b"Content-Length: 9\r\n\r\n{not json")
    assert wire.answer(None)["error"]["code"] == -32700
    wire.raw(b"Content-Length: 5\r\n\r\n[1,2]")
    assert wire.answer(None)["error"]["code"] == -32600
    far = wire.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": position(1, 2**31 - 1)})
    assert "result" in wire.answer(far)
    beyond = wire.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": position(2**31 - 1, 0)})
    assert wire.answer(beyond)["result"] is None
    good = wire.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": position(0, 0)})
    assert "result" in wire.answer(good)
    bounded(wire.shutdown())


def test_requests_for_files_that_are_not_open_read_nothing(tmp_path):
    os.mkfifo(tmp_path / "fifo.yaml")
    wire = Wire(tmp_path)
    wire.start()
    uris = ["file:///dev/zero", (tmp_path / "fifo.yaml").as_uri(), "file:///etc/passwd"]
    for uri in uris:
        for method in ("textDocument/completion", "textDocument/references", "textDocument/definition",
                       "textDocument/hover", "textDocument/documentSymbol"):
            params: dict[str, Any] = {"textDocument": {"uri": uri}, "position": position(0, 2)}
            if method == "textDocument/references":
                params["context"] = {"includeDeclaration": True}
            answer = wire.answer(wire.request(method, params), timeout=20)
            assert answer.get("result") in (None, [], {"isIncomplete": False, "items": []}), (method, uri, answer)
    bounded(wire.shutdown())


RULE = "procedures:\n  p:\n    outcomes: {ok: ok, no: no}\n    steps:\n      - roll: {d: 1d20}\n" \
       "      - decide: [{when: d >= 11, outcome: ok}, {outcome: no}]\n"


def thousand_samples(dice: int, target: int) -> str:
    """A ruleset of one procedure rolling `dice`d6 against a target, with 1,000 samples."""
    samples = ", ".join(f"{{n: {i}}}" for i in range(1000))
    return ("ruleset: many\ntitle: Many\nprocedures:\n  p:\n    params: {n: {type: int, default: 0}}\n"
            f"    outcomes: {{ok: ok, no: no}}\n    samples: [{samples}]\n    steps:\n"
            f"      - roll: {{d: {dice}d6}}\n      - decide: [{{when: d + n >= {target}, outcome: ok}}, {{outcome: no}}]\n")


def test_one_costly_document_never_starves_another(tmp_path):
    """589 KB of 60,000 unknown keys, and a procedure of 1,000 samples hovered: another file's diagnostics
    still come within seconds (the costly ones are checked and hovered beside it, not before it)."""
    wire = Wire(tmp_path, cpu=120)
    wire.start()
    strays = "ruleset: strays\ntitle: Strays\n" + RULE + "".join(f"k{i}: 1\n" for i in range(60_000))
    assert 560_000 < len(strays) < 620_000
    wire.open(tmp_path / "strays.yaml", strays)
    many_uri = wire.open(tmp_path / "many.yaml", thousand_samples(60, 210))
    assert wire.diagnostics(many_uri) == []
    hover = wire.request("textDocument/hover", {"textDocument": {"uri": many_uri}, "position": position(3, 3)})
    started = time.monotonic()
    good_uri = wire.open(tmp_path / "good.yaml", "ruleset: good\ntitle: Good\n" + RULE + "oops: 1\n")
    found = wire.diagnostics(good_uri, timeout=WAIT)
    waited = time.monotonic() - started
    assert [d["message"].split(";")[0] for d in found] == ["unknown key 'oops'"]
    assert waited < 10, f"good.yaml waited {waited:.1f} s for its diagnostics"
    text = wire.answer(hover)["result"]["contents"]["value"]
    assert "and 988 more samples" in text and text.count("- `p n=") == 12
    bounded(wire.shutdown(), cpu=120)


def test_a_dice_hover_of_three_million_values_is_refused_without_building_it(tmp_path):
    wire = Wire(tmp_path)
    wire.start()
    text = "ruleset: d\ntitle: D\ndice:\n  huge: 3d1000+1d1000*3000\n" + RULE
    uri = wire.open(tmp_path / "d.yaml", text)
    assert wire.diagnostics(uri) == []
    said = wire.answer(wire.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": position(3, 3)}))
    assert "too many to compute here" in said["result"]["contents"]["value"]
    # a procedure whose sample rolls it: refused from the expression's text, before any odds are computed
    attack = ("ruleset: a\ntitle: A\nprocedures:\n  attack:\n    params: {damage: {type: dice}}\n"
              "    samples: [{damage: 1d8}, {damage: 3d1000+1d1000*3000}]\n    outcomes: {big: big, small: small}\n"
              "    steps:\n      - roll: {d: damage}\n      - decide: [{when: d > 4, outcome: big}, {outcome: small}]\n")
    uri = wire.open(tmp_path / "a.yaml", attack)
    assert wire.diagnostics(uri) == []
    said = wire.answer(wire.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": position(3, 3)}))
    text = said["result"]["contents"]["value"]
    assert "`attack damage=1d8`: big 1/2 (50.00%), small 1/2 (50.00%)" in text
    assert "`attack damage=3d1000+1d1000*3000`: too big to compute here (a roll of up to 2,998,000 values)" in text
    bounded(wire.shutdown())


def test_a_hover_cancelled_or_superseded_is_answered_and_stops(tmp_path):
    wire = Wire(tmp_path, cpu=30)
    wire.start()
    uri = wire.open(tmp_path / "many.yaml", thousand_samples(100, 350))
    assert wire.diagnostics(uri) == []
    params = {"textDocument": {"uri": uri}, "position": position(3, 3)}
    first = wire.request("textDocument/hover", params)
    wire.notify("$/cancelRequest", {"id": first})
    started = time.monotonic()
    assert wire.answer(first)["error"]["code"] == -32800  # RequestCancelled
    second = wire.request("textDocument/hover", params)
    third = wire.request("textDocument/hover", params)  # the second is no longer wanted: it stops computing
    said = wire.answer(third)["result"]["contents"]["value"]
    assert "and 988 more samples" in said
    assert "result" in wire.answer(second)
    assert time.monotonic() - started < 30
    bounded(wire.shutdown(), cpu=30)


def strays(count: int) -> str:
    return "ruleset: strays\ntitle: Strays\n" + RULE + "".join(f"k{i}: 1\n" for i in range(count))


def test_a_check_that_takes_its_time_is_stopped_with_one_line_and_starves_no_other(tmp_path):
    """A file of 60,000 unknown keys (seconds to check) takes the checks' time limit (lowered to 0.2 s), says
    so in one line, and another file's diagnostics come all the same."""
    wire = Wire(tmp_path, cpu=START_CPU + 1.0, lowered={"MAX_CHECK_SECONDS": 0.2})
    wire.start()
    uri = wire.open(tmp_path / "strays.yaml", strays(60_000))
    good_uri = wire.open(tmp_path / "good.yaml", "ruleset: good\ntitle: Good\n" + RULE + "oops: 1\n")
    assert [d["message"].split(";")[0] for d in wire.diagnostics(good_uri)] == ["unknown key 'oops'"]
    found = wire.diagnostics(uri)
    assert len(found) == 1 and found[0]["range"]["start"] == position(0, 0)
    assert found[0]["message"] == ("the check of this file was stopped: it took more than 0.2 s of CPU time, the "
                                   "most an editor's check may take; `rules validate strays.yaml` checks it in full")
    bounded(wire.shutdown(), cpu=START_CPU + 1.0)


def test_a_newer_text_stops_the_check_of_the_older_at_once(tmp_path):
    """A file of 60,000 unknown keys replaced by a valid text at once: the older text's check (seconds of
    work, well within the time limit) is stopped, and the newer text's diagnostics come."""
    wire = Wire(tmp_path, cpu=START_CPU + 1.0)
    wire.start()
    uri = wire.open(tmp_path / "edited.yaml", strays(60_000))
    time.sleep(0.1)  # (its check has started)
    wire.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                           "contentChanges": [{"text": "ruleset: edited\ntitle: E\n" + RULE}]})
    assert wire.diagnostics(uri) == []
    bounded(wire.shutdown(), cpu=START_CPU + 1.0)


def test_closing_a_file_stops_its_check(tmp_path):
    """Three files of 60,000 unknown keys take every checker; closed at once, they hold back no other file."""
    wire = Wire(tmp_path, cpu=START_CPU + 1.5)
    wire.start()
    closed = [wire.open(tmp_path / f"closed{i}.yaml", strays(60_000)) for i in range(3)]
    time.sleep(0.2)  # (their checks have started)
    for uri in closed:
        wire.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    started = time.monotonic()
    assert wire.diagnostics(wire.open(tmp_path / "good.yaml", "ruleset: good\ntitle: Good\n" + RULE)) == []
    assert time.monotonic() - started < 10  # (seconds of CPU each, well over a minute of waiting, were they not)
    bounded(wire.shutdown(), cpu=START_CPU + 1.5)
