"""``__consumer_offsets``: which of its partitions holds a group, and how the topic is created.

Owns: Kafka's placement of a group (``abs(groupId.hashCode) % partitions``, with Java's
``String.hashCode`` and ``Utils.abs``, so a group lands on the partition a Kafka broker would
pick) and the topic's creation settings (``offsets.topic.num.partitions``,
``offsets.topic.replication.factor`` capped at the live brokers, compacted,
``offsets.topic.segment.bytes``).  Does not own the groups or offsets stored there.

Kafka concept: ``GroupMetadataManager.partitionFor`` / ``GroupCoordinator.partitionFor`` and
``GroupCoordinator.groupMetadataTopicConfigs``; ``AutoTopicCreationManager.creatableTopic``.
"""

from __future__ import annotations

from kafkette.common.java_hash_order import coordinator_partition_for
from kafkette.common.topic_names import GROUP_METADATA_TOPIC_NAME
from kafkette.protocol.apis.create_topics import CreatableTopic, CreatableTopicConfig


def partition_for(group_id: str, partition_count: int) -> int:
    """The ``__consumer_offsets`` partition of ``group_id`` (Kafka's ``Utils.abs(hashCode) %
    count``; ``Utils.abs`` maps ``Integer.MIN_VALUE`` to 0).

    Raises:
        ValueError: ``partition_count`` below 1.
    """
    return coordinator_partition_for(group_id, partition_count)


def group_metadata_topic(
    num_partitions: int, replication_factor: int, segment_bytes: int, live_brokers: int
) -> CreatableTopic:
    """The CreateTopics entry for ``__consumer_offsets``.

    Args:
        num_partitions: ``offsets.topic.num.partitions``.
        replication_factor: ``offsets.topic.replication.factor``; capped at ``live_brokers``
            (at least 1) so that a cluster smaller than it still gets its coordinator.
        segment_bytes: ``offsets.topic.segment.bytes``.
        live_brokers: brokers alive now.

    Returns:
        The topic to create: compacted, ``compression.type=producer``.
    """
    configs = {
        "cleanup.policy": "compact",
        "segment.bytes": str(segment_bytes),
        "compression.type": "producer",
    }
    return CreatableTopic(
        name=GROUP_METADATA_TOPIC_NAME,
        num_partitions=num_partitions,
        replication_factor=max(1, min(replication_factor, live_brokers)),
        configs=[CreatableTopicConfig(name=k, value=v) for k, v in configs.items()],
    )
