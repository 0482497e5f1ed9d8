"""Mutation testing for the bundled rulesets: does some test fail when one rule changes a little?

For one bundled ruleset, make one small change at a time to its YAML: every whole number one up
and one down; in formulas and dice, each comparison `<` <-> `<=`, `>` <-> `>=`, `==` <-> `!=` and
each `+` <-> `-`; and each table row's outcome (or value) swapped with the next row's. Prose
(summaries, help, messages, notes, outcome and value descriptions, sample parameters) and the
worked examples (the expected results, which the tests hold the rules to) are left alone. Each changed copy
runs that system's tests (`tests/test_*SYSTEM*.py` and its worked examples, `-x -q`) in a copy of the project, so the real
file never changes; a change no test notices is a survivor and is printed.

    python tools/mutate_rulesets.py lockwood                 # every mutant; survivors at the end
    python tools/mutate_rulesets.py nwod --list              # the mutants only, no tests run
    python tools/mutate_rulesets.py wwn --only 12,40         # re-run some mutants by number
    python tools/mutate_rulesets.py rollunder --tests tests/test_rollunder.py

Exit status: 0 when every mutant was killed, 1 when some survived.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter.load.yaml import load_text  # the project's own loader, for positions

PROSE = {"summary", "help", "text", "title", "description", "label", "source", "message", "refs", "ruleset",
         "samples"}  # a procedure's samples are parameters to show it with, not rules
SWAPS = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "==", "+": "-", "-": "+"}
TOKEN = re.compile(r"<=|>=|==|!=|<|>|\+|-|\d+")


@dataclass(frozen=True)
class Mutant:
    """One change: replace `old` at text offset `start` with `new` (a row swap has two edits)."""

    edits: tuple[tuple[int, str, str], ...]
    line: int
    what: str

    def apply(self, text: str) -> str:
        for start, old, new in sorted(self.edits, reverse=True):
            assert text[start:start + len(old)] == old, (start, old)
            text = text[:start] + new + text[start + len(old):]
        return text


def _offsets(text: str) -> list[int]:
    starts, at = [0], 0
    for line in text.splitlines(keepends=True):
        at += len(line)
        starts.append(at)
    return starts


def _skipped(path: tuple[Any, ...]) -> bool:
    if not path:
        return False
    if path[0] in ("notes", "examples") or any(isinstance(p, str) and p in PROSE for p in path):
        return True
    # a procedure's outcomes and values are descriptions; a table row's are rules
    return len(path) >= 3 and path[0] == "procedures" and path[2] in ("outcomes", "values")


def _scalars(data: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if _skipped(path):
        return
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _scalars(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _scalars(value, (*path, i))
    elif isinstance(data, (int, str)) and not isinstance(data, bool):
        yield path, data


def _source_span(text: str, start: int, value: Any) -> tuple[int, str] | None:
    """Where the scalar's characters are in the text: plain or quoted on one line."""
    shown = str(value)
    for skip in (0, 1):
        if text.startswith(shown, start + skip) and (skip == 0 or text[start] in "'\""):
            return start + skip, shown
    return None


def _number_ok(src: str, i: int, j: int) -> bool:
    before = src[i - 1] if i > 0 else " "
    after = src[j] if j < len(src) else " "
    if before.isalpha() and before != "d" or before == "_" or after == "_" or (after.isalpha() and after != "d"):
        return False
    return not (before == "d" and i >= 2 and src[i - 2].isalpha())


def mutants(text: str) -> list[Mutant]:
    """Every single change of the kinds above, in file order."""
    doc = load_text(text, "<mutating>")
    offsets = _offsets(text)
    out: dict[tuple[tuple[int, str, str], ...], Mutant] = {}
    for path, value in _scalars(doc.data):
        where = doc.where(path)
        if not where.line:
            continue
        span = _source_span(text, offsets[where.line - 1] + where.col - 1, value)
        if span is None:
            continue
        start, src = span
        for match in TOKEN.finditer(src):
            token, at = match.group(), start + match.start()
            if token.isdigit():
                if not _number_ok(src, match.start(), match.end()):
                    continue
                for new in (str(int(token) + 1), str(max(0, int(token) - 1))):
                    if new != token:
                        edit = ((at, token, new),)
                        out.setdefault(edit, Mutant(edit, where.line, f"{token} -> {new} in {src!r}"))
            elif isinstance(value, str):
                if token == "-" and match.start() == 0 and len(src) > 1 and src[1].isdigit():
                    pass  # a negative literal: flipped to positive below as well
                edit = ((at, token, SWAPS[token]),)
                out.setdefault(edit, Mutant(edit, where.line, f"{token} -> {SWAPS[token]} in {src!r}"))
    out.update({m.edits: m for m in _row_swaps(text, doc, offsets)})
    return sorted(out.values(), key=lambda m: (m.line, m.edits))


