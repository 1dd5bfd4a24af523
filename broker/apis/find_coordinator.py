"""FindCoordinator handler: the broker that coordinates each group or transactional id asked for.

A group's coordinator is the leader of its ``__consumer_offsets`` partition
(``partition_for``, over the topic's partition count, or ``offsets.topic.num.partitions``
before it exists); a transactional id's, of its ``__transaction_state`` partition (over
``transaction.state.log.num.partitions`` before it exists).  The first FindCoordinator of a
cluster for either starts creating the topic (with its own partitions, replication factor and
configs, whatever ``auto.create.topics.enable`` says) and answers COORDINATOR_NOT_AVAILABLE, as
does a partition with no live leader; the client retries.  Another key type is INVALID_REQUEST.

A share coordinator (key type 2, KIP-932) is asked for by a share-partition key,
``"groupId:topicId:partition"``: before v6, or for a key that is not one, Kafka answers
INVALID_REQUEST, and so does this broker.  For a well-formed key Kafka answers the leader of the
key's ``__share_group_state`` partition, or COORDINATOR_NOT_AVAILABLE while that topic does not
exist (it starts creating it), whatever its share groups' settings; Kafkette has no share groups
and never creates the topic, so it answers COORDINATOR_NOT_AVAILABLE.

Kafka concept: ``KafkaApis.handleFindCoordinatorRequest`` / ``getCoordinator``,
``SharePartitionKey.getInstance``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kafkette.broker.group.group_metadata_topic import partition_for
from kafkette.common.topic_names import (
    GROUP_METADATA_TOPIC_NAME,
    SHARE_GROUP_STATE_TOPIC_NAME,
    TRANSACTION_STATE_TOPIC_NAME,
)
from kafkette.protocol.apis.find_coordinator import (
    COORDINATOR_TYPE_GROUP,
    COORDINATOR_TYPE_SHARE,
    COORDINATOR_TYPE_TRANSACTION,
    SHARE_COORDINATOR_MIN_VERSION,
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
    if request.key_type == COORDINATOR_TYPE_SHARE:
        return FindCoordinatorResponse(
            coordinators=[_share_coordinator(key, header.api_version) for key in request.coordinator_keys]
        )
    if request.key_type == COORDINATOR_TYPE_GROUP:
        topic = GROUP_METADATA_TOPIC_NAME
    elif request.key_type == COORDINATOR_TYPE_TRANSACTION:
        topic = TRANSACTION_STATE_TOPIC_NAME
    else:
        message = f"coordinator key type {request.key_type} is not supported"
        return FindCoordinatorResponse(
            coordinators=[
                _no_coordinator(key, Errors.INVALID_REQUEST, message) for key in request.coordinator_keys
            ]
        )
    cache = ctx.metadata_cache
    partition_count = cache.num_partitions(topic)
    if partition_count is None:
        if ctx.auto_topic_creation_manager is not None:
            ctx.auto_topic_creation_manager.create_topics([topic])
        return FindCoordinatorResponse(
            coordinators=[
                _no_coordinator(key, Errors.COORDINATOR_NOT_AVAILABLE, f"{topic} is being created")
                for key in request.coordinator_keys
            ]
        )
    return FindCoordinatorResponse(
        coordinators=[
            _coordinator(ctx, topic, key, partition_count, header.listener_name)
            for key in request.coordinator_keys
        ]
    )


def _coordinator(
    ctx: ApisContext, topic: str, key: str, partition_count: int, listener_name: str | None
) -> Coordinator:
    partition = partition_for(key, partition_count)  # the same placement for groups and transactional ids
    state = ctx.metadata_cache.partition_state(TopicPartition(topic, partition))
    leader = ctx.metadata_cache.get_alive_broker(state.leader) if state is not None else None
    address = leader.address(listener_name) if leader is not None else None
    if leader is None or address is None:
        return _no_coordinator(
            key, Errors.COORDINATOR_NOT_AVAILABLE, f"{topic}-{partition} has no live leader"
        )
    return Coordinator(
        key=key,
        node_id=leader.id,
        host=address[0],
        port=address[1],
        error_code=Errors.NONE,
        error_message=None,
    )


_UUID_STRING = re.compile(r"[A-Za-z0-9_-]{22}(?:==)?")
"""Kafka's ``Uuid.fromString`` input: URL-safe base64 of 16 bytes, unpadded or padded."""
_INT32_STRING = re.compile(r"[+-]?[0-9]+")
"""``Integer.parseInt``'s input (range checked apart)."""
_JAVA_TRIMMED = "".join(map(chr, range(0x21)))
"""What Java's ``String.trim`` strips from both ends: every character up to the space."""


def _share_coordinator(key: str, version: int) -> Coordinator:
    """The answer for one share-partition key: INVALID_REQUEST before v6 or for a malformed key,
    else COORDINATOR_NOT_AVAILABLE (no share coordinator, no ``__share_group_state``)."""
    if version < SHARE_COORDINATOR_MIN_VERSION:
        return _no_coordinator(
            key,
            Errors.INVALID_REQUEST,
            f"share coordinator keys need FindCoordinator v{SHARE_COORDINATOR_MIN_VERSION}+",
        )
    if not is_share_partition_key(key):
        return _no_coordinator(
            key, Errors.INVALID_REQUEST, f"{key!r} is not a share-partition key (groupId:topicId:partition)"
        )
    return _no_coordinator(
        key,
        Errors.COORDINATOR_NOT_AVAILABLE,
        f"{SHARE_GROUP_STATE_TOPIC_NAME} does not exist: this broker has no share groups",
    )


def is_share_partition_key(key: str) -> bool:
    """Whether ``key`` parses as Kafka's ``SharePartitionKey.getInstance`` parses it: split on ``:``
    (trailing empty parts dropped, as Java's ``String.split``), at least three parts, the last an int32,
    the one before it a topic id in ``Uuid`` string form, the rest (joined by ``:``) a group id that
    is not blank.

    Args:
        key: a FindCoordinator coordinator key of key type 2 (KIP-932).
    Returns:
        True for a well-formed share-partition key.
    """
    parts = key.split(":")
    while parts and not parts[-1]:
        parts.pop()
    if len(parts) < 3 or not ":".join(parts[:-2]).strip(_JAVA_TRIMMED):
        return False
    topic_id, partition = parts[-2], parts[-1]
    return (
        _UUID_STRING.fullmatch(topic_id) is not None
        and _INT32_STRING.fullmatch(partition) is not None
        and -(1 << 31) <= int(partition) < (1 << 31)
    )


def _no_coordinator(key: str, error: Errors, message: str) -> Coordinator:
    """A key without a coordinator: node -1, no host, port -1 (Kafka's ``Node.noNode()``)."""
    return Coordinator(key=key, node_id=-1, host="", port=-1, error_code=error, error_message=message)
