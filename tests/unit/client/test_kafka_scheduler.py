"""KafkaScheduler on a MockTime: jobs run when the clock reaches them, failures are kept
and logged, shutdown stops everything (no test waits for real time)."""

from __future__ import annotations

import asyncio
import itertools
import logging

import pytest

from kafkette.common.clock import MockTime
from kafkette.common.kafka_scheduler import KafkaScheduler


async def let_tasks_run() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_a_periodic_job_runs_after_its_delay_then_every_period():
    time = MockTime()
    scheduler = KafkaScheduler(time)
    runs: list[float] = []
    job = scheduler.schedule("tick", lambda: runs.append(time.monotonic_ms()), delay_ms=100, period_ms=50)
    await let_tasks_run()
    time.advance(99)
    await let_tasks_run()
    assert runs == []
    for _ in range(3):
        time.advance(50 if runs else 1)
        await let_tasks_run()
    assert runs == [100, 150, 200] and job.runs == 3
    await scheduler.shutdown()


async def test_a_coroutine_job_is_awaited_and_a_one_off_job_runs_once():
    time = MockTime()
    scheduler = KafkaScheduler(time)
    done: list[str] = []

    async def write_checkpoint() -> None:
        await asyncio.sleep(0)
        done.append("checkpoint")

    scheduler.schedule("once", write_checkpoint, delay_ms=10)
    await let_tasks_run()
    for _ in range(3):
        time.advance(10)
        await let_tasks_run()
    assert done == ["checkpoint"] and scheduler.job("once").task.done()
    await scheduler.shutdown()


async def test_a_failed_run_is_logged_and_kept_and_the_schedule_goes_on(caplog):
    time = MockTime()
    scheduler = KafkaScheduler(time)
    outcomes = iter([RuntimeError("disk full"), None])

    def job() -> None:
        outcome = next(outcomes)
        if outcome is not None:
            raise outcome

    scheduler.schedule("flaky", job, period_ms=10)
    with caplog.at_level(logging.ERROR):
        await let_tasks_run()
    assert isinstance(scheduler.failures()["flaky"], RuntimeError)
    assert "Job flaky failed" in caplog.text and "disk full" in caplog.text
    time.advance(10)
    await let_tasks_run()
    assert scheduler.failures() == {} and scheduler.job("flaky").runs == 2
    await scheduler.shutdown()


async def test_shutdown_cancels_every_job_and_refuses_new_ones():
    time = MockTime()
    scheduler = KafkaScheduler(time)
    job = scheduler.schedule("tick", lambda: None, delay_ms=1000, period_ms=1000)
    await let_tasks_run()
    await scheduler.shutdown(timeout_s=1)
    assert job.task.cancelled()
    with pytest.raises(RuntimeError, match="shut down"):
        scheduler.schedule("late", lambda: None)


async def test_names_are_unique_and_periods_positive():
    scheduler = KafkaScheduler(MockTime())
    scheduler.schedule("tick", lambda: None, delay_ms=10, period_ms=10)
    with pytest.raises(ValueError, match="already scheduled"):
        scheduler.schedule("tick", lambda: None)
    with pytest.raises(ValueError, match="must be positive"):
        scheduler.schedule("other", lambda: None, period_ms=0)
    await scheduler.shutdown()


async def test_mock_time_wakes_sleepers_in_order_and_never_goes_back():
    time = MockTime(wall_ms=1000)
    woken: list[str] = []

    async def sleeper(name: str, ms: float) -> None:
        await time.sleep(ms)
        woken.append(name)

    tasks = [asyncio.create_task(sleeper("late", 20)), asyncio.create_task(sleeper("early", 10))]
    await let_tasks_run()
    assert time.sleepers == 2
    time.advance(25)
    await asyncio.wait_for(asyncio.gather(*tasks), 1)
    assert woken == ["early", "late"] and time.milliseconds() == 1025
    with pytest.raises(ValueError):
        time.advance(-1)


async def test_a_period_given_as_a_function_is_asked_again_after_every_run():
    time = MockTime()
    scheduler = KafkaScheduler(time)
    periods = itertools.chain([10.0, 30.0, 0.0], itertools.repeat(1000.0))
    runs: list[float] = []
    scheduler.schedule(
        "follows-config", lambda: runs.append(time.monotonic_ms()), period_ms=lambda: next(periods)
    )
    for step in (0, 10, 30, 1):
        time.advance(step)
        await let_tasks_run()
    assert runs == [0, 10, 40, 41]  # a period below 1 ms waits 1 ms
    await scheduler.shutdown()
