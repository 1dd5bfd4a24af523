"""The background tasks of one client component: its loop task and its in-flight request tasks.

Owns: ``BackgroundTasks``, the owner of a component's long-running loop task (started
with a done-callback) and of the request tasks that loop spawns, which it cancels and
awaits (bounded) on ``stop``; ``cancel_and_wait``, the bounded cancel-and-await every
owner of a task does on shutdown (clients, brokers and controllers alike); and
``wait_for_wakeup``, the loop's bounded wait on its wake-up event.  ``BackgroundTasks`` is
shared by the producer's ``Sender`` and the consumer's ``Fetcher``.
Does not own what the tasks do, nor how a crash of the loop task is reported (the
component's done-callback does that).

Kafka concept: the network-thread loop of ``org.apache.kafka.clients.producer.internals.Sender``
and of the consumer's ``Fetcher`` (aiokafka runs both as asyncio tasks).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterable
from typing import Any


async def cancel_and_wait(tasks: Iterable[asyncio.Task[Any] | None], timeout_s: float) -> set[asyncio.Task[Any]]:
    """Cancel the tasks and wait until they have finished, at most ``timeout_s``.

    Args:
        tasks: the tasks to stop; None and finished ones are skipped.
        timeout_s: how long to wait for the cancelled tasks (seconds).

    Returns:
        The tasks still running at the timeout (empty when all finished).
    """
    running = {t for t in tasks if t is not None and not t.done()}
    for task in running:
        task.cancel()
    if not running:
        return set()
    _, pending = await asyncio.wait(running, timeout=timeout_s)
    return pending


class BackgroundTasks:
    """Owns one loop task and the request tasks it spawns; ``stop`` cancels and awaits them all."""

    def __init__(self) -> None:
        self._task: asyncio.Task[None] | None = None
        self._requests: set[asyncio.Task[None]] = set()

    def start(self, loop_coro: Coroutine[Any, Any, None], name: str,
              on_done: Callable[[asyncio.Task[None]], None]) -> None:
        """Start the loop task.

        Args:
            loop_coro: the component's loop (runs until cancelled).
            name: the asyncio task name.
            on_done: done-callback of the loop task (reports a crash).
        """
        self._task = asyncio.get_running_loop().create_task(loop_coro, name=name)
        self._task.add_done_callback(on_done)

    def spawn(self, request_coro: Coroutine[Any, Any, None]) -> None:
        """Run one request as a task owned here until it finishes (``stop`` cancels it).

        Args:
            request_coro: the request's coroutine; it handles its own errors.
        """
        task = asyncio.get_running_loop().create_task(request_coro)
        self._requests.add(task)
        task.add_done_callback(self._requests.discard)

    async def stop(self, timeout_s: float = 5.0) -> None:
        """Cancel the loop task and the in-flight request tasks; await them.

        Args:
            timeout_s: how long to wait for the cancelled tasks to finish (seconds).
        """
        await cancel_and_wait([self._task, *self._requests], timeout_s)
        self._task = None

    @property
    def running(self) -> bool:
        """True while the loop task runs."""
        return self._task is not None and not self._task.done()


async def wait_for_wakeup(wakeup: asyncio.Event, wait_ms: float) -> None:
    """Wait until ``wakeup`` is set or ``wait_ms`` passes, whichever comes first.

    Args:
        wakeup: the loop's wake-up event (the caller clears it before looking for work).
        wait_ms: ms until the loop must look again; ``inf`` waits for the event only,
            anything below 1 ms waits 1 ms.
    """
    timeout = None if wait_ms == float("inf") else max(wait_ms, 1.0) / 1000
    # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancellation
    # that races with the event being set, and stop() would never finish.
    try:
        async with asyncio.timeout(timeout):
            await wakeup.wait()
    except TimeoutError:
        pass
