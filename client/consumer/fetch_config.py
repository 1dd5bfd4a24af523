"""The consumer's fetch settings: what every FetchRequest the consumer sends asks of the broker.

Owns: ``FetchConfig``, the four FetchRequest bounds with Kafka's consumer defaults and
their validation, and the isolation level (``isolation.level``: 0 read_uncommitted, 1
read_committed).  Does not own timeouts or backoff (``request.timeout.ms``,
``retry.backoff.ms`` belong to the client as a whole), nor sending fetches (Fetcher).

Kafka concept: ``org.apache.kafka.clients.consumer.internals.FetchConfig`` (the
``fetch.max.wait.ms``, ``fetch.min.bytes``, ``fetch.max.bytes`` and
``max.partition.fetch.bytes`` and ``isolation.level`` consumer configs).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FetchConfig:
    """The bounds of each FetchRequest.

    Attributes:
        fetch_max_wait_ms: how long the broker may hold a fetch for ``fetch_min_bytes``
            (ms; FetchRequest ``max_wait_ms``).
        fetch_min_bytes: bytes the broker waits for before answering (bytes; ``min_bytes``).
        fetch_max_bytes: bound of one fetch response (bytes; ``max_bytes``).
        max_partition_fetch_bytes: bound per partition per fetch (bytes; ``partition_max_bytes``).
        isolation_level: 0 (read_uncommitted: up to the high watermark) or 1 (read_committed: up to
            the last stable offset, aborted transactions dropped; KIP-98).

    Raises:
        ValueError: a negative wait or minimum, or a maximum below 1 byte.
    """

    fetch_max_wait_ms: int = 500
    fetch_min_bytes: int = 1
    fetch_max_bytes: int = 52428800
    max_partition_fetch_bytes: int = 1048576
    isolation_level: int = 0

    def __post_init__(self) -> None:
        if (
            self.fetch_max_wait_ms < 0
            or self.fetch_min_bytes < 0
            or self.fetch_max_bytes < 1
            or self.max_partition_fetch_bytes < 1
        ):
            raise ValueError("fetch sizes must be positive and fetch_max_wait_ms >= 0")
        if self.isolation_level not in (0, 1):
            raise ValueError(f"isolation_level must be 0 or 1, not {self.isolation_level!r}")
