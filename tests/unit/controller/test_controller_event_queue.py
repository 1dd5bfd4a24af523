"""ControllerEventManager: one event at a time, in order; errors, timeouts and stop."""

from __future__ import annotations

import asyncio

import pytest

from kafkette.controller.event_queue import ControllerEventManager
from kafkette.protocol.errors import KafkaTimeoutError, NotControllerError


@pytest.fixture
async def events():
    manager = ControllerEventManager(lambda: "[Controller id=1 epoch=1]", max_queued_events=4)
    manager.start()
    yield manager
    await manager.stop()


async def test_events_run_one_at_a_time_in_submission_order(events):
    log: list[str] = []

    def handler(name: str):
        async def run() -> str:
            log.append(f"start {name}")
            await asyncio.sleep(0)
            log.append(f"end {name}")
            return name

        return run

    results = await asyncio.gather(*(events.submit(n, handler(n), timeout_ms=5000) for n in "abc"))
    assert results == ["a", "b", "c"]
    assert log == ["start a", "end a", "start b", "end b", "start c", "end c"]


async def test_a_failing_event_fails_only_its_own_caller(events):
    async def boom() -> None:
        raise ValueError("boom")

    async def fine() -> int:
        return 1

    with pytest.raises(ValueError, match="boom"):
        await events.submit("Boom", boom, timeout_ms=5000)
    assert await events.submit("Fine", fine, timeout_ms=5000) == 1


async def test_timed_out_event_raises_and_is_skipped_if_it_had_not_started(events):
    gate = asyncio.get_running_loop().create_future()
    started = asyncio.Event()
    ran: list[str] = []

    async def blocker() -> None:
        started.set()
        await gate

    async def late() -> None:
        ran.append("late")

    blocking = asyncio.get_running_loop().create_task(events.submit("Blocker", blocker, timeout_ms=5000))
    await asyncio.wait_for(started.wait(), 5)
    with pytest.raises(KafkaTimeoutError):
        await events.submit("Late", late, timeout_ms=1)
    gate.set_result(None)
    await blocking

    async def marker() -> None:
        ran.append("marker")

    await events.submit("Marker", marker, timeout_ms=5000)
    assert ran == ["marker"]


async def test_stop_fails_running_and_queued_events_with_not_controller():
    events = ControllerEventManager()
    events.start()
    gate = asyncio.get_running_loop().create_future()

    async def blocker() -> None:
        await gate

    async def queued() -> None:
        return None

    started = asyncio.Event()

    async def blocker_started() -> None:
        started.set()
        await blocker()

    loop = asyncio.get_running_loop()
    running = loop.create_task(events.submit("Blocker", blocker_started, timeout_ms=5000))
    await asyncio.wait_for(started.wait(), 5)
    waiting = loop.create_task(events.submit("Queued", queued, timeout_ms=5000))
    await asyncio.sleep(0)
    await events.stop()
    for task in (running, waiting):
        with pytest.raises(NotControllerError):
            await task
    with pytest.raises(NotControllerError):
        await events.submit("After", queued, timeout_ms=5000)


async def test_try_submit_returns_none_when_the_queue_is_full(events):
    gate = asyncio.get_running_loop().create_future()

    async def blocker() -> None:
        await gate

    first = events.try_submit("Blocker", blocker)
    assert first is not None
    await asyncio.sleep(0)
    queued = [events.try_submit("Tick", blocker) for _ in range(4)]
    assert all(f is not None for f in queued)
    assert events.try_submit("Tick", blocker) is None
    gate.set_result(None)
    await asyncio.wait_for(asyncio.gather(first, *queued), 5)
