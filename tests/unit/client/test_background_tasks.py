"""BackgroundTasks and wait_for_wakeup: the loop and request tasks of the Sender and the Fetcher."""

from __future__ import annotations

import asyncio

from kafkette.client.background_tasks import BackgroundTasks, wait_for_wakeup


async def test_stop_cancels_and_awaits_the_loop_and_every_in_flight_request():
    tasks = BackgroundTasks()
    never = asyncio.Event()
    done: list[asyncio.Task[None]] = []
    tasks.start(never.wait(), "loop", done.append)
    tasks.spawn(never.wait())
    tasks.spawn(never.wait())
    assert tasks.running
    await tasks.stop(timeout_s=5.0)
    assert not tasks.running
    assert len(done) == 1 and done[0].cancelled()
    assert not tasks._requests


async def test_wait_for_wakeup_returns_when_the_event_is_set_or_the_wait_ends():
    wakeup = asyncio.Event()
    wakeup.set()
    await asyncio.wait_for(wait_for_wakeup(wakeup, float("inf")), 5)
    await asyncio.wait_for(wait_for_wakeup(asyncio.Event(), 0.0), 5)
