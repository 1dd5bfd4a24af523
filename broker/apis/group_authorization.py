"""The authorization of the group APIs: FindCoordinator, JoinGroup, SyncGroup, Heartbeat,
LeaveGroup, OffsetCommit, DescribeGroups, ListGroups, DeleteGroups, OffsetDelete,
ConsumerGroupHeartbeat, ConsumerGroupDescribe (OffsetFetch checks inside its handler, per group).

Owns: which group (READ / DESCRIBE / DELETE) and topic (READ / DESCRIBE) actions each asks, and
where a refusal goes: a request about one group fails as a whole with GROUP_AUTHORIZATION_FAILED
(raised, answered by the API's ``getErrorResponse``); a batch of groups answers each refused group
GROUP_AUTHORIZATION_FAILED; a refused topic's partitions TOPIC_AUTHORIZATION_FAILED.  Also the
groups' authorized operations (KIP-430).  Does not own the group coordinator.

Kafka concept: ``KafkaApis.handleFindCoordinatorRequest`` (``getCoordinator``),
``handleJoinGroupRequest`` ... ``handleConsumerGroupDescribe``.
"""

from __future__ import annotations

from typing import Any

from kafkette.broker.apis import txn_offset_commit
from kafkette.broker.apis.auth_helper import (
    CLUSTER_NAME,
    authorize,
    authorize_cluster_operation,
    authorized_operations,
    filter_by_authorized,
)
from kafkette.broker.apis.consumer_group_heartbeat import consumer_protocol_enabled
from kafkette.broker.apis.topic_authorization import split_by_topic
from kafkette.common.security.acl import AclOperation, ResourceType
from kafkette.protocol.apis.consumer_group import ConsumerGroupDescribeGroup, ConsumerGroupHeartbeatResponse
from kafkette.protocol.apis.find_coordinator import (
    COORDINATOR_TYPE_GROUP,
    COORDINATOR_TYPE_SHARE,
    COORDINATOR_TYPE_TRANSACTION,
    Coordinator,
)
from kafkette.protocol.apis.group_admin import (
    DeletableGroupResult,
    DescribedGroup,
    OffsetDeleteResponsePartition,
    OffsetDeleteResponseTopic,
)
from kafkette.protocol.apis.offsets import OffsetCommitResponsePartition, OffsetCommitResponseTopic
from kafkette.protocol.errors import Errors, error_class
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.kafka_schema import ZERO_UUID

GROUP_DENIED = int(Errors.GROUP_AUTHORIZATION_FAILED)
TOPIC_DENIED = int(Errors.TOPIC_AUTHORIZATION_FAILED)
DESCRIBED_TOPICS_DENIED_MESSAGE = (
    "The group has described topic(s) that the client is not authorized to describe."
)
"""ConsumerGroupDescribe's message for a group assigned a topic the caller may not describe (Kafka's)."""


def require_group(ctx: Any, header: RequestHeader, operation: AclOperation, group_id: str) -> None:
    """A request about one group needs ``operation`` on it.

    Raises:
        GroupAuthorizationFailedError: denied (answered by the API's ``getErrorResponse``).
    """
    if not authorize(ctx, header, operation, ResourceType.GROUP, group_id):
        raise error_class(Errors.GROUP_AUTHORIZATION_FAILED)(
            f"Not authorized to {operation.name} group {group_id}"
        )


async def check_read_group(ctx: Any, header: RequestHeader, request: Any, handler: Any) -> Any:
    """JoinGroup, SyncGroup, Heartbeat, LeaveGroup: READ on the group, else the whole request is
    GROUP_AUTHORIZATION_FAILED."""
    require_group(ctx, header, AclOperation.READ, request.group_id)
    return await handler(ctx, header, request)


async def check_find_coordinator(ctx: Any, header: RequestHeader, request: Any, handler: Any) -> Any:
    """FindCoordinator: DESCRIBE on each group key (GROUP_AUTHORIZATION_FAILED), on each
    transactional id (TRANSACTIONAL_ID_AUTHORIZATION_FAILED), no node; a share key needs
    CLUSTER_ACTION on the cluster (the whole request fails).  Answers keep the request's order."""
    if request.key_type == COORDINATOR_TYPE_SHARE:
        authorize_cluster_operation(ctx, header, AclOperation.CLUSTER_ACTION)
        return await handler(ctx, header, request)
    if request.key_type == COORDINATOR_TYPE_GROUP:
        resource_type, error = ResourceType.GROUP, Errors.GROUP_AUTHORIZATION_FAILED
    elif request.key_type == COORDINATOR_TYPE_TRANSACTION:
        resource_type, error = ResourceType.TRANSACTIONAL_ID, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    else:
        return await handler(ctx, header, request)
    keys = list(request.coordinator_keys)
    allowed = filter_by_authorized(ctx, header, AclOperation.DESCRIBE, resource_type, keys)
    if len(allowed) == len(set(keys)):
        return await handler(ctx, header, request)
    request.coordinator_keys = [k for k in keys if k in allowed]
    response = await handler(ctx, header, request)
    answered = iter(response.coordinators)
    response.coordinators = [
        next(answered)
        if key in allowed
        else Coordinator(key=key, node_id=-1, host="", port=-1, error_code=int(error), error_message=None)
        for key in keys
    ]
    return response


