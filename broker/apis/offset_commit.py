"""OffsetCommit handler: a group's offsets, committed at its coordinator.

From v10 (KIP-848) topics come by topic id: the handler names them from the metadata cache and
answers a topic whose id no topic has UNKNOWN_TOPIC_ID for each partition, whatever the group's
state, as Kafka's ``KafkaApis`` does; so is a partition the metadata does not have
(UNKNOWN_TOPIC_OR_PARTITION), before the group's own checks.

Kafka concept: ``KafkaApis.handleOffsetCommitRequest`` -> ``GroupCoordinator.handleCommitOffsets``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.offsets import (
    OffsetCommitRequest,
    OffsetCommitRequestTopic,
    OffsetCommitResponse,
    OffsetCommitResponsePartition,
    OffsetCommitResponseTopic,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext

TOPIC_IDS_FROM_VERSION = 10
"""The first OffsetCommit version naming topics by topic id (KIP-848)."""


def _answer(topic: OffsetCommitRequestTopic, error: Errors) -> OffsetCommitResponseTopic:
    """``error`` for every partition of ``topic``."""
    return OffsetCommitResponseTopic(
        name=topic.name,
        topic_id=topic.topic_id,
        partitions=[
            OffsetCommitResponsePartition(partition_index=p.partition_index, error_code=error)
            for p in topic.partitions
        ],
    )


async def handle(
    ctx: ApisContext, header: RequestHeader, request: OffsetCommitRequest
) -> OffsetCommitResponse:
    """Commit through the GroupCoordinator (NOT_COORDINATOR everywhere when this node has none).

    As Kafka's ``KafkaApis.handleOffsetCommitRequest``, before the group is looked at: a v10 topic
    id no topic has is UNKNOWN_TOPIC_ID, and a partition the metadata does not have
    UNKNOWN_TOPIC_OR_PARTITION; the coordinator gets the other partitions (and is not asked when
    none is left).  The answer is built as Kafka's ``OffsetCommitResponse.Builder``: the refused
    partitions first, by topic in the order of first appearance, then the coordinator's answers merged
    into them.
    """
    by_id = header.api_version >= TOPIC_IDS_FROM_VERSION
    refused: dict[object, OffsetCommitResponseTopic] = {}

    def refuse(topic: OffsetCommitRequestTopic, partition: int, error: Errors) -> None:
        key = topic.topic_id if by_id else topic.name
        answer = refused.setdefault(key, OffsetCommitResponseTopic(name=topic.name, topic_id=topic.topic_id))
        answer.partitions.append(OffsetCommitResponsePartition(partition_index=partition, error_code=error))

    valid: list[OffsetCommitRequestTopic] = []
    for topic in request.topics:
        if by_id:
            topic.name = ctx.metadata_cache.topic_name(topic.topic_id) or ""
            if not topic.name:
                for p in topic.partitions:
                    refuse(topic, p.partition_index, Errors.UNKNOWN_TOPIC_ID)
                continue
        known = []
        for p in topic.partitions:
            if ctx.metadata_cache.partition_state(TopicPartition(topic.name, p.partition_index)) is None:
                refuse(topic, p.partition_index, Errors.UNKNOWN_TOPIC_OR_PARTITION)
            else:
                known.append(p)
        if known:
            topic.partitions = known
            valid.append(topic)
    request.topics = valid
    if not valid:
        return OffsetCommitResponse(topics=list(refused.values()))  # Kafka asks its coordinator nothing
    if ctx.group_coordinator is None:
        answered = [_answer(topic, Errors.NOT_COORDINATOR) for topic in valid]
    else:
        answered = (await ctx.group_coordinator.handle_commit_offsets(request, header.api_version)).topics
    topics = list(refused.values())
    for answer in answered:
        existing = refused.get(answer.topic_id if by_id else answer.name)
        if existing is None:
            topics.append(answer)
        else:
            existing.partitions.extend(answer.partitions)
    return OffsetCommitResponse(topics=topics)
