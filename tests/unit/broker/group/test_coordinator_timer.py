"""CoordinatorTimer: a key's timer replaced by ``schedule``, kept by ``schedule_if_absent``, dropped by
``cancel``; a fired operation runs once as an owned task; a failing one is logged and the timer goes on;
``stop`` cancels pending timers and running operations.  On a manual clock (``MockTime``)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from kafkette.broker.group.coordinator_timer import CoordinatorTimer
from kafkette.common.clock import MockTime


async def _settle() -> None:
    for _ in range(3):
        await asyncio.sleep(0)


def _recorder(fired: list[str], name: str):
    async def operation() -> None:
        fired.append(name)

    return operation


async def test_a_timer_fires_once_at_its_deadline():
    time = MockTime()
    timer = CoordinatorTimer(time)
    fired: list[str] = []
    timer.schedule("session-g-m", 45000, _recorder(fired, "a"))
    assert timer.is_scheduled("session-g-m")
    time.advance(44999)
    await _settle()
    assert fired == []
    time.advance(1)
    await _settle()
    assert fired == ["a"]
    assert not timer.is_scheduled("session-g-m")
    time.advance(100000)
    await _settle()
    assert fired == ["a"]
    await timer.stop()


async def test_schedule_replaces_and_schedule_if_absent_keeps():
    time = MockTime()
    timer = CoordinatorTimer(time)
    fired: list[str] = []
    timer.schedule("k", 1000, _recorder(fired, "first"))
    timer.schedule("k", 3000, _recorder(fired, "second"))
    timer.schedule_if_absent("k", 500, _recorder(fired, "third"))
    assert timer.size == 1
    time.advance(2000)
    await _settle()
    assert fired == []
    time.advance(1000)
    await _settle()
    assert fired == ["second"]
    timer.schedule_if_absent("k", 500, _recorder(fired, "fourth"))
    time.advance(500)
    await _settle()
    assert fired == ["second", "fourth"]
    await timer.stop()


async def test_cancel_drops_the_timer():
    time = MockTime()
    timer = CoordinatorTimer(time)
    fired: list[str] = []
    timer.schedule("k", 1000, _recorder(fired, "a"))
    timer.cancel("k")
    timer.cancel("never-scheduled")
    time.advance(5000)
    await _settle()
    assert fired == [] and timer.size == 0
    await timer.stop()


async def test_a_failing_operation_is_logged_and_others_still_fire(caplog):
    time = MockTime()
    timer = CoordinatorTimer(time)
    fired: list[str] = []

    async def boom() -> None:
        raise RuntimeError("append failed")

    timer.schedule("bad", 10, boom)
    timer.schedule("good", 20, _recorder(fired, "good"))
    with caplog.at_level(logging.ERROR, logger="kafkette.broker.group.coordinator_timer"):
        time.advance(20)
        await _settle()
    assert fired == ["good"]
    assert "Timer bad failed" in caplog.text
    await timer.stop()


async def test_stop_cancels_pending_timers_and_running_operations():
    time = MockTime()
    timer = CoordinatorTimer(time)
    started = asyncio.Event()
    finished: list[str] = []

    async def slow() -> None:
        started.set()
        await asyncio.sleep(3600)
        finished.append("slow")

    timer.schedule("slow", 10, slow)
    timer.schedule("later", 100000, _recorder(finished, "later"))
    time.advance(10)
    await asyncio.wait_for(started.wait(), 5)
    await timer.stop(timeout_s=5)
    time.advance(200000)
    await _settle()
    assert finished == [] and timer.size == 0
    with pytest.raises(RuntimeError, match="stopped"):
        timer.schedule("again", 10, _recorder(finished, "again"))
