"""OffsetCommit handler: a group's offsets, committed at its coordinator.

Kafka concept: ``KafkaApis.handleOffsetCommitRequest`` -> ``GroupCoordinator.handleCommitOffsets``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.offsets import (
    OffsetCommitRequest,
    OffsetCommitResponse,
    OffsetCommitResponsePartition,
    OffsetCommitResponseTopic,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: OffsetCommitRequest
) -> OffsetCommitResponse:
    """Commit through the GroupCoordinator (NOT_COORDINATOR everywhere when this node has none)."""
    if ctx.group_coordinator is None:
        return OffsetCommitResponse(
            topics=[
                OffsetCommitResponseTopic(
                    name=t.name,
                    partitions=[
                        OffsetCommitResponsePartition(
                            partition_index=p.partition_index, error_code=Errors.NOT_COORDINATOR
                        )
                        for p in t.partitions
                    ],
                )
                for t in request.topics
            ]
        )
    return await ctx.group_coordinator.handle_commit_offsets(request)
