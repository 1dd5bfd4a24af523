"""Exponential backoff with jitter, as Kafka's clients compute it (KIP-580).

Owns: ``ExponentialBackoff`` (the wait before the next attempt, from the number of
attempts that failed before it) and Kafka's constants for retries and reconnects.  Does not
own the counting of attempts nor any waiting: the producer's RecordAccumulator counts a
batch's attempts, ``ClusterMetadata`` its failed and unproductive refreshes,
``ClusterConnectionStates`` the failed connects to a broker; each asks this class how long
to wait.

Kafka concept: ``org.apache.kafka.common.utils.ExponentialBackoff`` with
``CommonClientConfigs.RETRY_BACKOFF_EXP_BASE`` / ``RETRY_BACKOFF_JITTER`` (used with
``retry.backoff.ms`` and ``retry.backoff.max.ms``) and ``ClusterConnectionStates``'
``RECONNECT_BACKOFF_EXP_BASE`` / ``RECONNECT_BACKOFF_JITTER`` (used with
``reconnect.backoff.ms`` and ``reconnect.backoff.max.ms``).
"""

from __future__ import annotations

import math
import random

# Kafka's CommonClientConfigs: retry.backoff.ms grows by this factor per failed attempt, and
# each wait is drawn uniformly within +-20% of the computed value.
RETRY_BACKOFF_EXP_BASE = 2
RETRY_BACKOFF_JITTER = 0.2
# Kafka's ClusterConnectionStates: the same for reconnect.backoff.ms.
RECONNECT_BACKOFF_EXP_BASE = 2
RECONNECT_BACKOFF_JITTER = 0.2

# Kafka's client defaults (ms).
DEFAULT_RETRY_BACKOFF_MS = 100
DEFAULT_RETRY_BACKOFF_MAX_MS = 1000
DEFAULT_RECONNECT_BACKOFF_MS = 50
DEFAULT_RECONNECT_BACKOFF_MAX_MS = 1000


class ExponentialBackoff:
    """``backoff(attempts) = random(1 - jitter, 1 + jitter) * initial * multiplier ** attempts``,
    never above ``max_interval_ms``.

    The exponent stops growing once ``initial * multiplier ** attempts`` reaches
    ``max_interval_ms``, so the waits settle at the maximum with jitter below it only (the
    jitter never takes a wait above the maximum).  A maximum below the initial interval gives
    a constant backoff of the maximum (Kafka: "a static backoff ... will be applied").

    Example (Kafka's defaults, ``retry.backoff.ms=100``, ``retry.backoff.max.ms=1000``): waits
    of about 100, 200, 400, 800 ms, then between 800 and 1000 ms.

    Args:
        initial_interval_ms: the first wait (ms), e.g. ``retry.backoff.ms``; >= 0.
        multiplier: growth factor per attempt (Kafka uses 2); >= 1.
        max_interval_ms: the largest wait (ms), e.g. ``retry.backoff.max.ms``; >= 0.
        jitter: relative spread of each wait (Kafka uses 0.2); 0 <= jitter < 1.
        rng: the source of the jitter (a seeded ``random.Random`` in tests).

    Raises:
        ValueError: an argument outside its range.
    """

    def __init__(
        self,
        initial_interval_ms: float,
        multiplier: float,
        max_interval_ms: float,
        jitter: float,
        rng: random.Random | None = None,
    ) -> None:
        if initial_interval_ms < 0 or max_interval_ms < 0:
            raise ValueError(
                f"backoff intervals must be >= 0 ms, got {initial_interval_ms} and {max_interval_ms}"
            )
        if multiplier < 1:
            raise ValueError(f"backoff multiplier must be >= 1, got {multiplier}")
        if not 0 <= jitter < 1:
            raise ValueError(f"backoff jitter must be in [0, 1), got {jitter}")
        self.initial_interval_ms = min(initial_interval_ms, max_interval_ms)
        self.multiplier = multiplier
        self.max_interval_ms = max_interval_ms
        self.jitter = jitter
        self._rng = rng if rng is not None else random.Random()
        if max_interval_ms > self.initial_interval_ms and multiplier > 1:
            self._exp_max = math.log(max_interval_ms / max(self.initial_interval_ms, 1)) / math.log(
                multiplier
            )
        else:
            self._exp_max = 0.0

    def backoff(self, attempts: int) -> float:
        """The wait before the next attempt (ms).

        Args:
            attempts: attempts that already failed before the first wait's count: 0 for the
                first retry (wait about ``initial_interval_ms``), 1 for the second, ...
        """
        if self._exp_max == 0:
            return float(self.initial_interval_ms)
        term = self.initial_interval_ms * self.multiplier ** min(max(attempts, 0), self._exp_max)
        if self.jitter > 0:
            term *= self._rng.uniform(1 - self.jitter, 1 + self.jitter)
        return float(min(math.floor(term), self.max_interval_ms))

    def __repr__(self) -> str:
        return (
            f"ExponentialBackoff(initial_interval_ms={self.initial_interval_ms}, "
            f"multiplier={self.multiplier}, max_interval_ms={self.max_interval_ms}, jitter={self.jitter})"
        )
