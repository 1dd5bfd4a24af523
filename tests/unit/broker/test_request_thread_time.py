"""TimedCoroutine: a handler's own run time counted, its waits not (the event-loop counterpart of
Kafka's ``requestThreadTimeNanos``)."""

from __future__ import annotations

import asyncio
import time

import pytest

from kafkette.broker.request_thread_time import TimedCoroutine

BUSY_NS = 20_000_000  # 20 ms of work per step
SLEEP_S = 0.3


def _busy(ns: int) -> None:
    end = time.perf_counter_ns() + ns
    while time.perf_counter_ns() < end:
        pass


async def _handler() -> str:
    _busy(BUSY_NS)
    await asyncio.sleep(SLEEP_S)  # a wait (replication, a purgatory): not the handler's time
    _busy(BUSY_NS)
    return "answer"


async def test_awaited_it_counts_the_steps_and_not_the_wait():
    timed = TimedCoroutine(_handler())
    assert await timed == "answer"
    assert 2 * BUSY_NS <= timed.thread_time_ns < 2 * BUSY_NS + SLEEP_S * 1e9 / 2


async def test_a_task_runs_it_as_a_coroutine():
    timed = TimedCoroutine(_handler())
    assert await asyncio.wait_for(asyncio.create_task(timed), timeout=5) == "answer"
    assert timed.thread_time_ns >= 2 * BUSY_NS


async def test_an_exception_inside_reaches_the_awaiter():
    async def failing() -> None:
        await asyncio.sleep(0)
        raise ValueError("bad request")

    with pytest.raises(ValueError, match="bad request"):
        await TimedCoroutine(failing())


async def test_a_cancelled_task_cancels_the_handler():
    cancelled = asyncio.Event()

    async def waiting() -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    task = asyncio.create_task(TimedCoroutine(waiting()))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cancelled.is_set()