def _topic_name(ctx: Any, topic: Any) -> str | None:
    """A request topic's name: by its id when it has one (KIP-848 versions), else as named."""
    topic_id = getattr(topic, "topic_id", ZERO_UUID)
    if topic_id != ZERO_UUID and not topic.name:
        return ctx.metadata_cache.topic_name(topic_id)
    return topic.name  # type: ignore[no-any-return]


async def check_offset_commit(ctx: Any, header: RequestHeader, request: Any, handler: Any) -> Any:
    """OffsetCommit: READ on the group (else every partition GROUP_AUTHORIZATION_FAILED), READ on
    each topic (else its partitions TOPIC_AUTHORIZATION_FAILED)."""
    require_group(ctx, header, AclOperation.READ, request.group_id)

    def denied(topic: Any) -> OffsetCommitResponseTopic:
        return OffsetCommitResponseTopic(
            name=topic.name,
            topic_id=topic.topic_id,
            partitions=[
                OffsetCommitResponsePartition(partition_index=p.partition_index, error_code=TOPIC_DENIED)
                for p in topic.partitions
            ],
        )

    return await split_by_topic(
        ctx,
        header,
        request,
        handler,
        AclOperation.READ,
        "topics",
        lambda t: _topic_name(ctx, t),
        "topics",
        denied,
    )


async def check_txn_offset_commit(ctx: Any, header: RequestHeader, request: Any, handler: Any) -> Any:
    """TxnOffsetCommit: WRITE on the transactional id (else every partition
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED), READ on the group (else GROUP_AUTHORIZATION_FAILED), READ on
    each topic (else its partitions TOPIC_AUTHORIZATION_FAILED); Kafka's ``handleTxnOffsetCommitRequest``
    skips the producer id's authorization, implied by the transactional id's."""
    if not authorize(
        ctx, header, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactional_id
    ):
        raise error_class(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)(
            f"Not authorized to WRITE transactional id {request.transactional_id}"
        )
    require_group(ctx, header, AclOperation.READ, request.group_id)

    return await split_by_topic(
        ctx,
        header,
        request,
        handler,
        AclOperation.READ,
        "topics",
        lambda t: t.name,
        "topics",
        lambda t: txn_offset_commit.answer_all(t, Errors.TOPIC_AUTHORIZATION_FAILED),
    )


async def check_describe_groups(ctx: Any, header: RequestHeader, request: Any, handler: Any) -> Any:
    """DescribeGroups: DESCRIBE on each group (else GROUP_AUTHORIZATION_FAILED, empty state,
    protocol and members, listed first as Kafka lists them); the authorized operations of each group
    described without error when asked (v3+)."""
    groups = list(request.groups)
    allowed = filter_by_authorized(ctx, header, AclOperation.DESCRIBE, ResourceType.GROUP, groups)
    request.groups = [g for g in groups if g in allowed]
    response = await handler(ctx, header, request)
    if request.include_authorized_operations:
        for group in response.groups:
            if group.error_code == Errors.NONE:
                group.authorized_operations = authorized_operations(
                    ctx, header, ResourceType.GROUP, group.group_id
                )
    refused = [
        DescribedGroup(
            error_code=GROUP_DENIED,
            group_id=g,
            group_state="",
            protocol_type="",
            protocol_data="",
            members=[],
        )
        for g in groups
        if g not in allowed
    ]
    response.groups = refused + list(response.groups)
    return response


async def check_list_groups(ctx: Any, header: RequestHeader, request: Any, handler: Any) -> Any:
    """ListGroups: every group with DESCRIBE on the cluster, else only those the principal may
    DESCRIBE."""
    response = await handler(ctx, header, request)
    cluster = (AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME)
    if not authorize(ctx, header, *cluster, log_if_denied=False):
        allowed = filter_by_authorized(
            ctx,
            header,
            AclOperation.DESCRIBE,
            ResourceType.GROUP,
            (g.group_id for g in response.groups),
            log_if_denied=False,
        )
        response.groups = [g for g in response.groups if g.group_id in allowed]
    return response


