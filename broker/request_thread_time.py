"""RequestThreadTime: the time a request's handler itself runs on the event loop.

Owns: ``TimedCoroutine``, a wrapper that runs a handler's coroutine step by step and adds up the
time each step takes (ns), leaving out the time the handler waits (for replication, a purgatory,
the controller, a sleep).  That is the event-loop counterpart of Kafka's
``RequestChannel.Request.requestThreadTimeNanos`` (the time an I/O thread spent in
``KafkaApis.handle``), what a ``request_percentage`` quota (KIP-124) is measured in.  Does not own
the quota (``client_request_quota_manager``).

Kafka concept: ``RequestChannel.Request.requestThreadTimeNanos``.
"""

from __future__ import annotations

import time
from collections.abc import Coroutine, Generator
from typing import Any, TypeVar

T = TypeVar("T")


class TimedCoroutine(Coroutine[Any, Any, T]):
    """Runs ``coro`` (when awaited or handed to a task) and counts the time of its steps.

    Args:
        coro: the handler's coroutine, not yet started.

    Attributes:
        thread_time_ns: nanoseconds spent inside ``coro``'s steps so far (``time.perf_counter_ns``),
            the waits between them not counted.
    """

    def __init__(self, coro: Coroutine[Any, Any, T]) -> None:
        self._coro = coro
        self.thread_time_ns = 0

    def send(self, value: Any) -> Any:
        """Run ``coro`` to its next suspension; its return value ends the iteration (StopIteration)."""
        start = time.perf_counter_ns()
        try:
            return self._coro.send(value)
        finally:
            self.thread_time_ns += time.perf_counter_ns() - start

    def throw(self, typ: Any, val: Any = None, tb: Any = None) -> Any:  # type: ignore[override]
        """Raise an exception inside ``coro`` (a cancellation, a failed awaited future)."""
        start = time.perf_counter_ns()
        try:
            if val is None and tb is None:
                return self._coro.throw(typ)
            return self._coro.throw(typ, val, tb)
        finally:
            self.thread_time_ns += time.perf_counter_ns() - start

    def close(self) -> None:
        """Close ``coro`` (GeneratorExit inside it)."""
        self._coro.close()

    def __next__(self) -> Any:
        return self.send(None)

    def __await__(self) -> Generator[Any, None, T]:
        return self  # type: ignore[return-value]
