"""The client's cache of cluster metadata: brokers, controller and partition leadership.

Owns: ``BrokerMetadata``, ``PartitionMetadata`` and ``ClusterMetadata``, a plain
in-memory view built from Metadata responses, with the bookkeeping that decides when
the next refresh is due (``metadata.max.age.ms``, explicit update requests, and the
refresh backoff: ``retry.backoff.ms`` growing exponentially to ``retry.backoff.max.ms``
over refreshes that failed, or that answered the same leaders as before, KIP-580).
Does not own any I/O or asyncio: ``kafkette.client.kafka_client.KafkaClient`` sends the
Metadata requests and feeds the responses in here; listeners (the producer's Sender) are
told after each response applied.

Kafka concept: ``org.apache.kafka.clients.Metadata`` and ``Cluster`` (aiokafka's
``ClusterMetadata``).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from kafkette.client.exponential_backoff import (
    DEFAULT_RETRY_BACKOFF_MAX_MS,
    DEFAULT_RETRY_BACKOFF_MS,
    RETRY_BACKOFF_EXP_BASE,
    RETRY_BACKOFF_JITTER,
    ExponentialBackoff,
)
from kafkette.protocol.apis.metadata import MetadataResponse
from kafkette.protocol.errors import Errors
from kafkette.protocol.topic_partition import TopicPartition

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class BrokerMetadata:
    """One live broker as published in Metadata: ``node_id`` at ``host:port``."""

    node_id: int
    host: str
    port: int
    rack: str | None = None


@dataclass(frozen=True, slots=True)
class PartitionMetadata:
    """Leadership of one partition as published in Metadata.

    Attributes:
        leader: broker id of the leader, -1 when the partition has none.
        leader_epoch: epoch of that leadership (-1 unknown).
        replicas, isr, offline_replicas: broker ids, in the controller's order.
        error_code: the partition's Metadata error (LEADER_NOT_AVAILABLE when leaderless).
    """

    topic: str
    partition: int
    leader: int
    leader_epoch: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    offline_replicas: tuple[int, ...]
    error_code: int = 0


class ClusterMetadata:
    """A cache of the cluster's brokers, controller and partitions.

    Invariants: ``brokers`` only changes on a non-empty broker list (an empty answer
    from a starting broker is ignored, as Kafka does); a response for a list of topics
    replaces exactly those topics, a response for all topics replaces them all.

    Refresh backoff (Kafka's ``Metadata.timeToAllowUpdate``): after a refresh, the next one
    waits ``backoff(n - 1)`` of an ``ExponentialBackoff(retry_backoff_ms, 2,
    retry_backoff_max_ms, 0.2)``, where n counts the refreshes that failed in a row, or else
    the responses in a row that brought no partition a newer leader epoch ("equivalent
    responses": a partition without a leader keeps answering the same; the count starts over
    at a refresh made once ``metadata_max_age_ms`` has passed); at least ``backoff(0)``,
    about ``retry_backoff_ms``.  A refresh for a newly added topic is not held back.

    Args:
        metadata_max_age_ms: refresh at least this often even without errors (ms).
        retry_backoff_ms: the least time between two refreshes (ms), Kafka's ``retry.backoff.ms``.
        retry_backoff_max_ms: the most time between two refreshes that failed or brought nothing
            new (ms), Kafka's ``retry.backoff.max.ms``.
        clock: monotonic clock in seconds (injected for tests).
        rng: the backoff's jitter source (seeded in tests).
    """

    def __init__(
        self,
        *,
        metadata_max_age_ms: int = 300000,
        retry_backoff_ms: int = DEFAULT_RETRY_BACKOFF_MS,
        retry_backoff_max_ms: int = DEFAULT_RETRY_BACKOFF_MAX_MS,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        if metadata_max_age_ms < 0 or retry_backoff_ms < 0 or retry_backoff_max_ms < 0:
            raise ValueError("metadata_max_age_ms, retry_backoff_ms and retry_backoff_max_ms must be >= 0")
        self.metadata_max_age_ms = metadata_max_age_ms
        self.retry_backoff_ms = retry_backoff_ms
        self._refresh_backoff = ExponentialBackoff(
            retry_backoff_ms, RETRY_BACKOFF_EXP_BASE, retry_backoff_max_ms, RETRY_BACKOFF_JITTER, rng
        )
        self._failed_attempts = 0  # refreshes without an answer since the last answer
        self._equivalent_responses = 0  # answers in a row that brought no newer leader epoch
        self._backoff_ms = self._refresh_backoff.backoff(0)  # least time after _last_refresh_ms
        self._clock = clock
        self._brokers: dict[int, BrokerMetadata] = {}
        self._partitions: dict[str, dict[int, PartitionMetadata]] = {}
        self._topic_errors: dict[str, int] = {}
        self.controller_id = -1
        self.cluster_id: str | None = None
        self._need_update = True
        self._last_refresh_ms = -1.0e18
        self._last_successful_refresh_ms = -1.0e18
        self.version = 0
        self._update_listeners: list[Callable[[], None]] = []

    # --- reads -------------------------------------------------------------------

    def brokers(self) -> dict[int, BrokerMetadata]:
        """``{node_id: BrokerMetadata}`` of the live brokers last seen."""
        return dict(self._brokers)

    def broker(self, node_id: int) -> BrokerMetadata | None:
        """The broker with ``node_id``, or None when it is not (or no longer) live."""
        return self._brokers.get(node_id)

    def topics(self) -> set[str]:
        """Names of the topics whose partitions are cached."""
        return set(self._partitions)

    def topic_error(self, topic: str) -> int:
        """The topic-level error of the last response naming ``topic`` (0 = none)."""
        return self._topic_errors.get(topic, 0)

    def partitions_for_topic(self, topic: str) -> list[int] | None:
        """Sorted partition ids of ``topic``, or None when the topic is not cached."""
        parts = self._partitions.get(topic)
        return None if parts is None else sorted(parts)

    def available_partitions_for_topic(self, topic: str) -> list[int]:
        """Sorted partition ids of ``topic`` that have a live leader (empty if unknown)."""
        parts = self._partitions.get(topic)
        if not parts:
            return []
        return sorted(p for p, meta in parts.items() if meta.leader >= 0 and meta.leader in self._brokers)

    def partition(self, tp: TopicPartition) -> PartitionMetadata | None:
        """Cached metadata of ``tp``, or None."""
        parts = self._partitions.get(tp.topic)
        return None if parts is None else parts.get(tp.partition)

    def leader_for(self, tp: TopicPartition) -> int | None:
        """Broker id leading ``tp``, or None when unknown or leaderless."""
        parts = self._partitions.get(tp[0])
        if parts is None:
            return None
        meta = parts.get(tp[1])
        if meta is None or meta.leader < 0:
            return None
        return meta.leader

    def partitions_by_leader(
        self, tps: Iterable[TopicPartition]
    ) -> tuple[dict[int, list[TopicPartition]], list[TopicPartition]]:
        """Group partitions by the live broker leading them (how requests are routed).

        Args:
            tps: the partitions to route.

        Returns:
            (``{leader broker id: [tp, ...]}`` in the order of ``tps``, the partitions
            whose leader is unknown, absent or not a live broker in this cache).
        """
        by_leader: dict[int, list[TopicPartition]] = {}
        no_leader: list[TopicPartition] = []
        brokers = self._brokers
        topics = self._partitions
        for tp in tps:  # ``leader_for`` inlined: this runs for every batch sent
            parts = topics.get(tp[0])
            meta = parts.get(tp[1]) if parts is not None else None
            leader = meta.leader if meta is not None else -1
            if leader < 0 or leader not in brokers:
                no_leader.append(tp)
            else:
                group = by_leader.get(leader)
                if group is None:
                    by_leader[leader] = [tp]
                else:
                    group.append(tp)
        return by_leader, no_leader

    # --- listeners -------------------------------------------------------------------

    def add_update_listener(self, listener: Callable[[], None]) -> None:
        """Call ``listener()`` after each Metadata response applied (Kafka's
        ``Metadata.addClusterUpdateListener``; Kafka's Sender also runs again after every
        response its network client handles).  The producer's Sender looks again then: a newer
        leader epoch ends a retried batch's backoff (KIP-951).

        Args:
            listener: called with no arguments at the end of ``update``; it must not raise.
        """
        self._update_listeners.append(listener)

    def remove_update_listener(self, listener: Callable[[], None]) -> None:
        """Stop calling ``listener``.

        Args:
            listener: one given to ``add_update_listener`` (another: nothing happens).
        """
        if listener in self._update_listeners:
            self._update_listeners.remove(listener)

    # --- refresh bookkeeping ---------------------------------------------------------

    def _now_ms(self) -> float:
        return self._clock() * 1000.0

    def request_update(self, reset_backoff: bool = True) -> None:
        """Mark the cache stale: the next refresh happens as soon as backoff allows.

        Args:
            reset_backoff: False when the update is asked for to retry an operation (a
                leader that moved or cannot be reached): the backoff keeps growing while
                answers bring nothing new.  True when new metadata is wanted (Kafka's
                ``requestUpdate(resetEquivalentResponseBackoff)``).
        """
        self._need_update = True
        if reset_backoff and self._equivalent_responses:
            self._equivalent_responses = 0
            self._set_backoff()

    def request_update_for_new_topics(self) -> None:
        """Mark the cache stale and allow a refresh now (a topic was added; Kafka's
        ``requestUpdateForNewTopics``)."""
        self._need_update = True
        self._last_refresh_ms = -1.0e18
        self._equivalent_responses = 0
        self._set_backoff()

    def _set_backoff(self) -> None:
        attempts = max(self._failed_attempts, self._equivalent_responses)
        self._backoff_ms = self._refresh_backoff.backoff(attempts - 1 if attempts > 0 else 0)

    @property
    def need_update(self) -> bool:
        return self._need_update

    def ttl_ms(self) -> float:
        """Milliseconds until the next refresh is due (0 = due now), respecting backoff."""
        now = self._now_ms()
        if self._need_update:
            due = 0.0
        else:
            due = max(self._last_successful_refresh_ms + self.metadata_max_age_ms - now, 0.0)
        backoff = max(self._last_refresh_ms + self._backoff_ms - now, 0.0)
        return max(due, backoff)

    def backoff_remaining_ms(self) -> float:
        """Milliseconds before another refresh may be sent (the refresh backoff)."""
        return max(self._last_refresh_ms + self._backoff_ms - self._now_ms(), 0.0)

    def failed_update(self) -> None:
        """Record a refresh attempt that got no response (starts, or lengthens, the backoff)."""
        self._last_refresh_ms = self._now_ms()
        self._failed_attempts += 1
        self._equivalent_responses = 0
        self._set_backoff()

    # --- update ----------------------------------------------------------------------

    def update(self, response: MetadataResponse, requested_topics: Iterable[str] | None) -> None:
        """Apply a Metadata response.

        Args:
            response: the decoded MetadataResponse.
            requested_topics: the topics asked for, or None when all topics were asked
                for (then topics missing from the answer are dropped from the cache).
        """
        now = self._now_ms()
        if not response.brokers:
            logger.debug("Ignoring metadata response without brokers")
            self.failed_update()
            self._need_update = True
            return
        if now >= self._last_successful_refresh_ms + self.metadata_max_age_ms:
            self._equivalent_responses = 0  # the periodic refresh: no backoff grows over those
        self._last_refresh_ms = now
        old_partitions = self._partitions
        progress = False
        self._brokers = {
            b.node_id: BrokerMetadata(b.node_id, b.host, b.port, b.rack) for b in response.brokers
        }
        self.controller_id = response.controller_id
        self.cluster_id = response.cluster_id
        if requested_topics is None:
            self._partitions = {}
            self._topic_errors = {}
        else:
            self._partitions = dict(old_partitions)
            for name in requested_topics:
                self._partitions.pop(name, None)
                self._topic_errors.pop(name, None)
        need_update = False
        for topic in response.topics:
            self._topic_errors[topic.name] = topic.error_code
            if topic.error_code != Errors.NONE:
                if topic.error_code in (Errors.LEADER_NOT_AVAILABLE, Errors.UNKNOWN_TOPIC_OR_PARTITION):
                    need_update = True  # being created (auto-creation answers UNKNOWN_TOPIC_OR_PARTITION)
                continue
            parts: dict[int, PartitionMetadata] = {}
            old_parts = old_partitions.get(topic.name) or {}
            for p in topic.partitions:
                old = old_parts.get(p.partition_index)
                if old is None or p.leader_epoch < 0 or p.leader_epoch > old.leader_epoch:
                    progress = True
                parts[p.partition_index] = PartitionMetadata(
                    topic.name,
                    p.partition_index,
                    p.leader_id,
                    p.leader_epoch,
                    tuple(p.replica_nodes),
                    tuple(p.isr_nodes),
                    tuple(p.offline_replicas),
                    p.error_code,
                )
                if p.leader_id < 0:
                    need_update = True
            self._partitions[topic.name] = parts
        self._need_update = need_update
        self._last_successful_refresh_ms = now
        self._failed_attempts = 0
        self._equivalent_responses = 0 if progress else self._equivalent_responses + 1
        self._set_backoff()
        self.version += 1
        logger.debug(
            "Updated cluster metadata version %d: brokers=%s controller=%d topics=%d",
            self.version,
            sorted(self._brokers),
            self.controller_id,
            len(self._partitions),
        )
        for listener in self._update_listeners:
            listener()

    def __repr__(self) -> str:
        return (
            f"ClusterMetadata(brokers={sorted(self._brokers)}, controller_id={self.controller_id}, "
            f"topics={sorted(self._partitions)})"
        )