def _row_swaps(text: str, doc: Any, offsets: list[int]) -> Iterator[Mutant]:
    for name, table in (doc.data.get("tables") or {}).items():
        rows = table.get("rows") or []
        for i in range(len(rows) - 1):
            for key in ("outcome", "value"):
                a, b = rows[i].get(key), rows[i + 1].get(key)
                if a is None or b is None or a == b or isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
                    continue
                spans = []
                for index, value in ((i, a), (i + 1, b)):
                    where = doc.where(("tables", name, "rows", index, key))
                    spans.append(_source_span(text, offsets[where.line - 1] + where.col - 1, value))
                first, second = spans
                if first is None or second is None:
                    continue
                edits = ((first[0], first[1], second[1]), (second[0], second[1], first[1]))
                line = doc.where(("tables", name, "rows", i, key)).line
                yield Mutant(edits, line, f"tables.{name} rows {i + 1} and {i + 2}: {key} {a} <-> {b}")


def _copy_project(into: Path) -> Path:
    """A copy of what the tests need, so that mutants never touch the real files."""
    target = into / "project"
    ignore = shutil.ignore_patterns(".git", "__pycache__", "*.egg-info", ".pytest_cache", ".mypy_cache",
                                    ".ruff_cache", ".hypothesis")
    shutil.copytree(ROOT, target, ignore=ignore)
    # The installed package maps interpreter.rulesets and interpreter.schema to the real folders;
    # in the copy they are found first, beside the copied interpreter, and point at the copies.
    for package in ("rulesets", "schema"):
        (target / "interpreter" / package).symlink_to(target / package, target_is_directory=True)
    return target


PYTEST = ["-x", "-q", "-p", "no:cacheprovider"]


class KillersFirst:
    """A pytest plugin: the tests that failed on earlier mutants run first.

    Neighbouring mutants change the same rule, so the test that caught one usually catches the
    next; with `-x` a mutant it catches costs that one test, not every test before it in file
    order. The first failing test's id is written to `report` for the next mutant.
    """

    def __init__(self, killers: list[str], report: str):
        self.killers, self.report, self.written = killers, report, False

    def pytest_collection_modifyitems(self, items: list[Any]) -> None:
        rank = {nodeid: i for i, nodeid in enumerate(self.killers)}
        items.sort(key=lambda item: rank.get(item.nodeid, len(rank)))  # stable: the rest keep their order

    def pytest_runtest_logreport(self, report: Any) -> None:
        if report.failed and not self.written:
            self.written = True
            Path(self.report).write_text(report.nodeid, encoding="utf-8")


def serve(tests: list[str]) -> None:
    """In the copy: import the heavy modules once, then run the tests in a fresh fork per request.

    Each line on stdin is a request; the answer is a line, 'pass' or 'fail'. The mutated file is
    written by the caller before each request, and nothing is compiled before the fork. The
    tests that killed earlier mutants run first (KillersFirst).
    """
    import click.testing  # noqa: F401
    import icepool  # type: ignore[import-untyped]  # noqa: F401
    import jsonschema  # noqa: F401
    import pytest

    import interpreter.cli.commands  # noqa: F401
    killers: list[str] = []
    report = os.path.join(tempfile.mkdtemp(prefix="mutate-killer-"), "killer")
    for line in sys.stdin:
        if not line.strip():
            continue
        if os.path.exists(report):
            os.unlink(report)
        pid = os.fork()
        if pid == 0:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2) if os.environ.get("MUTATE_DEBUG") is None else None
            code = 1
            try:
                code = int(pytest.main([*PYTEST, *tests], plugins=[KillersFirst(killers, report)]))
            except BaseException as exc:  # noqa: BLE001  (the child reports failure by its exit code)
                print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        if os.path.exists(report):
            killer = Path(report).read_text(encoding="utf-8")
            killers = [killer, *(k for k in killers if k != killer)][:50]
        print("pass" if os.waitstatus_to_exitcode(status) == 0 else "fail", flush=True)


