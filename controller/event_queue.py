"""ControllerEventManager: one bounded queue of events drained by one task.

Owns: the event queue (bounded by ``max_queued_events``), the single task that runs
events one at a time, and the futures through which callers get each event's
result.  Every read or write of controller state happens inside an event, so the
controller needs no locks.  Does not own what events do (``KafkaController``).

Kafka concept: ``ControllerEventManager`` (ZK controller) / ``KafkaEventQueue`` of
the ``QuorumController``; on asyncio, one task draining one ``asyncio.Queue``.

Guarantees:
- events run in submission order, one at a time, each to completion;
- an event whose caller gave up (timed out) before it started is skipped;
- an event that raises fails its own future only; the queue keeps running;
- ``stop()`` cancels the task and fails every pending future with ``NotControllerError``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from kafkette.common.background_tasks import ShutdownableTask
from kafkette.controller.controller_channel_manager import mark_retrieved
from kafkette.protocol.errors import KafkaTimeoutError, NotControllerError

logger = logging.getLogger(__name__)

T = TypeVar("T")

STOP_TIMEOUT_S = 10.0


@dataclass
class ControllerEvent:
    """A named unit of controller work and the future that receives its result."""

    name: str
    handler: Callable[[], Awaitable[Any]]
    future: asyncio.Future[Any]


class ControllerEventManager:
    """Runs controller events one at a time on a single asyncio task.

    Args:
        log_prefix: callable returning ``[Controller id=N epoch=E]``.
        max_queued_events: bound on events waiting to run; submitters wait for room.
    """

    def __init__(self, log_prefix: Callable[[], str] = lambda: "", *, max_queued_events: int = 1000) -> None:
        if max_queued_events < 1:
            raise ValueError(f"max_queued_events must be >= 1, got {max_queued_events}")
        self._log_prefix = log_prefix
        self._queue: asyncio.Queue[ControllerEvent] = asyncio.Queue(max_queued_events)
        self._task = ShutdownableTask("controller-event-thread")
        self._stopped = False

    @property
    def running(self) -> bool:
        """True between ``start()`` and ``stop()``."""
        return self._task.running and not self._stopped

    def start(self) -> None:
        """Start the event task (idempotent until stopped)."""
        if self._stopped:
            raise RuntimeError("ControllerEventManager cannot be restarted after stop()")
        if not self._task.running:
            self._task.start(self._run)

    async def submit(self, name: str, handler: Callable[[], Awaitable[T]], *, timeout_ms: int) -> T:
        """Queue ``handler`` as an event and wait for its result.

        Args:
            name: event name for logs (Kafka's event names, e.g. ``BrokerHeartbeat``).
            handler: coroutine function run inside the event task.
            timeout_ms: bound on the whole wait (room in the queue plus running).

        Returns:
            What ``handler`` returned.

        Raises:
            NotControllerError: the manager is not running, or stopped while waiting.
            KafkaTimeoutError: not done within ``timeout_ms`` (the event is skipped if
                it had not started; if it had, it still completes).
            Exception: whatever ``handler`` raised.

        Cancellation: cancelling the caller abandons the event in the same way.
        """
        if not self.running:
            raise NotControllerError(f"{self._log_prefix()} controller is not running")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        event = ControllerEvent(name, handler, future)
        try:
            async with asyncio.timeout(timeout_ms / 1000):
                await self._queue.put(event)
                return await asyncio.shield(future)
        except TimeoutError as exc:
            raise KafkaTimeoutError(f"{name} did not complete within {timeout_ms} ms") from exc
        finally:
            if not future.done():
                future.cancel()

    def try_submit(self, name: str, handler: Callable[[], Awaitable[Any]]) -> asyncio.Future[Any] | None:
        """Queue an event without waiting (for periodic events such as the session check).

        Returns:
            The event's future, or None when the queue is full or the manager stopped.
        """
        if not self.running:
            return None
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        try:
            self._queue.put_nowait(ControllerEvent(name, handler, future))
        except asyncio.QueueFull:
            return None
        return future

    async def _run(self) -> None:
        while True:
            event = await self._queue.get()
            if event.future.done():
                continue
            try:
                result = await event.handler()
            except asyncio.CancelledError:
                if not event.future.done():
                    event.future.set_exception(NotControllerError(f"{self._log_prefix()} controller stopped"))
                raise
            except Exception as exc:
                logger.exception("%s Error processing event %s", self._log_prefix(), event.name)
                if not event.future.done():
                    event.future.set_exception(exc)
            else:
                if not event.future.done():
                    event.future.set_result(result)

    async def stop(self) -> None:
        """Cancel and await the event task; fail every queued event with ``NotControllerError``."""
        self._stopped = True
        await self._task.shutdown(STOP_TIMEOUT_S)
        while not self._queue.empty():
            event = self._queue.get_nowait()
            if not event.future.done():
                event.future.set_exception(NotControllerError(f"{self._log_prefix()} controller stopped"))


def submit_unless_pending(
    pending: asyncio.Future[Any] | None,
    try_submit: Callable[[str, Callable[[], Awaitable[Any]]], asyncio.Future[Any] | None],
    name: str,
    handler: Callable[[], Awaitable[Any]],
) -> asyncio.Future[Any] | None:
    """Queue a periodic event unless its last one is still queued or running (a slow check is
    not queued again behind itself).

    Args:
        pending: the future of the event queued last time, or None.
        try_submit: ``ControllerEventManager.try_submit`` (or an operations object's).
        name, handler: the event.

    Returns:
        The future to keep as pending: ``pending`` while it runs, else the new event's (its
        result marked retrieved), or None when the queue refused it.
    """
    if pending is not None and not pending.done():
        return pending
    future = try_submit(name, handler)
    if future is not None:
        future.add_done_callback(mark_retrieved)
    return future
