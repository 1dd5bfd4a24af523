"""FindCoordinator handler: the broker that coordinates each group asked for.

A group's coordinator is the leader of its ``__consumer_offsets`` partition
(``partition_for``, over the topic's partition count, or ``offsets.topic.num.partitions``
before it exists).  The first FindCoordinator of a cluster starts creating the topic (with
its own partitions, replication factor and configs, whatever ``auto.create.topics.enable``
says) and answers COORDINATOR_NOT_AVAILABLE, as does a partition with no live leader; the
client retries.  Transaction coordinators are not supported: INVALID_REQUEST.

Kafka concept: ``KafkaApis.handleFindCoordinatorRequest`` / ``getCoordinator``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.group.group_metadata_topic import partition_for
from kafkette.common.topic_names import GROUP_METADATA_TOPIC_NAME
from kafkette.protocol.apis.find_coordinator import (
    COORDINATOR_TYPE_GROUP,
    Coordinator,
    FindCoordinatorRequest,
    FindCoordinatorResponse,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext


async def handle(
    ctx: ApisContext, header: RequestHeader, request: FindCoordinatorRequest
) -> FindCoordinatorResponse:
    """One ``Coordinator`` per key, in the request's order."""
    if request.key_type != COORDINATOR_TYPE_GROUP:
        message = f"coordinator key type {request.key_type} is not supported (only 0, groups)"
        return FindCoordinatorResponse(
            coordinators=[
                _no_coordinator(key, Errors.INVALID_REQUEST, message) for key in request.coordinator_keys
            ]
        )
    cache = ctx.metadata_cache
    partition_count = cache.num_partitions(GROUP_METADATA_TOPIC_NAME)
    if partition_count is None:
        if ctx.auto_topic_creation_manager is not None:
            ctx.auto_topic_creation_manager.create_topics([GROUP_METADATA_TOPIC_NAME])
        return FindCoordinatorResponse(
            coordinators=[
                _no_coordinator(
                    key, Errors.COORDINATOR_NOT_AVAILABLE, f"{GROUP_METADATA_TOPIC_NAME} is being created"
                )
                for key in request.coordinator_keys
            ]
        )
    return FindCoordinatorResponse(
        coordinators=[
            _coordinator(ctx, key, partition_count, header.listener_name) for key in request.coordinator_keys
        ]
    )


def _coordinator(
    ctx: ApisContext, group_id: str, partition_count: int, listener_name: str | None
) -> Coordinator:
    partition = partition_for(group_id, partition_count)
    state = ctx.metadata_cache.partition_state(TopicPartition(GROUP_METADATA_TOPIC_NAME, partition))
    leader = ctx.metadata_cache.get_alive_broker(state.leader) if state is not None else None
    address = leader.address(listener_name) if leader is not None else None
    if leader is None or address is None:
        return _no_coordinator(
            group_id,
            Errors.COORDINATOR_NOT_AVAILABLE,
            f"{GROUP_METADATA_TOPIC_NAME}-{partition} has no live leader",
        )
    return Coordinator(
        key=group_id,
        node_id=leader.id,
        host=address[0],
        port=address[1],
        error_code=Errors.NONE,
        error_message=None,
    )


def _no_coordinator(key: str, error: Errors, message: str) -> Coordinator:
    """A key without a coordinator: node -1, no host, port -1 (Kafka's ``Node.noNode()``)."""
    return Coordinator(key=key, node_id=-1, host="", port=-1, error_code=error, error_message=message)
