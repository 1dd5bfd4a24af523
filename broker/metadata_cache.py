"""The broker's cache of cluster metadata, fed by UpdateMetadata from the controller.

Owns: live brokers (id -> host, port, rack), the controller id, per partition the
leader, leader epoch, ISR, replicas and offline replicas, and per topic its config
overrides (``topic_configs``, the whole set per topic as the controller sends it), and the
controller's metadata log offset (``metadata_offset``, the epoch of the finalized features the Kafka
listener advertises, KIP-584).  Answers Metadata requests
on every broker.  Does not own replica state (see ``replica_manager.py``).

Kafka concept: ``ZkMetadataCache`` (updateMetadata replaces partition
states for the partitions listed, refreshes the live broker set, and removes deleted
topics).
"""

from __future__ import annotations

from dataclasses import dataclass

from kafkette.common.topic_names import INTERNAL_TOPICS
from kafkette.protocol.apis.metadata import (
    MetadataResponse,
    MetadataResponseBroker,
    MetadataResponsePartition,
    MetadataResponseTopic,
)
from kafkette.protocol.apis.update_metadata import UpdateMetadataPartitionState, UpdateMetadataRequest
from kafkette.protocol.errors import Errors
from kafkette.protocol.kafka_schema import ZERO_UUID
from kafkette.protocol.kafka_uuid import uuid_from_string
from kafkette.protocol.topic_partition import TopicPartition


@dataclass(frozen=True, slots=True)
class BrokerEndpoint:
    """A live broker's address as published by the controller: its kafkette listener
    (``host``, ``port``) and every listener by name (``endpoints``)."""

    id: int
    host: str
    port: int
    rack: str | None
    endpoints: tuple[tuple[str, str, int], ...] = ()

    def address(self, listener_name: str | None) -> tuple[str, int] | None:
        """``(host, port)`` of the listener ``listener_name`` (None: the kafkette listener), or None
        when the broker has no such listener."""
        if listener_name is None:
            return self.host, self.port
        return next(((h, p) for name, h, p in self.endpoints if name == listener_name), None)


