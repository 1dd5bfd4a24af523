"""The cluster's topics as the consumer group coordinator reads them, from the broker's metadata cache.

Owns: topic name <-> id, a topic's partition count and its partitions' racks, read from
``MetadataCache`` (what the controller last sent this broker).  Does not own the metadata.

Kafka concept: the ``MetadataImage`` the group coordinator is handed (``TopicsImage``, ``ClusterImage``:
``getTopic``, ``numPartitions``, ``partitionRacks``), through ``KRaftCoordinatorMetadataImage``.
"""

from __future__ import annotations

from kafkette.broker.metadata_cache import MetadataCache
from kafkette.protocol.kafka_schema import ZERO_UUID
from kafkette.protocol.topic_partition import TopicPartition


class MetadataCacheTopics:
    """``consumer_group_step.TopicMetadata`` over a ``MetadataCache``.

    Args:
        metadata_cache: the broker's cache.
    """

    def __init__(self, metadata_cache: MetadataCache) -> None:
        self._cache = metadata_cache

    def topic_id_of(self, name: str) -> bytes | None:
        """The topic's id (16 bytes), None when the cache does not know it or it has no id."""
        topic_id = self._cache.topic_id(name)
        return None if topic_id == ZERO_UUID else topic_id

    def topic_names(self) -> list[str]:
        """Every topic's name, internal ones included (what a regex subscription is resolved over)."""
        return self._cache.topic_names()

    def topic_name_of(self, topic_id: bytes) -> str | None:
        """The name of the topic with this id, None when none has it."""
        return self._cache.topic_name(topic_id)

    def number_of_partitions(self, topic_id: bytes) -> int:
        """The topic's partition count, -1 when no topic has this id."""
        name = self._cache.topic_name(topic_id)
        count = None if name is None else self._cache.num_partitions(name)
        return -1 if count is None else count

    def racks_for_partition(self, topic_id: bytes, partition: int) -> frozenset[str]:
        """The racks (``broker.rack``) of the partition's replicas; empty when none is set."""
        name = self._cache.topic_name(topic_id)
        state = None if name is None else self._cache.partition_state(TopicPartition(name, partition))
        if state is None:
            return frozenset()
        racks = set()
        for replica in state.replicas:
            broker = self._cache.get_alive_broker(replica)
            rack = broker.rack if broker is not None else None
            if rack:
                racks.add(rack)
        return frozenset(racks)
