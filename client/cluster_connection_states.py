"""The client's reconnect backoff per broker address
(``reconnect.backoff.ms`` .. ``reconnect.backoff.max.ms``).

Owns: ``ClusterConnectionStates``, the consecutive failed connects to each address and the
time before which the client does not try that address again: ``reconnect.backoff.ms``
after the first failure, doubling per further failure (with 20% jitter) up to
``reconnect.backoff.max.ms``; a connection that opens resets it.  Pure bookkeeping, no
I/O and no asyncio: ``kafkette.client.kafka_client.KafkaClient`` asks it before connecting
and tells it the outcome; the producer's Sender asks it whether a leader can be sent to
now.

Kafka concept: ``org.apache.kafka.clients.ClusterConnectionStates`` (its reconnect backoff;
``NetworkClient.connectionDelay`` / ``isReady``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from kafkette.client.exponential_backoff import (
    DEFAULT_RECONNECT_BACKOFF_MAX_MS,
    DEFAULT_RECONNECT_BACKOFF_MS,
    RECONNECT_BACKOFF_EXP_BASE,
    RECONNECT_BACKOFF_JITTER,
    ExponentialBackoff,
)


@dataclass(slots=True)
class _ConnectState:
    failed_attempts: int
    retry_at_ms: float


class ClusterConnectionStates:
    """Reconnect backoff of every address the client failed to connect to.

    Invariant: an address is present only while its last connect failed; its
    ``retry_at_ms`` is the failure time plus ``backoff(failed_attempts - 1)``.

    Args:
        reconnect_backoff_ms: the wait after a first failed connect (ms); >= 0.
        reconnect_backoff_max_ms: the largest wait (ms); >= 0.
        clock: monotonic clock in seconds (injected for tests).
        rng: the jitter's source (seeded in tests).

    Raises:
        ValueError: a negative backoff.
    """

    def __init__(
        self,
        reconnect_backoff_ms: int = DEFAULT_RECONNECT_BACKOFF_MS,
        reconnect_backoff_max_ms: int = DEFAULT_RECONNECT_BACKOFF_MAX_MS,
        *,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        self._backoff = ExponentialBackoff(
            reconnect_backoff_ms,
            RECONNECT_BACKOFF_EXP_BASE,
            reconnect_backoff_max_ms,
            RECONNECT_BACKOFF_JITTER,
            rng,
        )
        self._clock = clock
        self._states: dict[Hashable, _ConnectState] = {}

    def connection_delay_ms(self, address: Hashable) -> float:
        """Milliseconds before a connect to ``address`` may be tried (0 = now)."""
        state = self._states.get(address)
        if state is None:
            return 0.0
        return max(state.retry_at_ms - self._clock() * 1000.0, 0.0)

    def failed_attempts(self, address: Hashable) -> int:
        """Consecutive failed connects to ``address`` (0 once one succeeded)."""
        state = self._states.get(address)
        return 0 if state is None else state.failed_attempts

    def connect_failed(self, address: Hashable) -> float:
        """Note a failed connect to ``address``; start (or lengthen) its backoff.

        Returns:
            The backoff before the next connect to it (ms).
        """
        state = self._states.get(address)
        attempts = 1 if state is None else state.failed_attempts + 1
        backoff_ms = self._backoff.backoff(attempts - 1)
        self._states[address] = _ConnectState(attempts, self._clock() * 1000.0 + backoff_ms)
        return backoff_ms

    def connected(self, address: Hashable) -> int:
        """Note a connection that opened: the backoff of ``address`` ends.

        Returns:
            How many connects had failed in a row before it.
        """
        state = self._states.pop(address, None)
        return 0 if state is None else state.failed_attempts
