"""The AdminClient: create, list and describe topics; describe the cluster.

Owns: ``NewTopic``, ``TopicDescription``, ``PartitionInfo`` and ``AdminClient``
(CreateTopics to the controller, retried after a metadata refresh on NOT_CONTROLLER
or a lost connection; Metadata for listing and describing).  Does not own
connections or the metadata cache (KafkaClient).

Kafka concept: ``org.apache.kafka.clients.admin.Admin`` (``createTopics``,
``listTopics``, ``describeTopics``, ``describeCluster``); shape of aiokafka's
``AIOKafkaAdminClient``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from client.cluster_metadata import BrokerMetadata
from client.kafka_client import KafkaClient
from protocol.apis.create_topics import (
    CreatableReplicaAssignment,
    CreatableTopic,
    CreatableTopicConfig,
    CreateTopicsRequest,
    CreateTopicsResponse,
)
from protocol.errors import Errors, KafkaConnectionError, KafkaError, KafkaTimeoutError, error_class

logger = logging.getLogger(__name__)


def normalize_replica_assignment(
    assignment: Mapping[int, Sequence[int]] | Sequence[Sequence[int]] | None,
) -> dict[int, list[int]] | None:
    """Turn ``{partition: [broker ids]}`` or a list of lists (index = partition) into a dict.

    Raises:
        TypeError: not a mapping or a sequence of integer sequences.
        ValueError: empty, a negative partition, or an empty replica list.
    """
    if assignment is None:
        return None
    if isinstance(assignment, Mapping):
        items = list(assignment.items())
    elif isinstance(assignment, Sequence) and not isinstance(assignment, (str, bytes)):
        items = list(enumerate(assignment))
    else:
        raise TypeError("replica_assignment must be {partition: [broker ids]} or a list of lists")
    if not items:
        raise ValueError("replica_assignment must not be empty")
    out: dict[int, list[int]] = {}
    for partition, replicas in items:
        if type(partition) is not int or partition < 0:
            raise ValueError(f"replica_assignment partition {partition!r} must be an int >= 0")
        if isinstance(replicas, (str, bytes)) or not isinstance(replicas, Sequence):
            raise TypeError(f"replica list of partition {partition} must be a list of broker ids")
        broker_ids = list(replicas)
        if not broker_ids or any(type(b) is not int for b in broker_ids):
            raise ValueError(f"replica list of partition {partition} must be non-empty broker ids")
        out[partition] = broker_ids
    return out


@dataclass
class NewTopic:
    """A topic to create.

    Args:
        name: topic name.
        num_partitions: partitions, or -1 for the broker's ``num.partitions``.
        replication_factor: replicas per partition, or -1 for ``default.replication.factor``.
        replica_assignment: manual assignment ``{partition: [broker ids]}`` or a list of
            lists; excludes num_partitions/replication_factor (leave them -1).
        configs: topic configs such as ``{"min.insync.replicas": "2"}``.
    """

    name: str
    num_partitions: int = -1
    replication_factor: int = -1
    replica_assignment: Mapping[int, Sequence[int]] | Sequence[Sequence[int]] | None = None
    configs: Mapping[str, Any] | None = field(default=None)

    def to_creatable(self) -> CreatableTopic:
        """The CreateTopics request entry for this topic.

        Raises:
            TypeError / ValueError: malformed fields.
        """
        if not isinstance(self.name, str) or not self.name:
            raise ValueError("NewTopic.name must be a non-empty string")
        assignment = normalize_replica_assignment(self.replica_assignment)
        if assignment is not None and (self.num_partitions != -1 or self.replication_factor != -1):
            if self.num_partitions not in (-1, len(assignment)) or self.replication_factor not in (
                -1, len(next(iter(assignment.values())))
            ):
                raise ValueError("replica_assignment cannot be combined with num_partitions/replication_factor")
        return CreatableTopic(
            name=self.name,
            num_partitions=-1 if assignment is not None else int(self.num_partitions),
            replication_factor=-1 if assignment is not None else int(self.replication_factor),
            assignments=[
                CreatableReplicaAssignment(partition_index=p, broker_ids=b) for p, b in sorted((assignment or {}).items())
            ],
            configs=[
                CreatableTopicConfig(name=k, value=None if v is None else str(v)) for k, v in (self.configs or {}).items()
            ],
        )


@dataclass(frozen=True)
class PartitionInfo:
    """One partition of a described topic (broker ids; leader -1 when none)."""

    partition: int
    leader: int
    replicas: list[int]
    isr: list[int]
    offline_replicas: list[int]


@dataclass(frozen=True)
class TopicDescription:
    """A described topic: ``partitions`` sorted by partition id."""

    name: str
    partitions: list[PartitionInfo]
    is_internal: bool = False


class AdminClient:
    """Administrative operations on topics and the cluster.

    Args:
        bootstrap_servers: ``"host:port,..."``.
        request_timeout_ms: bound of each operation, retries included (ms).
        client_id: name in request headers.
        retry_backoff_ms: pause between retries (ms).
    """

    def __init__(self, *, bootstrap_servers: str = "127.0.0.1:9092", request_timeout_ms: int = 30000,
                 client_id: str = "kafkette-admin", retry_backoff_ms: int = 100) -> None:
        self._request_timeout_ms = request_timeout_ms
        self._retry_backoff_ms = retry_backoff_ms
        self._client = KafkaClient(bootstrap_servers, client_id=client_id, request_timeout_ms=request_timeout_ms,
                                   retry_backoff_ms=retry_backoff_ms)

    async def start(self) -> None:
        """Bootstrap. Raises KafkaConnectionError when no server answers in time."""
        await self._client.start()

    async def close(self) -> None:
        """Close connections (idempotent)."""
        await self._client.close()

    async def __aenter__(self) -> AdminClient:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # --- topics ----------------------------------------------------------------------

    async def create_topics(self, new_topics: Iterable[NewTopic], timeout_ms: int | None = None,
                            validate_only: bool = False) -> None:
        """Create topics through the controller; returns once each has leaders.

        Args:
            new_topics: the topics.
            timeout_ms: how long the controller may wait for leaders (ms; default
                ``request_timeout_ms``).
            validate_only: validate without creating.

        Raises:
            TopicAlreadyExistsError, InvalidReplicationFactorError, InvalidPartitionsError,
            InvalidReplicaAssignmentError, InvalidTopicError, InvalidConfigError, ...: the
                first topic's error, with the server's error_message.
            KafkaTimeoutError / KafkaConnectionError: no controller answered in time.
        """
        topics = [t.to_creatable() for t in new_topics]
        if not topics:
            return
        timeout_ms = self._request_timeout_ms if timeout_ms is None else timeout_ms
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (timeout_ms + self._request_timeout_ms) / 1000
        pending = {t.name: t for t in topics}
        first_error: KafkaError | None = None
        last_exc: BaseException | None = None
        while pending:
            request = CreateTopicsRequest(topics=list(pending.values()), timeout_ms=timeout_ms,
                                          validate_only=validate_only)
            try:
                response: CreateTopicsResponse = await self._client.send_to_controller(
                    request, timeout_ms=timeout_ms + self._request_timeout_ms)
            except (KafkaConnectionError, KafkaTimeoutError) as exc:
                last_exc = exc
            else:
                for result in response.topics:
                    if result.name not in pending:
                        continue
                    if result.error_code == Errors.NOT_CONTROLLER:
                        last_exc = error_class(result.error_code)(result.error_message or "")
                        continue
                    del pending[result.name]
                    if result.error_code != Errors.NONE and first_error is None:
                        cls = error_class(result.error_code)
                        first_error = cls(result.error_message) if result.error_message else cls(
                            f"Topic '{result.name}': {cls.message}")
            if not pending:
                break
            if loop.time() + self._retry_backoff_ms / 1000 >= deadline:
                raise KafkaTimeoutError(f"CreateTopics did not complete in time: {last_exc}") from last_exc
            logger.info("[AdminClient] Retrying CreateTopics for %s: %s", sorted(pending), last_exc)
            await asyncio.sleep(self._retry_backoff_ms / 1000)
            try:
                await self._client.refresh_metadata()
            except KafkaError as exc:
                last_exc = exc
        if first_error is not None:
            raise first_error

    async def list_topics(self) -> list[str]:
        """Names of every topic, sorted.

        Raises:
            KafkaConnectionError: no broker answered.
        """
        response = await self._client.metadata_for(None)
        return sorted(t.name for t in response.topics if t.error_code == Errors.NONE)

    async def describe_topics(self, topics: Iterable[str] | None = None) -> dict[str, TopicDescription]:
        """Leaders, replicas and ISR of each partition of ``topics`` (None: every topic).

        Returns:
            ``{name: TopicDescription}``.

        Raises:
            UnknownTopicOrPartitionError: a named topic does not exist.
            KafkaConnectionError: no broker answered.
        """
        names = None if topics is None else list(topics)
        response = await self._client.metadata_for(names)
        out: dict[str, TopicDescription] = {}
        for topic in response.topics:
            if topic.error_code not in (Errors.NONE, Errors.LEADER_NOT_AVAILABLE):
                cls = error_class(topic.error_code)
                raise cls(f"Topic '{topic.name}': {cls.message}")
            partitions = sorted(
                (
                    PartitionInfo(p.partition_index, p.leader_id, list(p.replica_nodes), list(p.isr_nodes),
                                  list(p.offline_replicas))
                    for p in topic.partitions
                ),
                key=lambda info: info.partition,
            )
            out[topic.name] = TopicDescription(topic.name, partitions, topic.is_internal)
        if names is not None:
            missing = [n for n in names if n not in out]
            if missing:
                raise error_class(Errors.UNKNOWN_TOPIC_OR_PARTITION)(f"Topic '{missing[0]}' does not exist")
        return dict(sorted(out.items()))

    async def describe_cluster(self) -> dict[str, Any]:
        """``{"cluster_id": str | None, "controller_id": int, "brokers": [BrokerMetadata]}``
        (brokers sorted by node id).

        Raises:
            KafkaConnectionError: no broker answered.
        """
        response = await self._client.metadata_for([])
        brokers = [BrokerMetadata(b.node_id, b.host, b.port, b.rack) for b in response.brokers]
        return {
            "cluster_id": response.cluster_id,
            "controller_id": response.controller_id,
            "brokers": sorted(brokers, key=lambda b: b.node_id),
        }