class MetadataCache:
    """Cluster metadata as last told by the controller.

    Args:
        broker_id: this broker's node id (for log prefixes).
        cluster_id: reported in Metadata responses.
    """

    def __init__(self, broker_id: int, cluster_id: str | None) -> None:
        self.broker_id = broker_id
        self.cluster_id = cluster_id
        self.controller_id = -1
        self.controller_epoch = -1
        self.metadata_offset = -1  # the controller's metadata log offset as of the last UpdateMetadata
        self.live_brokers: dict[int, BrokerEndpoint] = {}
        self._topics: dict[str, dict[int, UpdateMetadataPartitionState]] = {}
        self._topic_configs: dict[str, dict[str, str]] = {}
        self._topic_ids: dict[str, bytes] = {}  # topic -> its Uuid's 16 bytes

    def update_metadata(self, request: UpdateMetadataRequest) -> list[TopicPartition]:
        """Apply an UpdateMetadata request.

        A ``full`` request replaces every partition state and topic config set;
        otherwise the listed partitions and topics' config sets are replaced and the
        rest kept.  Deleted topics are dropped (partitions and configs).

        Returns:
            The TopicPartitions of the topics deleted by this request.
        """
        self.controller_id = request.controller_id
        self.controller_epoch = request.controller_epoch
        self.metadata_offset = request.metadata_offset
        self.live_brokers = {
            b.id: BrokerEndpoint(
                b.id, b.host, b.port, b.rack, tuple((e.listener, e.host, e.port) for e in b.endpoints)
            )
            for b in request.live_brokers
        }
        if request.full:
            self._topics = {}
            self._topic_configs = {}
            self._topic_ids = {}
        for state in request.partition_states:
            self._topics.setdefault(state.topic_name, {})[state.partition_index] = state
        for entry in request.topic_configs:
            self._topic_configs[entry.topic_name] = {c.name: c.value for c in entry.configs}
            if entry.topic_id:
                self._topic_ids[entry.topic_name] = uuid_from_string(entry.topic_id)
        deleted: list[TopicPartition] = []
        for topic in request.deleted_topics:
            self._topic_configs.pop(topic, None)
            self._topic_ids.pop(topic, None)
            for partition in self._topics.pop(topic, {}):
                deleted.append(TopicPartition(topic, partition))
        return deleted

    def topic_configs(self, topic: str) -> dict[str, str]:
        """The config overrides of ``topic`` as last sent by the controller (a copy; {} if none)."""
        return dict(self._topic_configs.get(topic, {}))

    def contains_topic(self, topic: str) -> bool:
        return topic in self._topics

    def topic_names(self) -> list[str]:
        """Sorted names of the topics the cache knows."""
        return sorted(self._topics)

    def topic_id(self, topic: str) -> bytes:
        """The 16 bytes of ``topic``'s topic id (KIP-516); ``ZERO_UUID`` when the cache has none
        (Kafka's ``MetadataCache.getTopicId``)."""
        return self._topic_ids.get(topic, ZERO_UUID)

    def topic_name(self, topic_id: bytes) -> str | None:
        """The name of the topic whose id is ``topic_id`` (16 bytes); None when no topic the cache
        knows has it, the zero id included (Kafka's ``MetadataCache.getTopicName``)."""
        if topic_id == ZERO_UUID:
            return None
        return next((name for name, known in self._topic_ids.items() if known == topic_id), None)

    def partition_state(self, tp: TopicPartition) -> UpdateMetadataPartitionState | None:
        return self._topics.get(tp.topic, {}).get(tp.partition)

    def num_partitions(self, topic: str) -> int | None:
        partitions = self._topics.get(topic)
        return None if partitions is None else len(partitions)

    def get_alive_broker(self, broker_id: int) -> BrokerEndpoint | None:
        return self.live_brokers.get(broker_id)

    def metadata_response(
        self, topics: list[str] | None, listener_name: str | None = None
    ) -> MetadataResponse:
        """Build a Metadata response for ``topics`` (None: every topic), with the brokers'
        addresses on listener ``listener_name`` (None: the kafkette listener; a broker without that
        listener is left out, as Kafka's ``MetadataCache.getAliveBrokerNodes(listenerName)``).

        Unknown topics get UNKNOWN_TOPIC_OR_PARTITION (an internal topic's name still marked
        ``is_internal``, as Kafka's ``getTopicMetadata`` answers); partitions with no live
        leader get LEADER_NOT_AVAILABLE; replicas on dead brokers, and those the
        controller marked offline (their log is offline on a live broker), are listed
        in ``offline_replicas``.

        ``controller_id``: on the kafkette listener the active controller this broker knows
        (the SDK's admin client sends to it); on a Kafka-protocol listener this broker itself,
        as a KRaft broker names a live broker rather than the controller (``KafkaApis``:
        ``getRandomAliveBrokerId``) and forwards the controller's requests (KIP-590).  Kafka
        clients then never wait for a dead controller that the cache still lists until it is
        fenced (librdkafka's admin client waits for the broker Metadata names).
        """
        brokers = []
        for b in sorted(self.live_brokers.values(), key=lambda b: b.id):
            address = b.address(listener_name)
            if address is not None:
                brokers.append(
                    MetadataResponseBroker(node_id=b.id, host=address[0], port=address[1], rack=b.rack)
                )
        names = self.topic_names() if topics is None else topics
        out: list[MetadataResponseTopic] = []
        for name in names:
            partitions = self._topics.get(name)
            if partitions is None:
                out.append(
                    MetadataResponseTopic(
                        error_code=Errors.UNKNOWN_TOPIC_OR_PARTITION,
                        name=name,
                        is_internal=name in INTERNAL_TOPICS,
                    )
                )
                continue
            parts = []
            for index in sorted(partitions):
                state = partitions[index]
                leader_alive = state.leader in self.live_brokers
                parts.append(
                    MetadataResponsePartition(
                        error_code=Errors.NONE if leader_alive else Errors.LEADER_NOT_AVAILABLE,
                        partition_index=index,
                        leader_id=state.leader if leader_alive else -1,
                        leader_epoch=state.leader_epoch,
                        replica_nodes=list(state.replicas),
                        isr_nodes=list(state.isr),
                        offline_replicas=[
                            r
                            for r in state.replicas
                            if r not in self.live_brokers or r in state.offline_replicas
                        ],
                    )
                )
            out.append(
                MetadataResponseTopic(
                    error_code=Errors.NONE,
                    name=name,
                    is_internal=name in INTERNAL_TOPICS,
                    partitions=parts,
                    topic_id=self._topic_ids.get(name, bytes(16)),
                )
            )
        return MetadataResponse(
            brokers=brokers,
            cluster_id=self.cluster_id,
            controller_id=(
                self.controller_id
                if listener_name is None and self.controller_id in self.live_brokers
                else self.broker_id
            ),
            topics=out,
        )
