"""A real editor as the client: headless Neovim, set up with the block of docs/editors.md, runs `rules lsp`
on a broken ruleset and reports the diagnostic `rules validate` gives.

Skipped where Neovim is not installed; `.ci/run` installs Debian's package. Debian 12 ships Neovim
0.7, whose built-in client has `vim.lsp.start_client` but not yet `vim.lsp.start` and `vim.fs`
(0.8): the script below adds those two on top of what 0.7 has, then runs the documented block as it is.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from interpreter.load.bundled import rulesets_dir

ROOT = Path(__file__).resolve().parent.parent

SHIM = """
if not vim.fs then
  vim.fs = { dirname = function(path) return vim.fn.fnamemodify(path, ":h") end }
end
if not vim.lsp.start then
  vim.lsp.start = function(config)
    local id = vim.lsp.start_client(config)
    if id then vim.lsp.buf_attach_client(0, id) end
    return id
  end
end
vim.cmd("filetype on")
"""

DRIVE = """
vim.cmd("edit " .. vim.fn.fnameescape(TARGET))
local buffer = vim.api.nvim_get_current_buf()
local done = vim.wait(120000, function() return #vim.diagnostic.get(buffer) > 0 end, 100)
local out = {}
for _, d in ipairs(vim.diagnostic.get(buffer)) do
  table.insert(out, { line = d.lnum, col = d.col, message = d.message, severity = d.severity })
end
local file = io.open(REPORT, "w")
file:write(vim.fn.json_encode({ done = done, diagnostics = out, clients = #vim.lsp.get_active_clients() }))
file:close()
vim.cmd("qa!")
"""


def _neovim_block() -> str:
    text = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"^```lua\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)
    return block


@pytest.mark.skipif(shutil.which("nvim") is None, reason="Neovim is not installed (apt-get install neovim)")
def test_neovims_built_in_client_shows_the_diagnostic_rules_validate_gives(tmp_path, rules, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = (rulesets_dir() / "lockwood.yaml").read_text(encoding="utf-8")
    broken = tmp_path / "broken.yaml"
    broken.write_text(text.replace("HP: {formula: END + WILL,", "HP: {formula: END + WILLL,"), encoding="utf-8")
    (expected,) = rules("validate", "broken.yaml").stderr.splitlines()
    line, col, message = re.match(r"broken.yaml:(\d+):(\d+): \$\S*: (.*)$", expected).groups()
    report = tmp_path / "report.json"
    script = tmp_path / "drive.lua"
    script.write_text(f"TARGET = {json.dumps(str(broken))}\nREPORT = {json.dumps(str(report))}\n"
                      + SHIM + _neovim_block() + DRIVE, encoding="utf-8")
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    assert shutil.which("rules", path=env["PATH"]), "the rules command is not installed beside this Python"
    run = subprocess.run(["nvim", "--headless", "--clean", "-c", f"luafile {script}"], cwd=tmp_path, env=env,
                         check=False, capture_output=True, text=True, timeout=300)
    assert report.exists(), run.stderr
    got = json.loads(report.read_text(encoding="utf-8"))
    assert got["done"] and got["clients"] == 1
    assert [(d["line"], d["col"], d["message"]) for d in got["diagnostics"]] == [(int(line) - 1, int(col) - 1, message)]
    assert got["diagnostics"][0]["severity"] == 1  # an error
