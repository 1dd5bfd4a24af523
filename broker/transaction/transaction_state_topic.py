"""``__transaction_state``: how the topic is created.

Owns: the topic's creation settings (``transaction.state.log.num.partitions``,
``transaction.state.log.replication.factor`` capped at the live brokers, as Kafkette caps
``__consumer_offsets``'s, compacted, uncompressed, no unclean leader election,
``transaction.state.log.min.isr`` as ``min.insync.replicas``, ``transaction.state.log.segment.bytes``).
Does not own which partition holds a transactional id (``transaction_state_manager.partition_for``)
nor the creation itself.

Kafka concept: ``TransactionStateManager.transactionTopicConfigs`` and
``AutoTopicCreationManager.creatableTopic`` for ``__transaction_state``.
"""

from __future__ import annotations

from kafkette.common.topic_names import TRANSACTION_STATE_TOPIC_NAME
from kafkette.protocol.apis.create_topics import CreatableTopic, CreatableTopicConfig


def transaction_topic_configs(min_insync_replicas: int, segment_bytes: int) -> dict[str, str]:
    """The topic configs Kafka enforces on ``__transaction_state``.

    Args:
        min_insync_replicas: ``transaction.state.log.min.isr``; capped at the replication factor
            the topic gets, so that a capped topic can still take acks=all writes.
        segment_bytes: ``transaction.state.log.segment.bytes``.
    """
    return {
        "unclean.leader.election.enable": "false",
        "compression.type": "uncompressed",
        "cleanup.policy": "compact",
        "min.insync.replicas": str(min_insync_replicas),
        "segment.bytes": str(segment_bytes),
    }


def transaction_state_topic(
    num_partitions: int,
    replication_factor: int,
    min_insync_replicas: int,
    segment_bytes: int,
    live_brokers: int,
) -> CreatableTopic:
    """The CreateTopics entry for ``__transaction_state``.

    Args:
        num_partitions: ``transaction.state.log.num.partitions``.
        replication_factor: ``transaction.state.log.replication.factor``; capped at ``live_brokers``
            (at least 1) so that a cluster smaller than it still gets its coordinator.
        min_insync_replicas: ``transaction.state.log.min.isr``; capped at the replication factor
            the topic gets, so that a capped topic can still take acks=all writes.
        segment_bytes: ``transaction.state.log.segment.bytes``.
        live_brokers: brokers alive now.
    """
    replicas = max(1, min(replication_factor, live_brokers))
    configs = transaction_topic_configs(min(min_insync_replicas, replicas), segment_bytes)
    return CreatableTopic(
        name=TRANSACTION_STATE_TOPIC_NAME,
        num_partitions=num_partitions,
        replication_factor=replicas,
        configs=[CreatableTopicConfig(name=k, value=v) for k, v in configs.items()],
    )
