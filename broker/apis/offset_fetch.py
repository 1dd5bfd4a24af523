"""OffsetFetch handler: groups' committed offsets, from their coordinator.

Up to v7 a request asks one group (``group_id``/``topics``), from v8 (KIP-709) several
(``groups``), each answered on its own, with its own group-level error.  From v10 (KIP-848) topics
come by topic id: the handler names them from the metadata cache, answers a topic whose id no topic
has UNKNOWN_TOPIC_ID (offset -1) for each partition after the coordinator's answers, and gives
the topics of an all-partitions fetch (``topics`` null) their ids, leaving out a topic that has
none (Kafka cannot name it on the wire).

With an authorizer a group needs DESCRIBE (else GROUP_AUTHORIZATION_FAILED for it) and each topic
DESCRIBE (else left out of an all-partitions fetch, TOPIC_AUTHORIZATION_FAILED when named).

Kafka concept: ``KafkaApis.handleOffsetFetchRequest`` (``fetchOffsetsForGroup``) ->
``GroupCoordinator.fetchOffsets`` / ``fetchAllOffsets``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafkette.broker.apis.auth_helper import authorize, authorizer_of, filter_by_authorized
from kafkette.common.security.acl import AclOperation, ResourceType
from kafkette.protocol.apis.offsets import (
    OffsetFetchRequest,
    OffsetFetchRequestGroup,
    OffsetFetchRequestTopics,
    OffsetFetchResponse,
    OffsetFetchResponseGroup,
    OffsetFetchResponsePartition,
    OffsetFetchResponseTopic,
    OffsetFetchResponseTopics,
)
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.kafka_schema import ZERO_UUID

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext

GROUPS_FROM_VERSION = 8
"""The first OffsetFetch version asking several groups (KIP-709)."""
TOPIC_IDS_FROM_VERSION = 10
"""The first OffsetFetch version naming topics by topic id (KIP-848)."""


def _unknown_topic_id(topic: OffsetFetchRequestTopics) -> OffsetFetchResponseTopics:
    """UNKNOWN_TOPIC_ID and offset -1 for every partition of ``topic``."""
    return OffsetFetchResponseTopics(
        topic_id=topic.topic_id,
        partitions=[
            OffsetFetchResponsePartition(
                partition_index=p, committed_offset=-1, error_code=Errors.UNKNOWN_TOPIC_ID
            )
            for p in topic.partition_indexes
        ],
    )


def _fetch_group(
    ctx: ApisContext,
    header: RequestHeader,
    group: OffsetFetchRequestGroup,
    version: int,
    require_stable: bool = False,
) -> OffsetFetchResponseGroup:
    """One group's answer: GROUP_AUTHORIZATION_FAILED without DESCRIBE on the group, else
    ``_fetch_authorized_group``'s with each topic the principal may not DESCRIBE left out of an
    all-partitions fetch and answered TOPIC_AUTHORIZATION_FAILED (offset -1) when named
    (Kafka's ``handleOffsetFetchRequest``)."""
    if not authorize(ctx, header, AclOperation.DESCRIBE, ResourceType.GROUP, group.group_id):
        return OffsetFetchResponseGroup(group_id=group.group_id, error_code=Errors.GROUP_AUTHORIZATION_FAILED)
    answer = _fetch_authorized_group(ctx, group, version, require_stable)
    if authorizer_of(ctx) is None or answer.error_code != Errors.NONE:
        return answer
    names = {t.name for t in answer.topics if t.name}
    describable = filter_by_authorized(ctx, header, AclOperation.DESCRIBE, ResourceType.TOPIC, names)
    topics = []
    for topic in answer.topics:
        if not topic.name or topic.name in describable:
            topics.append(topic)
        elif group.topics is not None:
            topic.partitions = [
                OffsetFetchResponsePartition(
                    partition_index=p.partition_index,
                    committed_offset=-1,
                    error_code=Errors.TOPIC_AUTHORIZATION_FAILED,
                )
                for p in topic.partitions
            ]
            topics.append(topic)
    answer.topics = topics
    return answer


def _fetch_authorized_group(
    ctx: ApisContext, group: OffsetFetchRequestGroup, version: int, require_stable: bool
) -> OffsetFetchResponseGroup:
    """One group's answer: NOT_COORDINATOR when this node has no coordinator, else its coordinator's,
    with the topics by id of a v10 request named, and answered, as Kafka's ``fetchOffsetsForGroup``."""
    if ctx.group_coordinator is None:
        return OffsetFetchResponseGroup(group_id=group.group_id, error_code=Errors.NOT_COORDINATOR)
    if version < TOPIC_IDS_FROM_VERSION:
        return ctx.group_coordinator.handle_fetch_offsets(group, require_stable)
    unknown_ids = []
    if group.topics is not None:
        named = []
        for topic in group.topics:
            topic.name = ctx.metadata_cache.topic_name(topic.topic_id) or ""
            if topic.name:
                named.append(topic)
            else:
                unknown_ids.append(_unknown_topic_id(topic))
        group.topics = named
    answer = ctx.group_coordinator.handle_fetch_offsets(group, require_stable)
    if answer.error_code != Errors.NONE:
        return answer
    if group.topics is None:
        for topic in answer.topics:
            topic.topic_id = ctx.metadata_cache.topic_id(topic.name)
        answer.topics = [topic for topic in answer.topics if topic.topic_id != ZERO_UUID]
    answer.topics += unknown_ids
    return answer


async def handle(ctx: ApisContext, header: RequestHeader, request: OffsetFetchRequest) -> OffsetFetchResponse:
    """Each group's offsets through the GroupCoordinator; a v1-7 request's one group asked and
    answered in the v1-7 shape (its group-level error the top-level ``error_code``)."""
    version = header.api_version
    if version >= GROUPS_FROM_VERSION:
        return OffsetFetchResponse(
            groups=[
                _fetch_group(ctx, header, group, version, request.require_stable) for group in request.groups
            ]
        )
    topics = request.topics
    answer = _fetch_group(
        ctx,
        header,
        OffsetFetchRequestGroup(
            group_id=request.group_id,
            topics=None
            if topics is None
            else [
                OffsetFetchRequestTopics(name=t.name, partition_indexes=t.partition_indexes) for t in topics
            ],
        ),
        version,
        request.require_stable,
    )
    return OffsetFetchResponse(
        error_code=answer.error_code,
        topics=[OffsetFetchResponseTopic(name=t.name, partitions=t.partitions) for t in answer.topics],
    )
