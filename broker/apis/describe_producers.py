"""DescribeProducers handler: the active idempotent producers of partitions, from the producer state
each hosted replica's log keeps (KIP-664).

Per topic: an illegal name is INVALID_TOPIC_EXCEPTION with ``Topic.validate``'s message, a topic the
metadata cache does not know UNKNOWN_TOPIC_OR_PARTITION with Kafka's generic message, for every
partition asked.  Per partition of a known topic, as Kafka's ``ReplicaManager.activeProducerState``:
a replica hosted here answers its log's producers (a follower too: it replays the leader's batches
into its own producer state), a replica whose log dir is offline KAFKA_STORAGE_ERROR, a partition the
metadata knows but this broker holds no log of NOT_LEADER_OR_FOLLOWER, an unknown partition index
UNKNOWN_TOPIC_OR_PARTITION (these without a message).  Kafka concept:
``KafkaApis.handleDescribeProducersRequest``, ``Partition.activeProducerState``,
``UnifiedLog.activeProducers``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.log.producer_state_manager import ProducerStateManager
from kafkette.common.topic_names import validate_topic_name
from kafkette.protocol.apis.describe_producers import (
    DescribeProducersPartitionResponse,
    DescribeProducersRequest,
    DescribeProducersResponse,
    DescribeProducersTopicResponse,
    ProducerState,
)
from kafkette.protocol.errors import Errors, InvalidTopicError, error_class
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


def active_producers(manager: ProducerStateManager) -> list[ProducerState]:
    """The producers ``manager`` holds, each with its epoch, last sequence, last batch's max
    timestamp (ms), the epoch of the coordinator that last wrote a marker for it and its open
    transaction's first offset (-1: none), by producer id (Kafka's ``UnifiedLog.activeProducers``)."""
    return [
        ProducerState(
            producer_id=entry.producer_id,
            producer_epoch=entry.producer_epoch,
            last_sequence=entry.last_seq,
            last_timestamp=entry.batches[-1].timestamp if entry.batches else -1,
            coordinator_epoch=entry.coordinator_epoch,
            current_txn_start_offset=entry.current_txn_first_offset,
        )
        for _, entry in sorted(manager.entries.items())
    ]


def _topic_error(ctx: ApisContext, name: str) -> tuple[Errors, str] | None:
    """The error (and message) of every partition of topic ``name``, or None for a known topic."""
    try:
        validate_topic_name(name)
    except InvalidTopicError as exc:
        return Errors.INVALID_TOPIC_EXCEPTION, str(exc.args[0]) if exc.args else ""
    if not ctx.metadata_cache.contains_topic(name):
        return Errors.UNKNOWN_TOPIC_OR_PARTITION, error_class(Errors.UNKNOWN_TOPIC_OR_PARTITION).message
    return None


def _partition_state(ctx: ApisContext, tp: TopicPartition) -> DescribeProducersPartitionResponse:
    answer = DescribeProducersPartitionResponse(partition_index=tp.partition)
    partition = ctx.replica_manager.get_partition(tp)
    log = partition.log if partition is not None else None
    if log is not None and log.is_offline:
        answer.error_code = Errors.KAFKA_STORAGE_ERROR
    elif log is not None:
        answer.active_producers = active_producers(log.producer_state_manager)
    elif partition is not None or ctx.metadata_cache.partition_state(tp) is not None:
        answer.error_code = Errors.NOT_LEADER_OR_FOLLOWER
    else:
        answer.error_code = Errors.UNKNOWN_TOPIC_OR_PARTITION
    return answer


async def handle(
    ctx: ApisContext, header: RequestHeader, request: DescribeProducersRequest
) -> DescribeProducersResponse:
    """Each asked partition's active producers, or its error (see the module docstring)."""
    topics = []
    for topic in request.topics:
        error = _topic_error(ctx, topic.name)
        if error is not None:
            partitions = [
                DescribeProducersPartitionResponse(
                    partition_index=index, error_code=error[0], error_message=error[1]
                )
                for index in topic.partition_indexes
            ]
        else:
            partitions = [
                _partition_state(ctx, TopicPartition(topic.name, index)) for index in topic.partition_indexes
            ]
        topics.append(DescribeProducersTopicResponse(name=topic.name, partitions=partitions))
    return DescribeProducersResponse(topics=topics)
