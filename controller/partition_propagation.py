"""Telling brokers about partition changes once their records are written.

Owns: ``on_new_partition_creation`` (LeaderAndIsr with ``is_new`` and UpdateMetadata for
new partitions), ``announce_partition_changes`` (LeaderAndIsr to the live replicas and
UpdateMetadata to every live broker) and ``write_partition_changes`` (write leader/ISR
changes, then announce them).  Each returns the brokers' acknowledgement futures per
partition, so that a response can wait for propagation.  Does not own the decisions.

Kafka concept: ``KafkaController.onNewPartitionCreation`` and the
LeaderAndIsr / UpdateMetadata pushes after ``onPartitionStateChange``.
"""

from __future__ import annotations

from kafkette.controller.controller_operations import ControllerOperations, Futures
from kafkette.controller.metadata_records import PartitionChangeRecord
from kafkette.protocol.topic_partition import TopicPartition


def on_new_partition_creation(
    ops: ControllerOperations, new_partitions: list[TopicPartition]
) -> dict[str, Futures]:
    """Tell every live broker about partitions just written: LeaderAndIsr (``is_new``) and UpdateMetadata.

    Shared by CreateTopics and CreatePartitions; call after the PartitionRecords are written.

    Args:
        new_partitions: the new partitions, in the order their records were written.

    Returns:
        ``{topic: futures}``: the brokers' acknowledgements of the requests carrying each
        topic's new partitions (the topic is present even when no request carried it).
    """
    live = ops.context.live_broker_ids()
    batch = ops.new_batch()
    batch.add_leader_and_isr_request_for_brokers(live, new_partitions, is_new=True)
    batch.add_update_metadata_request_for_brokers(live, new_partitions)
    futures = batch.send_requests_to_brokers()
    acks: dict[str, Futures] = {}
    for tp in new_partitions:
        acks.setdefault(tp.topic, []).extend(futures.get(tp, []))
    return acks


def announce_partition_changes(
    ops: ControllerOperations, changed: list[TopicPartition]
) -> dict[TopicPartition, Futures]:
    """LeaderAndIsr to the live replicas of ``changed`` and UpdateMetadata to every live broker,
    after their records were written.

    Returns:
        The request futures per changed partition.
    """
    live = ops.context.live_broker_ids()
    batch = ops.new_batch()
    batch.add_leader_and_isr_request_for_brokers(live, changed)
    batch.add_update_metadata_request_for_brokers(live, changed)
    return batch.send_requests_to_brokers()


async def write_partition_changes(
    ops: ControllerOperations, records: list[PartitionChangeRecord], name: str
) -> dict[TopicPartition, Futures]:
    """Write leader/ISR changes, then announce them (see ``announce_partition_changes``).

    Returns:
        The request futures per changed partition ({} when there are no records).

    Raises:
        IllegalStateTransitionError, OSError: as ``ControllerOperations.write``.
    """
    if not records:
        return {}
    await ops.write(list(records), name)
    return announce_partition_changes(ops, [r.topic_partition for r in records])
