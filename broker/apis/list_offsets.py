"""ListOffsets handler: earliest (-2) and latest (-1) offsets from the partition leader.

Consumers get the high watermark as "latest"; followers (``replica_id`` >= 0) get the
log end offset.  Lookup by timestamp arrives with the time index (a later issue):
until then it answers INVALID_REQUEST with a message saying so.
A log taken offline by corruption answers KAFKA_STORAGE_ERROR.
Kafka concept: ``KafkaApis.handleListOffsetRequest``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocol.apis.list_offsets import (
    EARLIEST_TIMESTAMP,
    LATEST_TIMESTAMP,
    ListOffsetsPartitionResponse,
    ListOffsetsRequest,
    ListOffsetsResponse,
    ListOffsetsTopicResponse,
)
from protocol.errors import Errors
from protocol.framing import RequestHeader
from protocol.topic_partition import TopicPartition

if TYPE_CHECKING:
    from broker.apis.kafka_apis import ApisContext


async def handle(ctx: ApisContext, header: RequestHeader, request: ListOffsetsRequest) -> ListOffsetsResponse:
    """Answer each partition from its leader's log."""
    topics = []
    for topic in request.topics:
        parts = []
        for req in topic.partitions:
            tp = TopicPartition(topic.name, req.partition_index)
            partition = ctx.replica_manager.get_partition(tp)
            resp = ListOffsetsPartitionResponse(partition_index=req.partition_index)
            if partition is None:
                resp.error_code = Errors.UNKNOWN_TOPIC_OR_PARTITION
            elif not partition.is_leader or partition.log is None:
                resp.error_code = Errors.NOT_LEADER_OR_FOLLOWER
            elif partition.log.is_offline:
                resp.error_code = Errors.KAFKA_STORAGE_ERROR
            elif req.current_leader_epoch >= 0 and req.current_leader_epoch != partition.leader_epoch:
                resp.error_code = (Errors.FENCED_LEADER_EPOCH if req.current_leader_epoch < partition.leader_epoch
                                   else Errors.UNKNOWN_LEADER_EPOCH)
            elif req.timestamp == EARLIEST_TIMESTAMP:
                resp.offset = partition.log.log_start_offset
                resp.leader_epoch = partition.leader_epoch
            elif req.timestamp == LATEST_TIMESTAMP:
                resp.offset = partition.log.log_end_offset if request.replica_id >= 0 else partition.high_watermark
                resp.leader_epoch = partition.leader_epoch
            else:
                resp.error_code = Errors.INVALID_REQUEST
            parts.append(resp)
        topics.append(ListOffsetsTopicResponse(name=topic.name, partitions=parts))
    return ListOffsetsResponse(topics=topics)

