"""ShutdownableTask, BackgroundTasks and wait_for_wakeup: the one way components start and stop
their background tasks."""

from __future__ import annotations

import asyncio
import logging

import pytest

from kafkette.common.background_tasks import BackgroundTasks, ShutdownableTask, wait_for_wakeup


async def test_stop_cancels_and_awaits_the_loop_and_every_in_flight_request():
    tasks = BackgroundTasks()
    never = asyncio.Event()
    requests = []
    tasks.start(never.wait, "loop")
    for _ in range(2):
        tasks.spawn(never.wait())
    requests = list(tasks._requests)
    loop_task = tasks._loop_task.task
    assert tasks.running
    await tasks.stop(timeout_s=5.0)
    assert not tasks.running
    assert loop_task.cancelled() and all(r.cancelled() for r in requests)
    assert not tasks._requests


async def test_a_crash_is_logged_kept_and_handed_to_on_failure(caplog):
    failures: list[BaseException] = []

    async def work() -> None:
        await asyncio.sleep(0)
        raise ValueError("bad state")

    task = ShutdownableTask("checker", log_prefix="[Checker id=1]", on_failure=failures.append)
    with caplog.at_level(logging.ERROR):
        task.start(work)
        await asyncio.wait_for(asyncio.shield(task.task), 5)
    assert isinstance(task.failure, ValueError) and failures == [task.failure]
    assert not task.running
    assert "[Checker id=1] checker crashed" in caplog.text and "bad state" in caplog.text
    assert await task.shutdown(1)
    task.start(asyncio.Event().wait)  # a crashed task can be started again; its failure is cleared
    assert task.failure is None and task.running
    assert await task.shutdown(1)


async def test_shutdown_is_bounded_when_the_work_ignores_cancellation(caplog):
    release = asyncio.Event()

    async def stubborn() -> None:
        while not release.is_set():
            try:
                await asyncio.sleep(10)
            except asyncio.CancelledError:
                continue  # swallows every cancellation until released

    task = ShutdownableTask("stubborn")
    task.start(stubborn)
    await asyncio.sleep(0)
    running = task.task
    with caplog.at_level(logging.ERROR):
        assert not await task.shutdown(0.05)
    assert "stubborn did not stop within 0.1 s" in caplog.text
    release.set()
    running.cancel()
    await asyncio.wait([running], timeout=5)
    assert running.done()


async def test_start_twice_is_refused_and_initiate_shutdown_returns_the_cancelled_task():
    task = ShutdownableTask("loop")
    assert task.initiate_shutdown() is None and await task.shutdown(1)  # never started
    task.start(asyncio.Event().wait)
    with pytest.raises(RuntimeError, match="already running"):
        task.start(asyncio.Event().wait)
    cancelled = task.initiate_shutdown()
    assert cancelled is not None and task.task is None
    await asyncio.wait([cancelled], timeout=5)
    assert cancelled.cancelled()


async def test_wait_for_wakeup_returns_when_the_event_is_set_or_the_wait_ends():
    wakeup = asyncio.Event()
    wakeup.set()
    await asyncio.wait_for(wait_for_wakeup(wakeup, float("inf")), 5)
    await asyncio.wait_for(wait_for_wakeup(asyncio.Event(), 0.0), 5)