class Runner:
    """The tests of the copy, run by a server process there (or one pytest process a run)."""

    def __init__(self, project: Path, tests: list[str], env: dict[str, str]):
        self.project, self.tests, self.env = project, tests, env
        self.server: subprocess.Popen[str] | None = None
        if hasattr(os, "fork"):
            command = [sys.executable, str(project / "tools" / Path(__file__).name), "--serve", *tests]
            self.server = subprocess.Popen(command, cwd=project, env=env, stdin=subprocess.PIPE,
                                           stdout=subprocess.PIPE, text=True)

    def passes(self) -> bool:
        """True when the tests pass (the mutant survives)."""
        if self.server is None or self.server.stdin is None or self.server.stdout is None:
            command = [sys.executable, "-m", "pytest", *PYTEST, *self.tests]
            done = subprocess.run(command, cwd=self.project, env=self.env, capture_output=True, check=False)
            return done.returncode == 0
        self.server.stdin.write("run\n")
        self.server.stdin.flush()
        return self.server.stdout.readline().strip() == "pass"

    def close(self) -> None:
        if self.server is not None and self.server.stdin is not None:
            self.server.stdin.close()
            self.server.wait()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--serve"]:
        serve(argv[1:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ruleset", help="a bundled ruleset id: lockwood, nwod, rollunder, wwn")
    parser.add_argument("--tests", nargs="*", help="test files to run (default: tests/test_*RULESET*.py)")
    parser.add_argument("--only", help="comma-separated mutant numbers to run")
    parser.add_argument("--list", action="store_true", help="list the mutants and run nothing")
    args = parser.parse_args(argv)
    source = ROOT / "rulesets" / f"{args.ruleset}.yaml"
    if not source.exists():
        parser.error(f"no bundled ruleset '{args.ruleset}'")
    text = source.read_text(encoding="utf-8")
    found = mutants(text)
    chosen = list(enumerate(found, start=1))
    if args.only:
        wanted = {int(n) for n in args.only.split(",")}
        chosen = [(n, m) for n, m in chosen if n in wanted]
    if args.list:
        try:
            for n, m in chosen:
                print(f"#{n} line {m.line}: {m.what}")
            sys.stdout.flush()
        except BrokenPipeError:  # `--list | head`: the reader has all it wanted
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    # the worked examples first: they are quick and catch most changes. Sampling tests compare a
    # ruleset with itself (sampled runs against exact odds), so no changed number can fail them.
    tests = args.tests or ["tests/test_examples.py", *sorted(str(p.relative_to(ROOT)) for p in
                                                            (ROOT / "tests").glob(f"test_*{args.ruleset}*.py")),
                           "-k", f"{args.ruleset} and not sampled"]
    survivors = []
    with tempfile.TemporaryDirectory(prefix="mutate-") as tmp:
        project = _copy_project(Path(tmp))
        env = dict(os.environ, RULESMITH_CACHE_DIR=str(Path(tmp) / "cache"), PYTHONPATH=str(project))
        target = project / "rulesets" / f"{args.ruleset}.yaml"
        probe = [sys.executable, "-c", "from interpreter.load.bundled import rulesets_dir; print(rulesets_dir())"]
        seen = subprocess.run(probe, cwd=project, env=env, capture_output=True, text=True, check=True).stdout
        if Path(seen.strip()).resolve() != (project / "rulesets").resolve():
            print(f"the copy reads the rulesets of {seen.strip()}, not its own", file=sys.stderr)
            return 2
        runner = Runner(project, tests, env)
        try:
            if not runner.passes():
                print("the tests fail on the unchanged ruleset; fix them first", file=sys.stderr)
                return 2
            began = time.monotonic()
            for done, (n, mutant) in enumerate(chosen, start=1):
                target.write_text(mutant.apply(text), encoding="utf-8")
                if runner.passes():
                    survivors.append((n, mutant))
                    print(f"survived #{n} line {mutant.line}: {mutant.what}", flush=True)
                if done % 25 == 0:
                    print(f"... {done}/{len(chosen)} in {time.monotonic() - began:.0f}s", file=sys.stderr, flush=True)
        finally:
            runner.close()
            target.write_text(text, encoding="utf-8")
    print(f"{args.ruleset}: {len(chosen)} mutants, {len(survivors)} survived")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
