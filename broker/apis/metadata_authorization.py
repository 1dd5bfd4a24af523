"""The authorization of Metadata (and of DescribeCluster, which reaches the broker as a Metadata
request for no topic): DESCRIBE per topic, CREATE for auto-creation, and the authorized operations
of KIP-430.

Owns: which asked topics the handler sees (those the principal may DESCRIBE; of the unknown ones
auto-creation would create, those it may CREATE, on the cluster or the topic), the
TOPIC_AUTHORIZATION_FAILED answers of the others (no partitions, zero topic id), hiding from an
all-topics answer every topic the principal may not DESCRIBE, and the ``topic_authorized_operations``
/ ``cluster_authorized_operations`` fields when the request asks for them (the cluster's: 0 without
DESCRIBE on the cluster).  Does not own the metadata answer itself (``metadata``).

Kafka concept: ``KafkaApis.handleTopicMetadataRequest``, ``AuthHelper.computeDescribeClusterResponse``.
"""

from __future__ import annotations

from typing import Any

from kafkette.broker.apis.auth_helper import (
    CLUSTER_NAME,
    authorize,
    authorized_operations,
    filter_by_authorized,
)
from kafkette.broker.apis.metadata import TOPIC_IDS_FROM_VERSION
from kafkette.common.security.acl import AclOperation, ResourceType
from kafkette.common.topic_names import INTERNAL_TOPICS
from kafkette.protocol.apis.metadata import MetadataResponseTopic
from kafkette.protocol.errors import Errors
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.kafka_schema import ZERO_UUID


def _denied(
    name: str | None, topic_id: bytes = ZERO_UUID, is_internal: bool = False
) -> MetadataResponseTopic:
    return MetadataResponseTopic(
        error_code=int(Errors.TOPIC_AUTHORIZATION_FAILED),
        name=name,
        topic_id=topic_id,
        is_internal=is_internal,
        partitions=[],
    )


async def check_metadata(ctx: Any, header: RequestHeader, request: Any, handler: Any) -> Any:
    """Metadata with Kafka's topic authorization (see the module docstring).

    Returns:
        The handler's answer for the authorized topics, then the topics refused for CREATE
        (``is_internal`` as the name says), then those refused for DESCRIBE (by id: null name and
        the id, as Kafka answers an id, which it does not hold secret).
    """
    asked = request.topics
    if (
        asked is not None
        and header.api_version < TOPIC_IDS_FROM_VERSION
        and any(t.name is None or t.topic_id != ZERO_UUID for t in asked)
    ):
        return await handler(ctx, header, request)  # refused INVALID_REQUEST before any authorization
    named = None if asked is None else [t.name for t in asked if t.name is not None]
    by_id = asked is not None and any(t.topic_id != ZERO_UUID for t in asked)
    denied: list[MetadataResponseTopic] = []
    if named is not None and not by_id:
        describable = filter_by_authorized(ctx, header, AclOperation.DESCRIBE, ResourceType.TOPIC, named)
        undescribable = list(dict.fromkeys(n for n in named if n not in describable))
        uncreatable: list[str] = []
        config = getattr(ctx, "config", None)
        auto_create = request.allow_auto_topic_creation and getattr(
            config, "auto_create_topics_enable", False
        )
        missing = [
            n for n in dict.fromkeys(named) if n in describable and not ctx.metadata_cache.contains_topic(n)
        ]
        if (
            auto_create
            and missing
            and not authorize(
                ctx, header, AclOperation.CREATE, ResourceType.CLUSTER, CLUSTER_NAME, log_if_denied=False
            )
        ):
            creatable = filter_by_authorized(ctx, header, AclOperation.CREATE, ResourceType.TOPIC, missing)
            uncreatable = [n for n in missing if n not in creatable]
        refused = set(undescribable) | set(uncreatable)
        request.topics = [t for t in asked if t.name not in refused]
        denied = [_denied(n, is_internal=n in INTERNAL_TOPICS) for n in uncreatable]
        denied += [_denied(n) for n in undescribable]
    response = await handler(ctx, header, request)
    if named is None or by_id:
        kept = []
        for topic in response.topics:
            if topic.name is None or authorize(  # every topic: a hidden one is not logged as denied
                ctx, header, AclOperation.DESCRIBE, ResourceType.TOPIC, topic.name, log_if_denied=by_id
            ):
                kept.append(topic)
            elif by_id:  # an id asked: refused under the id, the name not revealed
                denied.append(_denied(None, topic.topic_id))
        response.topics = kept
    if request.include_topic_authorized_operations:
        for topic in response.topics:
            if topic.name is not None:
                topic.topic_authorized_operations = authorized_operations(
                    ctx, header, ResourceType.TOPIC, topic.name
                )
    response.topics.extend(denied)
    if request.include_cluster_authorized_operations:
        response.cluster_authorized_operations = (
            authorized_operations(ctx, header, ResourceType.CLUSTER, CLUSTER_NAME)
            if authorize(ctx, header, AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME)
            else 0
        )
    return response
