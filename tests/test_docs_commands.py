"""Every command shown in a ```sh block of README.md and docs/ runs, pasted as it is, in bash.

Each document's blocks run in order in one fresh folder, with the installed `rules` first on PATH.
A block written as a session (lines starting with `$ `) runs those lines and treats the rest as
output; any other block runs every line that is not a comment. A command fails the test when it
exits non-zero (unless its line says `(exit N)`, or its shown output `exit code N`, with that N) or when it leaves a file whose name
the block does not mention, such as the `=8` a shell makes of an unquoted `>=8`.

`pip install ... && COMMAND` runs only COMMAND (the package is installed already), and the
command that runs this very test suite is not run again. A command that runs a script of the
repository (`python tools/...`, `python bench/...`) runs at the repository's root. A block may be preceded by
`<!-- docs test setup: COMMAND -->`, run first and not shown (with `$RULESETS` the folder of the
bundled rulesets), for a file the reader is told to make by hand; a page that says "Save it as
`NAME`" (or "Save this ...", "Save a recipe below ...") gets the next ```yaml block saved as NAME before its commands run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from interpreter.load.bundled import rulesets_dir

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
EXPECTED_EXIT = re.compile(r"\(exit (\d+)\)|exit code (\d+)")


def sh_blocks(path: Path) -> list[str]:
    """The text of every ```sh block of a Markdown file, each after its hidden setup commands if any."""
    found = re.findall(r"^(?:<!-- docs test setup: (.*?) -->\n)?```sh\n(.*?)^```", path.read_text(encoding="utf-8"),
                       flags=re.DOTALL | re.MULTILINE)
    return [f"{setup}\n{body}" if setup else body for setup, body in found]


def command_lines(block: str) -> list[tuple[str, str]]:
    """Each command of a block with the text that documents it (its line, and in a session its output).

    A session's commands are its `$ ` lines; any other block's are all lines but comments.
    """
    joined = re.sub(r"\\\n\s*", " ", block)
    lines = joined.splitlines()
    if not any(line.startswith("$ ") for line in lines):
        return [(line, line) for line in lines if line.strip() and not line.lstrip().startswith("#")]
    out: list[tuple[str, str]] = []
    for line in lines:
        if line.startswith("$ "):
            out.append((line[2:], line))
        elif out:
            out[-1] = (out[-1][0], out[-1][1] + "\n" + line)
    return out


def runnable(line: str) -> str | None:
    """What to run for a documented line: without an install step, and never this test suite itself."""
    if line.startswith("pip install"):
        _, sep, rest = line.partition("&&")
        line = rest.strip() if sep else ""
    if not line or re.match(r"python -m pytest\b", line):
        return None
    return line


def documented_commands() -> list[object]:
    cases = []
    for path in DOCS:
        blocks = sh_blocks(path)
        if blocks:
            cases.append(pytest.param(path, blocks, id=str(path.relative_to(ROOT))))
    return cases


def saved_files(path: Path) -> dict[str, str]:
    """The files a page asks the reader to save: "Save it as `NAME`" and the ```yaml block after it."""
    text = path.read_text(encoding="utf-8")
    found = {}
    for match in re.finditer(r"[Ss]ave (?:it|this|[a-z ]{1,30}) as\s+`([^`]+)`", text):
        block = re.search(r"^```yaml\n(.*?)^```", text[match.end():], flags=re.DOTALL | re.MULTILINE)
        if block:
            found[match.group(1)] = block.group(1)
    return found


def files_in(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def test_the_readme_tour_is_found():
    blocks = sh_blocks(ROOT / "README.md")
    assert blocks[0].startswith("pip install . && rules run") and blocks[1].startswith('pip install ".[test]"')
    assert any("rules roll" in line for block in blocks for line, _ in command_lines(block))


@pytest.mark.parametrize("doc,blocks", documented_commands())
def test_every_documented_command_runs_as_pasted(tmp_path, doc, blocks):
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("PYTHONIOENCODING", None)
    env["RULESETS"] = str(rulesets_dir())
    for name, text in saved_files(doc).items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    for block in blocks:
        for line, documented in command_lines(block):
            command = runnable(line)
            if command is None:
                continue
            # a developer's command that runs a script of the repository (tools/, bench/) runs at its root
            folder = ROOT if re.match(r"python (tools|bench)/", command) else tmp_path
            before = files_in(tmp_path) if folder == tmp_path else set(os.listdir(ROOT))
            done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=folder, env=env,
                                  capture_output=True, text=True, timeout=300, check=False)
            expected = EXPECTED_EXIT.search(documented)
            want = int(expected.group(1) or expected.group(2)) if expected else 0
            assert done.returncode == want, f"{doc.name}: `{line}` exited {done.returncode}:\n{done.stderr}"
            assert "Traceback" not in done.stderr, f"{doc.name}: `{line}`:\n{done.stderr}"
            after = files_in(tmp_path) if folder == tmp_path else set(os.listdir(ROOT))
            unnamed = [f for f in after - before if Path(f).name not in block]
            assert not unnamed, f"{doc.name}: `{line}` left files the doc does not name: {unnamed}"
