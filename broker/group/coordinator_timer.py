"""Keyed timers of the consumer group coordinator: a member's session and rebalance deadlines.

Owns: ``CoordinatorTimer``, timers named by a key (``"session-timeout-<group>-<member>"``): scheduling a
key replaces its earlier timer, ``schedule_if_absent`` keeps it, ``cancel`` drops it.  When a timer
fires, its operation (a coroutine function: fencing the member, which writes records) runs as a task
the timer owns; ``stop`` cancels every pending timer and cancels and awaits the running operations.
A failing operation is logged and dropped, as Kafka's timer logs an operation's exception.  Does not
own what the operations do, nor the lock they take.

Kafka concept: ``org.apache.kafka.coordinator.common.runtime.CoordinatorTimer`` (``schedule``,
``scheduleIfAbsent``, ``cancel``, ``isScheduled``) over the runtime's timer, used by
``GroupMetadataManager.scheduleConsumerGroupSessionTimeout`` and
``scheduleConsumerGroupRebalanceTimeout``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from kafkette.common.background_tasks import cancel_and_wait
from kafkette.common.clock import Time, Timer

logger = logging.getLogger(__name__)

STOP_TIMEOUT_S = 5.0

TimerOperation = Callable[[], Awaitable[None]]
"""What a timer runs when it fires: a coroutine function of no arguments."""


class CoordinatorTimer:
    """Timers by key, on a clock.

    Args:
        time: the clock whose ``call_later`` fires the timers (``MockTime`` in tests).
    """

    def __init__(self, time: Time) -> None:
        self._time = time
        self._timers: dict[str, Timer] = {}
        self._running: set[asyncio.Task[Any]] = set()
        self._stopped = False

    def schedule(self, key: str, delay_ms: float, operation: TimerOperation) -> None:
        """Run ``operation`` in ``delay_ms`` ms, replacing ``key``'s pending timer if any.

        Raises:
            RuntimeError: the timer was stopped.
        """
        if self._stopped:
            raise RuntimeError("the coordinator timer is stopped")
        self.cancel(key)
        self._timers[key] = self._time.call_later(delay_ms, lambda: self._fire(key, operation))

    def schedule_if_absent(self, key: str, delay_ms: float, operation: TimerOperation) -> None:
        """``schedule`` unless ``key`` already has a pending timer (which is kept as it is)."""
        if key not in self._timers:
            self.schedule(key, delay_ms, operation)

    def cancel(self, key: str) -> None:
        """Drop ``key``'s pending timer; no effect when it has none or it already fired."""
        timer = self._timers.pop(key, None)
        if timer is not None:
            timer.cancel()

    def is_scheduled(self, key: str) -> bool:
        """Whether ``key`` has a timer that has not fired yet."""
        return key in self._timers

    @property
    def size(self) -> int:
        """The pending timers."""
        return len(self._timers)

    def _fire(self, key: str, operation: TimerOperation) -> None:
        self._timers.pop(key, None)
        if self._stopped:
            return
        task = asyncio.get_running_loop().create_task(
            self._run(key, operation), name=f"coordinator-timer-{key}"
        )
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    @staticmethod
    async def _run(key: str, operation: TimerOperation) -> None:
        try:
            await operation()
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("Timer %s failed", key)

    async def stop(self, timeout_s: float = STOP_TIMEOUT_S) -> None:
        """Cancel every pending timer, then cancel and await the operations running (at most
        ``timeout_s`` seconds); later ``schedule`` calls raise."""
        self._stopped = True
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        await cancel_and_wait(list(self._running), timeout_s)
