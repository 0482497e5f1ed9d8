"""Fixtures shared by the test suite."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, settings

# Generated cases are the same on every run, so a test passes or fails for a reason, not by chance;
# HYPOTHESIS_PROFILE=explore searches afresh.  How fast cases are made depends on the machine's load,
# not on the code under test: a slow draw is no failure.
_UNHURRIED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}
settings.register_profile("repeatable", derandomize=True, **_UNHURRIED)
settings.register_profile("explore", derandomize=False, **_UNHURRIED)
settings.load_profile(__import__("os").environ.get("HYPOTHESIS_PROFILE", "repeatable"))


_SCRATCH: list[str] = []  # the folder this run keeps its cache and sheet locks in, removed at the end


def pytest_configure(config):
    """Keep the record of schema-valid files and the sheet locks inside one folder of the run's own, removed when
    the run ends, so that a test run leaves nothing in the temporary folder; read output in a UTF-8 locale
    whatever the caller's (the tests of LANG=C set it themselves); and put this checkout first on every
    child process's PYTHONPATH, so that a test that starts `rules` or Python tests the code in front of
    it, never a copy installed earlier (the README's install is not editable)."""
    import os
    import tempfile
    from pathlib import Path

    checkout = str(Path(__file__).resolve().parent.parent)
    rest = [entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry and entry != checkout]
    os.environ["PYTHONPATH"] = os.pathsep.join([checkout, *rest])  # (once, though a worker inherits its controller's)

    from interpreter.cli.output import c_locale

    scratch = tempfile.mkdtemp(prefix="rulesmith-tests-")
    _SCRATCH.append(scratch)
    # A worker of a parallel run inherits the environment its controller made: it takes a cache of its own in
    # place of the controller's (a cache the caller chose is kept), as it takes its own folder of sheet locks.
    inherited = os.environ.pop("RULESMITH_TESTS_CACHE", None)
    if inherited is not None and os.environ.get("RULESMITH_CACHE_DIR") == inherited:
        del os.environ["RULESMITH_CACHE_DIR"]
    if "RULESMITH_CACHE_DIR" not in os.environ:
        os.environ["RULESMITH_CACHE_DIR"] = os.environ["RULESMITH_TESTS_CACHE"] = os.path.join(scratch, "cache")
    # Where bytecode is not to be written (PYTHONDONTWRITEBYTECODE), each of the hundreds of processes the tests
    # start (and each worker) would compile this checkout afresh: they share compiled files in the run's folder.
    if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
        del os.environ["PYTHONDONTWRITEBYTECODE"]
        os.environ["PYTHONPYCACHEPREFIX"] = os.path.join(scratch, "bytecode")
    os.mkdir(os.path.join(scratch, "run"), 0o700)
    os.environ["XDG_RUNTIME_DIR"] = os.path.join(scratch, "run")  # where sheet locks are taken
    if c_locale():
        os.environ["LC_ALL"] = "C.UTF-8"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """`-n auto` (pyproject.toml's addopts): a worker a core for the suite or a folder of it (xdist counts them),
    but a run of named test files stays in one process, where starting workers would cost more than they save
    (`-n 2` asks for workers anyway)."""
    return 0 if any(arg.split("::")[0].endswith(".py") for arg in config.args) else None


def pytest_unconfigure(config):
    import shutil

    for scratch in _SCRATCH:
        shutil.rmtree(scratch, ignore_errors=True)

from cli import main


@pytest.fixture
def rules():
    """Invoke the `rules` command and return click's result (stdout and stderr kept apart)."""
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(main, list(args), catch_exceptions=False)

    return invoke


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A cache folder of the test's own, and no ruleset remembered in this process."""
    from interpreter import pipeline

    where = tmp_path / "cache"
    monkeypatch.setenv("RULESMITH_CACHE_DIR", str(where))
    monkeypatch.delenv("RULESMITH_CACHE", raising=False)
    pipeline.forget_compiled()
    yield where
    pipeline.forget_compiled()
