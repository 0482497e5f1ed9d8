"""A headless Chromium driven over the WebDriver protocol (chromedriver on a loopback port), for the chart tests.

No WebDriver client library is needed: the protocol is a few JSON requests. The browser runs with
a new empty profile, no network features and no sandbox (CI runs as root).
"""

from __future__ import annotations

import base64
import contextlib
import json
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1280,1000"]


def missing() -> str | None:
    """Why the browser cannot run here, or None when it can."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not path.exists() and shutil.which(path.name) is None:
            return f"{path} is not installed (apt-get install chromium chromium-driver)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Browser:
    """One chromedriver process and one browser session, ended by `close`."""

    def __init__(self, profile: Path):
        self.port = _free_port()
        self.driver = subprocess.Popen([str(CHROMEDRIVER), f"--port={self.port}"], stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                if self._call("GET", "/status")["value"]["ready"]:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.driver.kill()
                raise RuntimeError("chromedriver did not start")
            time.sleep(0.1)
        options = {"binary": str(CHROMIUM), "args": [*FLAGS, f"--user-data-dir={profile}"]}
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": options}}}
        self.session = self._call("POST", "/session", caps)["value"]["sessionId"]

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as answer:
            return json.loads(answer.read())

    def _session(self, method: str, path: str, body: Any = None) -> Any:
        return self._call(method, f"/session/{self.session}{path}", body)["value"]

    def open(self, path: Path) -> None:
        """Open a local file."""
        self._session("POST", "/url", {"url": path.resolve().as_uri()})

    def script(self, source: str) -> Any:
        """Run JavaScript in the page and return its result."""
        return self._session("POST", "/execute/sync", {"script": source, "args": []})

    def css_count(self, selector: str) -> int:
        """How many elements the page has that match a CSS selector."""
        return len(self._session("POST", "/elements", {"using": "css selector", "value": selector}))

    def text(self) -> str:
        """The text the page shows, as a reader sees it."""
        body = self._session("POST", "/element", {"using": "css selector", "value": "body"})
        element = next(iter(body.values()))
        return str(self._session("GET", f"/element/{element}/text"))

    def screenshot(self) -> bytes:
        """A PNG of the window."""
        return base64.b64decode(self._session("GET", "/screenshot"))

    def close(self) -> None:
        """End the session and the driver this object started."""
        with contextlib.suppress(OSError):
            self._call("DELETE", f"/session/{self.session}")
        self.driver.terminate()
        try:
            self.driver.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.driver.kill()
