"""Fixtures shared by the test suite."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from cli import main


@pytest.fixture
def rules():
    """Invoke the `rules` command and return click's result (stdout and stderr kept apart)."""
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(main, list(args), catch_exceptions=False)

    return invoke
