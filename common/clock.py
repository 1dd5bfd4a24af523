"""The clock a component is given: wall time, monotonic time and sleeping, behind one object.

Owns: ``Time`` (what a component may ask of its clock), ``SystemTime`` (the real one;
``SYSTEM_TIME`` is the shared instance) and ``MockTime`` (a clock tests move forward
with ``advance``; whatever sleeps on it wakes when its time has come, so a test of a
periodic job advances time instead of patching ``time`` or waiting).  Shared by broker,
controller and clients, so it lives below them.

Kafka concept: ``org.apache.kafka.common.utils.Time``, ``SystemTime`` and ``MockTime``.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable
from typing import Protocol


class Time(Protocol):
    """A clock.  Every method is cheap and never blocks the event loop."""

    def milliseconds(self) -> int:
        """Wall-clock time (ms since the epoch): timestamps, retention ages."""
        ...

    def monotonic_ms(self) -> float:
        """Monotonic time (ms, arbitrary origin): deadlines and intervals."""
        ...

    async def sleep(self, ms: float) -> None:
        """Suspend the calling task for ``ms`` milliseconds of this clock."""
        ...

    async def wait(self, event: asyncio.Event, timeout_ms: float) -> bool:
        """Wait until ``event`` is set or ``timeout_ms`` of this clock pass; True when it was set."""
        ...

    def call_later(self, ms: float, callback: Callable[[], None]) -> Timer:
        """Run ``callback`` on the event loop after ``ms`` milliseconds of this clock (the timer
        of a delayed operation: Kafka's ``Timer.add``); the returned timer's ``cancel`` stops it."""
        ...


class Timer(Protocol):
    """A callback scheduled by ``Time.call_later``."""

    def cancel(self) -> None:
        """Do not run the callback (no effect once it ran)."""
        ...


class SystemTime:
    """The machine's clocks (``time.time``, ``time.monotonic``, ``asyncio.sleep``)."""

    def milliseconds(self) -> int:
        return time.time_ns() // 1_000_000

    def monotonic_ms(self) -> float:
        return time.monotonic() * 1000.0

    async def sleep(self, ms: float) -> None:
        await asyncio.sleep(max(ms, 0.0) / 1000.0)

    async def wait(self, event: asyncio.Event, timeout_ms: float) -> bool:
        try:
            async with asyncio.timeout(max(timeout_ms, 0.0) / 1000.0):
                await event.wait()
        except TimeoutError:
            return False
        return True

    def call_later(self, ms: float, callback: Callable[[], None]) -> Timer:
        return asyncio.get_running_loop().call_later(max(ms, 0.0) / 1000.0, callback)


SYSTEM_TIME = SystemTime()


class _MockTimer:
    """A ``MockTime.call_later`` timer: fired by the ``advance`` that reaches its time."""

    __slots__ = ("callback", "cancelled")

    def __init__(self, callback: Callable[[], None]) -> None:
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class MockTime:
    """A clock that moves only when a test calls ``advance``.

    Args:
        wall_ms: the wall-clock reading to start from (ms since the epoch).
        monotonic_ms: the monotonic reading to start from (ms).

    A task sleeping on it is woken (its future resolved) by the ``advance`` that reaches
    its wake-up time; the test then lets the event loop run (``await asyncio.sleep(0)``)
    for the woken tasks to proceed.  A ``call_later`` timer runs inside that ``advance``.
    """

    def __init__(self, wall_ms: int = 1_700_000_000_000, monotonic_ms: float = 0.0) -> None:
        self._wall_ms = wall_ms
        self._monotonic_ms = monotonic_ms
        self._sleepers: list[tuple[float, int, asyncio.Future[None] | _MockTimer]] = []
        self._order = itertools.count()

    def milliseconds(self) -> int:
        return self._wall_ms

    def monotonic_ms(self) -> float:
        return self._monotonic_ms

    async def sleep(self, ms: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if ms <= 0:
            future.set_result(None)
        else:
            heapq.heappush(self._sleepers, (self._monotonic_ms + ms, next(self._order), future))
        await future

    async def wait(self, event: asyncio.Event, timeout_ms: float) -> bool:
        if event.is_set():
            return True
        waiter = asyncio.ensure_future(event.wait())
        sleeper = asyncio.ensure_future(self.sleep(timeout_ms))
        try:
            await asyncio.wait({waiter, sleeper}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (waiter, sleeper):
                task.cancel()
            await asyncio.wait({waiter, sleeper})
        return event.is_set()

    def call_later(self, ms: float, callback: Callable[[], None]) -> Timer:
        timer = _MockTimer(callback)
        heapq.heappush(self._sleepers, (self._monotonic_ms + max(ms, 0.0), next(self._order), timer))
        return timer

    @property
    def sleepers(self) -> int:
        """Tasks sleeping on this clock now (timers not counted)."""
        return sum(
            1 for _, _, waiter in self._sleepers if isinstance(waiter, asyncio.Future) and not waiter.done()
        )

    def advance(self, ms: float) -> None:
        """Move both readings forward by ``ms`` and wake every sleeper (run every timer) whose
        time has come, in wake-up order.

        Raises:
            ValueError: ``ms`` is negative.
        """
        if ms < 0:
            raise ValueError(f"a clock does not go back: advance({ms})")
        self._wall_ms += int(ms)
        self._monotonic_ms += ms
        while self._sleepers and self._sleepers[0][0] <= self._monotonic_ms:
            _, _, waiter = heapq.heappop(self._sleepers)
            if isinstance(waiter, _MockTimer):
                if not waiter.cancelled:
                    waiter.callback()
            elif not waiter.done():
                waiter.set_result(None)
