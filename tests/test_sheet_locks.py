"""Sheet locks leave nothing behind, and removing a lock file never lets two commands hold the sheet at once."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from interpreter import limits
from interpreter.errors import RulesError
from interpreter.sheet.file import lock_dir, transaction


@pytest.fixture
def sheet(tmp_path: Path, rules) -> Path:
    path = tmp_path / "marco.yaml"
    assert rules("sheet", "new", "nwod", "-o", str(path), "--name", "Marco").exit_code == 0
    return path


def _locks() -> list[str]:
    folder = lock_dir()
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def test_N16_a_run_that_writes_the_sheet_leaves_no_lock_file(rules, sheet):
    """N16: damage marks the health track; the sheet is written under a lock that is then removed."""
    before = _locks()
    done = rules("run", "nwod", "take_damage", "amount=1", "type=lethal", "--sheet", str(sheet))
    assert done.exit_code == 0, done.output
    assert "lethal" in sheet.read_text(encoding="utf-8")
    assert _locks() == before


def test_a_command_that_waited_on_a_removed_lock_file_still_excludes_the_next(sheet, monkeypatch):
    """A holds the sheet while B waits; A removes its lock file and lets go. B then holds the sheet, and C, coming
    after, must wait for B: B's lock is on the file C finds, not on the one A removed. (filelock opens the file
    again on each try, and from 3.21 on drops a lock it took on a file removed meanwhile: the pin says so.)"""
    monkeypatch.setattr(limits, "LOCK_WAIT_SECONDS", 0.5)
    b_inside, b_may_leave = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def b() -> None:
        try:
            with transaction(sheet):
                b_inside.set()
                b_may_leave.wait(10)
        except BaseException as err:  # noqa: BLE001  # reported by the test below
            errors.append(err)

    with transaction(sheet):
        waiter = threading.Thread(target=b)
        waiter.start()
        time.sleep(0.3)  # B is waiting on this lock's file
        assert not b_inside.is_set()
    assert b_inside.wait(10)
    try:
        with pytest.raises(RulesError, match="another rules command has held the sheet's lock"), transaction(sheet):
            pass
    finally:
        b_may_leave.set()
        waiter.join(10)
    assert errors == []
    assert _locks() == []
