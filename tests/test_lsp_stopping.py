"""A check of the language server is stopped on its thread, after its CPU time or when superseded, and the
thread then runs the next check as if nothing had happened (no stop is left pending for it)."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from interpreter import limits
from interpreter.lsp.stopping import Stoppable


def _busy() -> int:
    total = 0
    while True:  # (only a stop ends it)
        total += 1


async def _watched(check: Stoppable[int], worker: ThreadPoolExecutor, stop_after: float | None = None) -> int | None:
    running = asyncio.get_running_loop().run_in_executor(worker, check.call)
    watching = asyncio.ensure_future(check.watch(running))
    if stop_after is not None:
        await asyncio.sleep(stop_after)
        check.stop("superseded")
    try:
        return await asyncio.wait_for(running, timeout=10)
    finally:
        watching.cancel()


def test_a_check_past_its_time_is_stopped_and_its_thread_runs_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_CHECK_SECONDS", 0.1)
    with ThreadPoolExecutor(max_workers=1) as worker:
        check: Stoppable[int] = Stoppable(_busy)
        start = time.monotonic()
        assert asyncio.run(_watched(check, worker)) is None
        assert check.why == "time" and time.monotonic() - start < 5
        after = Stoppable(lambda: sum(range(200_000)))  # the same thread: nothing left pending stops it
        assert asyncio.run(_watched(after, worker)) == sum(range(200_000)) and after.why is None


def test_a_superseded_check_is_stopped_at_once() -> None:
    with ThreadPoolExecutor(max_workers=1) as worker:
        check: Stoppable[int] = Stoppable(_busy)
        start = time.process_time()
        assert asyncio.run(_watched(check, worker, stop_after=0.05)) is None
        assert check.why == "superseded" and time.process_time() - start < limits.MAX_CHECK_SECONDS / 2
        assert worker.submit(lambda: 7).result(timeout=5) == 7


def test_a_check_stopped_before_it_starts_never_runs() -> None:
    ran: list[int] = []
    check: Stoppable[None] = Stoppable(lambda: ran.append(1))
    check.stop("superseded")
    assert check.call() is None and ran == []
