"""OffsetCommit handler: a group's offsets, committed at its coordinator.

From v10 (KIP-848) topics come by topic id: the handler names them from the metadata cache and
answers a topic whose id no topic has UNKNOWN_TOPIC_ID for each partition, whatever the group's
state, as Kafka's ``KafkaApis`` does; the answers keep the request's order of topics.

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
    """Commit through the GroupCoordinator (NOT_COORDINATOR everywhere when this node has none)."""
    topics = list(request.topics)
    unknown_ids: set[int] = set()  # positions in ``topics`` of a v10 topic id no topic has
    if header.api_version >= TOPIC_IDS_FROM_VERSION:
        for position, topic in enumerate(topics):
            topic.name = ctx.metadata_cache.topic_name(topic.topic_id) or ""
            if not topic.name:
                unknown_ids.add(position)
        request.topics = [topic for position, topic in enumerate(topics) if position not in unknown_ids]
    if ctx.group_coordinator is None:
        answered = [_answer(topic, Errors.NOT_COORDINATOR) for topic in request.topics]
    elif unknown_ids and not request.topics:
        answered = []  # Kafka asks its coordinator nothing (no member's session is refreshed)
    else:
        answered = (await ctx.group_coordinator.handle_commit_offsets(request, header.api_version)).topics
    in_order = iter(answered)  # the coordinator answers each topic it was given, in order
    return OffsetCommitResponse(
        topics=[
            _answer(topic, Errors.UNKNOWN_TOPIC_ID) if position in unknown_ids else next(in_order)
            for position, topic in enumerate(topics)
        ]
    )
