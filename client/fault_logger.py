"""The log lines of a retry loop: once when a fault starts, rate-limited while it lasts, once when it clears.

Owns: ``FaultLogger``, the per-key fault state of one retry loop (a partition the producer
cannot write to, a broker it cannot connect to, the metadata refresh) and the lines it
writes: a WARNING when a key starts failing, at most one WARNING per ``interval_ms`` per key
while it keeps failing (the latest error and how long it has lasted), and an INFO when it
succeeds again.  The failures in between go to DEBUG.  Does not own the retrying itself
nor its backoff (``kafkette.client.exponential_backoff``).

Kafka's clients log every retry (``Sender``: "Got error produce response ..., retrying";
``NetworkClient``: "Connection to node ... could not be established"), spaced only by
their backoff; the house rule is stricter: a retry loop logs once when a fault starts and
once when it clears, and rate-limits the lines between.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass

# The house rule's interval: at most one line per key per this many ms while a fault lasts.
DEFAULT_FAULT_LOG_INTERVAL_MS = 10_000


@dataclass(slots=True)
class _Fault:
    subject: str
    started_ms: float
    last_logged_ms: float
    failures: int = 1


class FaultLogger:
    """Logs one retry loop's faults per key, at most one WARNING per key per ``interval_ms``.

    States of a key: healthy (absent) -> failing (``failed``: one WARNING) -> failing
    (``failed`` again: a WARNING only when ``interval_ms`` has passed since the last line
    for that key, else DEBUG) -> healthy (``cleared``: one INFO; ``forget``: no line).

    Args:
        logger: the logger of the module that retries.
        prefix: the identity prefix of every line (``[Producer clientId=p1]``).
        interval_ms: least time between two WARNINGs for one key while it fails (ms).
        clock: monotonic clock in seconds (injected for tests).

    Raises:
        ValueError: ``interval_ms`` below 0.
    """

    def __init__(
        self,
        logger: logging.Logger,
        prefix: str,
        *,
        interval_ms: float = DEFAULT_FAULT_LOG_INTERVAL_MS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if interval_ms < 0:
            raise ValueError(f"interval_ms must be >= 0, got {interval_ms}")
        self._logger = logger
        self._prefix = prefix
        self.interval_ms = interval_ms
        self._clock = clock
        self._faults: dict[Hashable, _Fault] = {}

    def __bool__(self) -> bool:
        """True while any key is failing (a cheap test before ``cleared`` on a hot path)."""
        return bool(self._faults)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._faults

    def failing(self) -> list[Hashable]:
        """The keys failing now, in the order their faults started."""
        return list(self._faults)

    def failed(self, key: Hashable, subject: str, error: object, *, start_message: str | None = None) -> bool:
        """Note one failure of ``key``.

        Args:
            key: what failed (a TopicPartition, an address, ...).
            subject: what failed, for the lines that follow (``Produce to topic-partition t-0``).
            error: the failure (an exception or a text).
            start_message: the WARNING when the fault starts (default
                ``"<subject> failed, retrying: <error>"``).

        Returns:
            True when a line was logged at WARNING.
        """
        now = self._clock() * 1000.0
        fault = self._faults.get(key)
        if fault is None:
            self._faults[key] = _Fault(subject, now, now)
            self._logger.warning(
                "%s %s", self._prefix, start_message or f"{subject} failed, retrying: {error}"
            )
            return True
        fault.failures += 1
        fault.subject = subject
        if now - fault.last_logged_ms < self.interval_ms:
            self._logger.debug(
                "%s %s failed again (%d failures): %s", self._prefix, subject, fault.failures, error
            )
            return False
        fault.last_logged_ms = now
        self._logger.warning(
            "%s %s still failing after %.0f s (%d failures), retrying: %s",
            self._prefix,
            subject,
            (now - fault.started_ms) / 1000,
            fault.failures,
            error,
        )
        return True

    def cleared(self, key: Hashable) -> bool:
        """Note that ``key`` succeeded: one INFO if it was failing.

        Returns:
            True when ``key`` was failing (and the INFO was logged).
        """
        fault = self._faults.pop(key, None)
        if fault is None:
            return False
        now = self._clock() * 1000.0
        self._logger.info(
            "%s %s succeeded again after %.1f s (%d failures)",
            self._prefix,
            fault.subject,
            (now - fault.started_ms) / 1000,
            fault.failures,
        )
        return True

    def forget(self, key: Hashable) -> None:
        """Drop ``key``'s fault without a line (the loop gave up on it, or it is gone)."""
        self._faults.pop(key, None)
