"""The one way a component starts and stops its background tasks.

Owns: ``ShutdownableTask``, one named long-running task of a component (a fetcher's,
a manager's or a loop's): started from a coroutine function, a crash logged at ERROR with
its traceback and kept as ``failure`` (and handed to an ``on_failure`` callback), stopped
by ``shutdown`` with a bounded cancel-and-await; ``BackgroundTasks``, a loop task plus the
request tasks it spawns (the producer's ``Sender`` and the consumer's ``Fetcher``);
``cancel_and_wait``, the bounded cancel-and-await under both; and ``wait_for_wakeup``, a
loop's bounded wait on its wake-up event.  Does not own what the tasks do.

Kafka concept: ``org.apache.kafka.server.util.ShutdownableThread`` (``start``,
``initiateShutdown``, ``awaitShutdown``, an uncaught error logged) on asyncio tasks.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any

logger = logging.getLogger(__name__)

SHUTDOWN_TIMEOUT_S = 5.0


async def cancel_and_wait(
    tasks: Iterable[asyncio.Task[Any] | None], timeout_s: float
) -> set[asyncio.Task[Any]]:
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


class ShutdownableTask:
    """One named long-running task of a component, started and stopped one way.

    ``start(work)`` runs ``await work()`` as a task named ``name``; the work runs until it
    returns or is cancelled.  An exception ends it: it is logged at ERROR with the
    traceback, kept in ``failure`` and passed to ``on_failure`` (the component then fails
    what waits on it, or lets a supervisor restart it).  ``shutdown`` cancels it and waits
    at most ``timeout_s``.

    Args:
        name: the asyncio task name (``log-cleaner``, ``replica-fetcher-1-0``, ...).
        log_prefix: the owning component's log prefix; ``[name]`` when None.
        on_failure: called with the exception when the work crashes.
    """

    def __init__(
        self,
        name: str,
        *,
        log_prefix: str | None = None,
        on_failure: Callable[[BaseException], None] | None = None,
    ) -> None:
        self.name = name
        self._prefix = log_prefix or f"[{name}]"
        self._on_failure = on_failure
        self._task: asyncio.Task[None] | None = None
        self.failure: BaseException | None = None

    def start(self, work: Callable[[], Awaitable[None]]) -> None:
        """Start ``await work()`` as the task (needs a running event loop).

        Raises:
            RuntimeError: the task is already running, or no event loop runs.
        """
        if self.running:
            raise RuntimeError(f"{self._prefix} {self.name} is already running")
        self.failure = None
        self._task = asyncio.get_running_loop().create_task(self._run(work), name=self.name)

    async def _run(self, work: Callable[[], Awaitable[None]]) -> None:
        try:
            await work()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.failure = exc
            logger.error("%s %s crashed", self._prefix, self.name, exc_info=exc)
            if self._on_failure is not None:
                self._on_failure(exc)

    @property
    def running(self) -> bool:
        """True from ``start`` until the work ends, crashes or is shut down."""
        return self._task is not None and not self._task.done()

    @property
    def task(self) -> asyncio.Task[None] | None:
        """The asyncio task (None before ``start`` and after ``shutdown``)."""
        return self._task

    def initiate_shutdown(self) -> asyncio.Task[None] | None:
        """Cancel the task without waiting (Kafka's ``initiateShutdown``).

        Returns:
            The cancelled asyncio task, for the caller to await (bounded) later; None when
            it was not started.
        """
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
        return task

    async def shutdown(self, timeout_s: float = SHUTDOWN_TIMEOUT_S) -> bool:
        """Cancel the task and wait for it to end, at most ``timeout_s`` seconds (Kafka's
        ``initiateShutdown`` then ``awaitShutdown``).

        Returns:
            True when it ended (or never ran), False when it was still running at the timeout
            (logged at ERROR).
        """
        pending = await cancel_and_wait([self.initiate_shutdown()], timeout_s)
        if pending:
            logger.error("%s %s did not stop within %.1f s", self._prefix, self.name, timeout_s)
        return not pending


class BackgroundTasks:
    """Owns one loop task (a ``ShutdownableTask``) and the request tasks it spawns; ``stop``
    cancels and awaits them all."""

    def __init__(self) -> None:
        self._loop_task: ShutdownableTask | None = None
        self._requests: set[asyncio.Task[None]] = set()

    def start(
        self,
        loop: Callable[[], Awaitable[None]],
        name: str,
        on_failure: Callable[[BaseException], None] | None = None,
        *,
        log_prefix: str | None = None,
    ) -> None:
        """Start the loop task.

        Args:
            loop: the component's loop function (runs until cancelled).
            name: the asyncio task name.
            on_failure: called with the exception when the loop crashes (it is logged either way).
            log_prefix: the component's log prefix.
        """
        self._loop_task = ShutdownableTask(name, log_prefix=log_prefix, on_failure=on_failure)
        self._loop_task.start(loop)

    def spawn(self, request_coro: Coroutine[Any, Any, None]) -> None:
        """Run one request as a task owned here until it finishes (``stop`` cancels it).

        Args:
            request_coro: the request's coroutine; it handles its own errors.
        """
        task = asyncio.get_running_loop().create_task(request_coro)
        self._requests.add(task)
        task.add_done_callback(self._requests.discard)

    async def stop(self, timeout_s: float = SHUTDOWN_TIMEOUT_S) -> None:
        """Cancel the loop task and the in-flight request tasks; await them.

        Args:
            timeout_s: how long to wait for the cancelled tasks to finish (seconds).
        """
        loop_task, self._loop_task = self._loop_task, None
        await cancel_and_wait([loop_task.task if loop_task else None, *self._requests], timeout_s)

    @property
    def running(self) -> bool:
        """True while the loop task runs."""
        return self._loop_task is not None and self._loop_task.running


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
