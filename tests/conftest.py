"""Fixtures shared by the test suite."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from hypothesis import settings

# Generated cases are the same on every run, so a test passes or fails for a reason, not by chance;
# HYPOTHESIS_PROFILE=explore searches afresh.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(__import__("os").environ.get("HYPOTHESIS_PROFILE", "repeatable"))


def pytest_configure(config):
    """Keep the record of schema-valid files inside the test run, not in the user's cache."""
    import os
    import tempfile

    os.environ.setdefault("RULESMITH_CACHE_DIR", tempfile.mkdtemp(prefix="rulesmith-cache-"))

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
