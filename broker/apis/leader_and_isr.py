"""LeaderAndIsr handler: the controller assigns leader/follower roles to this broker.

Then the group coordinator loads the ``__consumer_offsets`` partitions this broker now leads
and drops those it no longer leads (Kafka's ``onLeadershipChange``: ``onElection`` /
``onResignation``).

Kafka concept: ``KafkaApis.handleLeaderAndIsrRequest`` -> ``becomeLeaderOrFollower``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.common.topic_names import GROUP_METADATA_TOPIC_NAME, TRANSACTION_STATE_TOPIC_NAME
from kafkette.protocol.apis.leader_and_isr import (
    LeaderAndIsrPartitionError,
    LeaderAndIsrRequest,
    LeaderAndIsrResponse,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: LeaderAndIsrRequest
) -> LeaderAndIsrResponse:
    """Apply the partition states and report an error code per partition."""
    error, partition_errors = await ctx.replica_manager.become_leader_or_follower(request)
    coordinator = ctx.group_coordinator
    if coordinator is not None and error == Errors.NONE:
        for state in request.partition_states:
            if (
                state.topic_name != GROUP_METADATA_TOPIC_NAME
                or partition_errors.get(TopicPartition(state.topic_name, state.partition_index))
                != Errors.NONE
            ):
                continue
            if state.leader == ctx.config.node_id:
                coordinator.on_election(state.partition_index, state.leader_epoch)
            else:
                coordinator.on_resignation(state.partition_index)
    transactions = ctx.transaction_coordinator
    if transactions is not None and error == Errors.NONE:
        for state in request.partition_states:
            tp = TopicPartition(state.topic_name, state.partition_index)
            if state.topic_name != TRANSACTION_STATE_TOPIC_NAME or partition_errors.get(tp) != Errors.NONE:
                continue
            if state.leader == ctx.config.node_id:  # the coordinator epoch is the leader epoch
                transactions.on_election(state.partition_index, state.leader_epoch)
            else:
                transactions.on_resignation(state.partition_index, state.leader_epoch)
    return LeaderAndIsrResponse(
        error_code=int(error),
        partition_errors=[
            LeaderAndIsrPartitionError(
                topic_name=tp.topic, partition_index=tp.partition, error_code=int(code)
            )
            for tp, code in partition_errors.items()
        ],
    )
