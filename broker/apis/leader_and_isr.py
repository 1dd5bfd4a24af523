"""LeaderAndIsr handler: the controller assigns leader/follower roles to this broker.

Kafka concept: ``KafkaApis.handleLeaderAndIsrRequest`` -> ``becomeLeaderOrFollower``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.protocol.apis.leader_and_isr import (
    LeaderAndIsrPartitionError,
    LeaderAndIsrRequest,
    LeaderAndIsrResponse,
)
from kafkette.protocol.framing import RequestHeader

if TYPE_CHECKING:
    from kafkette.broker.apis.kafka_apis import ApisContext


async def handle(ctx: ApisContext, header: RequestHeader, request: LeaderAndIsrRequest) -> LeaderAndIsrResponse:
    """Apply the partition states and report an error code per partition."""
    error, partition_errors = await ctx.replica_manager.become_leader_or_follower(request)
    return LeaderAndIsrResponse(
        error_code=int(error),
        partition_errors=[
            LeaderAndIsrPartitionError(topic_name=tp.topic, partition_index=tp.partition, error_code=int(code))
            for tp, code in partition_errors.items()
        ],
    )