async def check_delete_groups(ctx: Any, header: RequestHeader, request: Any, handler: Any) -> Any:
    """DeleteGroups: DELETE on each group, else GROUP_AUTHORIZATION_FAILED for it."""
    groups = list(request.groups_names)
    allowed = filter_by_authorized(ctx, header, AclOperation.DELETE, ResourceType.GROUP, groups)
    if len(allowed) == len(set(groups)):
        return await handler(ctx, header, request)
    request.groups_names = [g for g in groups if g in allowed]
    response = await handler(ctx, header, request)
    response.results.extend(
        DeletableGroupResult(group_id=g, error_code=GROUP_DENIED)
        for g in dict.fromkeys(groups)
        if g not in allowed
    )
    return response


async def check_offset_delete(ctx: Any, header: RequestHeader, request: Any, handler: Any) -> Any:
    """OffsetDelete: DELETE on the group (else the request's GROUP_AUTHORIZATION_FAILED), READ on
    each topic (else its partitions TOPIC_AUTHORIZATION_FAILED)."""
    require_group(ctx, header, AclOperation.DELETE, request.group_id)

    def denied(topic: Any) -> OffsetDeleteResponseTopic:
        return OffsetDeleteResponseTopic(
            name=topic.name,
            partitions=[
                OffsetDeleteResponsePartition(partition_index=p.partition_index, error_code=TOPIC_DENIED)
                for p in topic.partitions
            ],
        )

    return await split_by_topic(
        ctx, header, request, handler, AclOperation.READ, "topics", lambda t: t.name, "topics", denied
    )


async def check_consumer_group_heartbeat(ctx: Any, header: RequestHeader, request: Any, handler: Any) -> Any:
    """ConsumerGroupHeartbeat (KIP-848): READ on the group (GROUP_AUTHORIZATION_FAILED), then
    DESCRIBE on every subscribed topic, else TOPIC_AUTHORIZATION_FAILED and nothing else (the
    handler first answers UNSUPPORTED_VERSION while the consumer protocol is off, as Kafka)."""
    config = getattr(ctx, "config", None)
    if config is not None and not consumer_protocol_enabled(config):
        return await handler(ctx, header, request)
    require_group(ctx, header, AclOperation.READ, request.group_id)
    subscribed = set(request.subscribed_topic_names or ())
    if subscribed and len(
        filter_by_authorized(ctx, header, AclOperation.DESCRIBE, ResourceType.TOPIC, subscribed)
    ) < len(subscribed):
        return ConsumerGroupHeartbeatResponse(error_code=TOPIC_DENIED)
    return await handler(ctx, header, request)


async def check_consumer_group_describe(ctx: Any, header: RequestHeader, request: Any, handler: Any) -> Any:
    """ConsumerGroupDescribe (KIP-848): DESCRIBE on each group (GROUP_AUTHORIZATION_FAILED, listed
    first); authorized operations when asked; a group whose members' assignments name a topic the
    principal may not DESCRIBE is TOPIC_AUTHORIZATION_FAILED with Kafka's message and no members."""
    config = getattr(ctx, "config", None)
    if config is not None and not consumer_protocol_enabled(config):
        return await handler(ctx, header, request)
    groups = list(request.group_ids)
    allowed = filter_by_authorized(ctx, header, AclOperation.DESCRIBE, ResourceType.GROUP, groups)
    request.group_ids = [g for g in groups if g in allowed]
    response = await handler(ctx, header, request)
    for group in response.groups:
        if request.include_authorized_operations and group.error_code == Errors.NONE:
            group.authorized_operations = authorized_operations(
                ctx, header, ResourceType.GROUP, group.group_id
            )
    described = []
    for group in response.groups:
        topics = {
            tp.topic_name
            for member in group.members or ()
            for assignment in (member.assignment, member.target_assignment)
            if assignment is not None
            for tp in assignment.topic_partitions
        }
        if topics and len(
            filter_by_authorized(ctx, header, AclOperation.DESCRIBE, ResourceType.TOPIC, topics)
        ) < len(topics):
            group = ConsumerGroupDescribeGroup(
                group_id=group.group_id,
                error_code=TOPIC_DENIED,
                error_message=DESCRIBED_TOPICS_DENIED_MESSAGE,
                members=[],
            )
        described.append(group)
    response.groups = [
        ConsumerGroupDescribeGroup(group_id=g, error_code=GROUP_DENIED) for g in groups if g not in allowed
    ] + described
    return response
