"""DeleteRecords handler: advance log start offsets at this broker's leaders, then wait
(DelayedDeleteRecords) until the followers have moved too.

A partition the metadata lacks is UNKNOWN_TOPIC_OR_PARTITION before anything else (a partition named
twice is answered once); a negative ``timeout_ms`` is INVALID_REQUEST for every other partition.
Kafka concept:
``KafkaApis.handleDeleteRecordsRequest`` -> ``ReplicaManager.deleteRecords``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.delete_records import (
    DeleteRecordsPartitionResult,
    DeleteRecordsRequest,
    DeleteRecordsResponse,
    DeleteRecordsTopicResult,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: DeleteRecordsRequest
) -> DeleteRecordsResponse:
    """Delete records below the requested offsets; answer each partition's low watermark or error."""
    offsets: dict[TopicPartition, int] = {}
    for topic in request.topics:
        for part in topic.partitions:
            offsets[TopicPartition(topic.name, part.partition_index)] = part.offset
    # Kafka answers the partitions its metadata lacks first; only the others reach the ReplicaManager
    known = {tp: o for tp, o in offsets.items() if ctx.metadata_cache.partition_state(tp) is not None}
    results: dict[TopicPartition, tuple[int, Errors]] = {
        tp: (-1, Errors.UNKNOWN_TOPIC_OR_PARTITION) for tp in offsets if tp not in known
    }
    if request.timeout_ms < 0:
        results.update((tp, (-1, Errors.INVALID_REQUEST)) for tp in known)
    elif known:
        statuses = await ctx.replica_manager.delete_records(request.timeout_ms, known)
        results.update(
            (tp, (s.low_watermark if s.error == Errors.NONE else -1, s.error)) for tp, s in statuses.items()
        )
    by_topic: dict[str, list[DeleteRecordsPartitionResult]] = {}
    for tp, (low_watermark, error) in results.items():
        by_topic.setdefault(tp.topic, []).append(
            DeleteRecordsPartitionResult(
                partition_index=tp.partition, low_watermark=low_watermark, error_code=int(error)
            )
        )
    return DeleteRecordsResponse(
        topics=[DeleteRecordsTopicResult(name=t, partitions=p) for t, p in by_topic.items()]
    )
