"""Time, SystemTime and MockTime: the injected clock's timers, sleeps and waits."""

import asyncio

import pytest

from kafkette.common.clock import SYSTEM_TIME, MockTime


async def test_mock_timers_run_in_deadline_order_inside_the_advance_that_reaches_them():
    time = MockTime()
    fired: list[str] = []
    time.call_later(20, lambda: fired.append("b"))
    time.call_later(10, lambda: fired.append("a"))
    cancelled = time.call_later(15, lambda: fired.append("never"))
    cancelled.cancel()
    time.advance(19)
    assert fired == ["a"]
    time.advance(1)
    assert fired == ["a", "b"]
    assert time.sleepers == 0  # timers are not sleeping tasks


async def test_mock_sleep_and_wait_end_when_the_clock_is_advanced():
    time = MockTime()
    event = asyncio.Event()
    sleeper = asyncio.ensure_future(time.sleep(50))
    waiter = asyncio.ensure_future(time.wait(event, 100))
    for _ in range(5):
        await asyncio.sleep(0)
    assert time.sleepers == 2
    time.advance(50)
    await asyncio.sleep(0)
    assert sleeper.done() and not waiter.done()
    time.advance(50)
    assert await asyncio.wait_for(waiter, 1) is False
    event.set()
    assert await time.wait(event, 100) is True


def test_mock_time_does_not_go_back():
    with pytest.raises(ValueError, match="does not go back"):
        MockTime().advance(-1)


async def test_system_timer_runs_on_the_event_loop_and_can_be_cancelled():
    fired = asyncio.Event()
    SYSTEM_TIME.call_later(1, fired.set)
    never = asyncio.Event()
    SYSTEM_TIME.call_later(1, never.set).cancel()
    assert await SYSTEM_TIME.wait(fired, 2000)
    await asyncio.sleep(0.01)
    assert not never.is_set()
