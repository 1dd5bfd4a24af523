"""Delayed operations and the purgatory that watches them.

Owns: ``DelayedOperation`` (an operation that completes exactly once: when
``try_complete`` finds its condition met, or when its timeout fires) and
``DelayedOperationPurgatory`` (operations watched by keys such as a
TopicPartition; ``check_and_complete(key)`` retries the operations watching a key;
a timer per operation expires it).  Does not own what the operations do: see
``delayed_produce.py``, ``delayed_delete_records.py`` (both over
``delayed_partition_operation.py``) and ``delayed_fetch.py``.

Everything runs on the event loop, so the "exactly once" guarantee needs no lock:
``force_complete`` flips ``is_completed`` before calling ``on_complete``.

Kafka concept: ``DelayedOperation``/``DelayedOperationPurgatory``
(tryCompleteElseWatch, checkAndComplete, forceComplete, onExpiration; Kafka's timing
wheel is replaced by the injected clock's timers, ``Time.call_later``: the event loop's
timer heap on the system clock, a test's ``MockTime`` otherwise).
"""

from __future__ import annotations

import logging
from collections.abc import Hashable, Iterable

from kafkette.common.clock import SYSTEM_TIME, Time, Timer

logger = logging.getLogger(__name__)


class DelayedOperation:
    """An operation delayed up to ``delay_ms`` until its completion condition holds.

    Subclasses implement ``try_complete`` (check; call ``force_complete`` when met;
    return its result), ``on_complete`` (build and deliver the result, once) and
    optionally ``on_expiration`` (bookkeeping after a timeout completion).

    States: pending -> completed (by try_complete or by expiry); never back.
    """

    def __init__(self, delay_ms: int) -> None:
        self.delay_ms = delay_ms
        self._completed = False
        self._timer: Timer | None = None

    @property
    def is_completed(self) -> bool:
        return self._completed

    def force_complete(self) -> bool:
        """Complete now unless already completed.

        Returns:
            True when this call completed the operation (``on_complete`` ran).
        """
        if self._completed:
            return False
        self._completed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        try:
            self.on_complete()
        except Exception:
            logger.exception("on_complete of %s failed", type(self).__name__)
        return True

    def try_complete(self) -> bool:
        """Check the completion condition; call ``force_complete`` when it holds."""
        raise NotImplementedError

    def on_complete(self) -> None:
        """Deliver the result; called exactly once."""
        raise NotImplementedError

    def on_expiration(self) -> None:
        """Called after a completion caused by the timeout."""

    def _expire(self) -> None:
        self._timer = None
        if self.force_complete():
            self.on_expiration()


class DelayedOperationPurgatory:
    """Watches delayed operations by key and expires them on time.

    Args:
        name: purgatory name for logs ("Produce", "Fetch").
        purge_interval_requests: completed watchers are purged from a key's list
            once this many operations were added since the last purge (Kafka's
            ``purgeInterval``).
        time: the clock whose timers expire operations (the node's ``KafkaScheduler.time``).
    """

    def __init__(self, name: str, purge_interval_requests: int = 1000, *, time: Time = SYSTEM_TIME) -> None:
        self.name = name
        self._time = time
        self._watchers: dict[Hashable, list[DelayedOperation]] = {}
        self._purge_interval = purge_interval_requests
        self._added_since_purge = 0
        self._pending: set[DelayedOperation] = set()
        self._closed = False

    def __len__(self) -> int:
        """Number of operations not yet completed."""
        return len(self._pending)

    def try_complete_else_watch(self, operation: DelayedOperation, keys: Iterable[Hashable]) -> bool:
        """Complete ``operation`` now if possible, else watch it under ``keys``.

        Returns:
            True when the operation completed during this call.
        """
        if operation.try_complete():
            return True
        keys = list(keys)
        for key in keys:
            self._watchers.setdefault(key, []).append(operation)
        if operation.try_complete():
            return True
        if self._closed:
            operation.force_complete()
            return True
        self._pending.add(operation)
        operation._timer = self._time.call_later(max(operation.delay_ms, 0), lambda: self._expire(operation))
        self._added_since_purge += 1
        if self._added_since_purge >= self._purge_interval:
            self.purge_completed()
        return False

    def _expire(self, operation: DelayedOperation) -> None:
        self._pending.discard(operation)
        operation._expire()

    def check_and_complete(self, key: Hashable) -> int:
        """Retry every operation watching ``key``.

        Returns:
            Number of operations completed by this call.
        """
        watchers = self._watchers.get(key)
        if not watchers:
            return 0
        completed = 0
        remaining: list[DelayedOperation] = []
        for op in list(watchers):
            if op.is_completed:
                self._pending.discard(op)
                continue
            if op.try_complete():
                completed += 1
                self._pending.discard(op)
            else:
                remaining.append(op)
        if remaining:
            self._watchers[key] = remaining
        else:
            self._watchers.pop(key, None)
        return completed

    def purge_completed(self) -> int:
        """Drop completed operations from every watch list; returns how many were dropped."""
        dropped = 0
        for key in list(self._watchers):
            ops = self._watchers[key]
            live = [op for op in ops if not op.is_completed]
            dropped += len(ops) - len(live)
            if live:
                self._watchers[key] = live
            else:
                del self._watchers[key]
        self._pending = {op for op in self._pending if not op.is_completed}
        self._added_since_purge = 0
        return dropped

    def watched(self, key: Hashable) -> int:
        """Number of not-yet-completed operations watching ``key``."""
        return sum(1 for op in self._watchers.get(key, ()) if not op.is_completed)

    def shutdown(self) -> None:
        """Expire every pending operation now (their on_complete delivers a timeout)."""
        self._closed = True
        for op in list(self._pending):
            op._expire()
        self._pending.clear()
        self._watchers.clear()
