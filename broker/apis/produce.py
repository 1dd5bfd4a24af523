"""Produce handler: appends batches through the ReplicaManager and reports offsets.

acks must be 0, 1 or -1 (INVALID_REQUIRED_ACKS otherwise); acks=0 gets no response.
A partition listed twice, or a null ``records``, is INVALID_REQUEST for that
partition.  Kafka concept: ``KafkaApis.handleProduceRequest``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.produce import (
    ProducePartitionResponse,
    ProduceRequest,
    ProduceResponse,
    ProduceTopicResponse,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafkette.broker.apis.kafka_apis import ApisContext


async def handle(ctx: ApisContext, header: RequestHeader, request: ProduceRequest) -> ProduceResponse | None:
    """Append and answer per partition (None for acks=0)."""
    errors: dict[TopicPartition, Errors] = {}
    entries: dict[TopicPartition, bytes] = {}
    for topic in request.topic_data:
        for part in topic.partition_data:
            tp = TopicPartition(topic.name, part.index)
            if request.acks not in (0, 1, -1):
                errors[tp] = Errors.INVALID_REQUIRED_ACKS
            elif part.records is None or tp in entries or tp in errors:
                errors[tp] = Errors.INVALID_REQUEST
                entries.pop(tp, None)
            else:
                entries[tp] = part.records
    statuses = await ctx.replica_manager.append_records(request.timeout_ms, request.acks, entries) if entries else {}
    if request.acks == 0:
        return None
    by_topic: dict[str, list[ProducePartitionResponse]] = {}
    for tp, status in statuses.items():
        by_topic.setdefault(tp.topic, []).append(
            ProducePartitionResponse(
                index=tp.partition,
                error_code=int(status.error),
                base_offset=status.base_offset if status.error == Errors.NONE else -1,
                log_start_offset=status.log_start_offset,
                log_append_time_ms=status.log_append_time_ms if status.error == Errors.NONE else -1,
            )
        )
    for tp, code in errors.items():
        by_topic.setdefault(tp.topic, []).append(ProducePartitionResponse(index=tp.partition, error_code=int(code)))
    return ProduceResponse(
        responses=[ProduceTopicResponse(name=name, partition_responses=parts) for name, parts in by_topic.items()]
    )
