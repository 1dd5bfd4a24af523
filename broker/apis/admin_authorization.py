"""The authorization of the topic and config administration APIs: CreateTopics, DeleteTopics,
CreatePartitions, DescribeConfigs, IncrementalAlterConfigs (and AlterConfigs, which reaches the
broker as one).

Owns: which topics / config resources the principal may act on, the others answered in the
response with Kafka's error (TOPIC_ / CLUSTER_ / GROUP_AUTHORIZATION_FAILED); the authorized ones
go to the handler.  Does not own the handlers (the controller decides everything else).

Kafka concept: ``ControllerApis.createTopics`` / ``deleteTopics`` / ``createPartitions`` /
``authorizeAlterResource``, ``ConfigHelper.handleDescribeConfigsRequest``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from kafkette.broker.apis.auth_helper import CLUSTER_NAME, authorize, filter_by_authorized
from kafkette.broker.apis.describe_configs import DESCRIBABLE_RESOURCE_TYPES
from kafkette.common.security.acl import AclOperation, ResourceType
from kafkette.protocol.apis.configs import (
    RESOURCE_BROKER,
    RESOURCE_BROKER_LOGGER,
    RESOURCE_GROUP,
    RESOURCE_TOPIC,
    AlterConfigsResourceResponse,
    DescribeConfigsResult,
)
from kafkette.protocol.apis.create_partitions import CreatePartitionsTopicResult
from kafkette.protocol.apis.create_topics import CreatableTopicResult
from kafkette.protocol.apis.delete_topics import DeletableTopicResult, DeleteTopicState
from kafkette.protocol.errors import Errors, default_message
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.kafka_schema import ZERO_UUID

CREATE_TOPICS_DENIED_MESSAGE = "Authorization failed."
"""The message of a CreateTopics topic refused TOPIC_AUTHORIZATION_FAILED (Kafka's ControllerApis)."""

DENIED = int(Errors.TOPIC_AUTHORIZATION_FAILED)
_CLUSTER_CONFIG_RESOURCES = frozenset({RESOURCE_BROKER, RESOURCE_BROKER_LOGGER, 16})  # 16: CLIENT_METRICS


async def check_create_topics(ctx: Any, header: RequestHeader, request: Any, handler: Any) -> Any:
    """CreateTopics: CREATE on the cluster, else CREATE on each topic (a denied topic is answered
    TOPIC_AUTHORIZATION_FAILED, "Authorization failed."; a name given twice is left to the
    controller's INVALID_REQUEST); a created topic's configs are answered only with DESCRIBE_CONFIGS
    on it, else its ``topic_config_error_code`` is TOPIC_AUTHORIZATION_FAILED, no configs, and its
    partition count and replication factor are left at -1 (Kafka's
    ``ReplicationControlManager.createTopic`` sets them only with the configs)."""
    counts = Counter(t.name for t in request.topics)
    if authorize(ctx, header, AclOperation.CREATE, ResourceType.CLUSTER, CLUSTER_NAME, log_if_denied=False):
        denied: list[str] = []
    else:
        creatable = filter_by_authorized(ctx, header, AclOperation.CREATE, ResourceType.TOPIC, counts)
        denied = [n for n, c in counts.items() if c == 1 and n not in creatable]
        request.topics = [t for t in request.topics if t.name not in denied]
    describable = filter_by_authorized(
        ctx, header, AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, counts, log_if_denied=False
    )
    response = await handler(ctx, header, request)
    for result in response.topics:
        if result.error_code == Errors.NONE and result.name not in describable:
            result.configs = []
            result.num_partitions = -1
            result.replication_factor = -1
            result.topic_config_error_code = int(Errors.TOPIC_AUTHORIZATION_FAILED)
    response.topics.extend(
        CreatableTopicResult(
            name=name,
            error_code=int(Errors.TOPIC_AUTHORIZATION_FAILED),
            error_message=CREATE_TOPICS_DENIED_MESSAGE,
            num_partitions=-1,
            replication_factor=-1,
            configs=[],
        )
        for name in denied
    )
    return response


def _delete_denied(name: str | None, topic_id: bytes) -> DeletableTopicResult:
    """A DeleteTopics result refused TOPIC_AUTHORIZATION_FAILED with the error's own message
    (``ControllerApis.deleteTopics``: ``new ApiError(TOPIC_AUTHORIZATION_FAILED)``)."""
    return DeletableTopicResult(
        name=name,
        topic_id=topic_id,
        error_code=DENIED,
        error_message=default_message(Errors.TOPIC_AUTHORIZATION_FAILED),
    )


async def check_delete_topics(ctx: Any, header: RequestHeader, request: Any, handler: Any) -> Any:
    """DeleteTopics: DELETE on the cluster, else DELETE on each topic; a topic named and not
    deletable is TOPIC_AUTHORIZATION_FAILED under its name; one given by id (v6+) is answered with
    its name only when the principal may DESCRIBE it (else a null name: its existence is not
    revealed).  The refusals come before the controller's answers, as Kafka's; an id no topic has is
    left to the controller (UNKNOWN_TOPIC_ID).  A refusal carries the error's own message."""
    if authorize(ctx, header, AclOperation.DELETE, ResourceType.CLUSTER, CLUSTER_NAME, log_if_denied=False):
        return await handler(ctx, header, request)
    entries = [DeleteTopicState(name=n, topic_id=ZERO_UUID) for n in request.topic_names or []]
    entries += list(request.topics or [])
    named = [
        e.name if e.topic_id == ZERO_UUID else ctx.metadata_cache.topic_name(e.topic_id) for e in entries
    ]
    names = [n for n in named if n is not None]
    deletable = filter_by_authorized(ctx, header, AclOperation.DELETE, ResourceType.TOPIC, names)
    describable = filter_by_authorized(ctx, header, AclOperation.DESCRIBE, ResourceType.TOPIC, names)
    kept, denied = [], []
    for entry, name in zip(entries, named, strict=True):
        if name is None or name in deletable:
            kept.append(entry)
        elif entry.topic_id == ZERO_UUID or name in describable:
            denied.append(_delete_denied(name, entry.topic_id))
        else:
            denied.append(_delete_denied(None, entry.topic_id))
    request.topic_names, request.topics = [], kept
    response = await handler(ctx, header, request)
    response.responses = denied + list(response.responses)  # Kafka answers the refusals first
    return response


async def check_create_partitions(ctx: Any, header: RequestHeader, request: Any, handler: Any) -> Any:
    """CreatePartitions: ALTER on each topic, else TOPIC_AUTHORIZATION_FAILED, answered before the
    controller's results (a name given twice is left to the controller's INVALID_REQUEST)."""
    counts = Counter(t.name for t in request.topics)
    alterable = filter_by_authorized(ctx, header, AclOperation.ALTER, ResourceType.TOPIC, counts)
    denied = [n for n, c in counts.items() if c == 1 and n not in alterable]
    if not denied:
        return await handler(ctx, header, request)
    request.topics = [t for t in request.topics if t.name not in denied]
    response = await handler(ctx, header, request)
    refused = [CreatePartitionsTopicResult(name=n, error_code=DENIED, error_message=None) for n in denied]
    response.results = refused + list(response.results)  # Kafka answers the refusals first
    return response


def config_resource_error(
    ctx: Any, header: RequestHeader, operation: AclOperation, resource_type: int, name: str
) -> Errors | None:
    """The authorization error of ``operation`` (DESCRIBE_CONFIGS / ALTER_CONFIGS) on one config
    resource: a BROKER, BROKER_LOGGER or CLIENT_METRICS resource needs it on the cluster
    (CLUSTER_AUTHORIZATION_FAILED), a TOPIC on the topic, a GROUP on the group; None when allowed or
    of another type (the handler refuses it)."""
    if resource_type in _CLUSTER_CONFIG_RESOURCES:
        target, denied = (ResourceType.CLUSTER, CLUSTER_NAME), Errors.CLUSTER_AUTHORIZATION_FAILED
    elif resource_type == RESOURCE_TOPIC:
        target, denied = (ResourceType.TOPIC, name), Errors.TOPIC_AUTHORIZATION_FAILED
    elif resource_type == RESOURCE_GROUP:
        target, denied = (ResourceType.GROUP, name), Errors.GROUP_AUTHORIZATION_FAILED
    else:
        return None
    return None if authorize(ctx, header, operation, *target) else denied


async def check_describe_configs(ctx: Any, header: RequestHeader, request: Any, handler: Any) -> Any:
    """DescribeConfigs: DESCRIBE_CONFIGS per resource (``config_resource_error``); a denied one is
    answered with the error, its message and no configs, after the authorized ones.  A request naming
    a resource type Kafka does not describe is left whole to the handler (INVALID_REQUEST for all)."""
    if any(r.resource_type not in DESCRIBABLE_RESOURCE_TYPES for r in request.resources):
        return await handler(ctx, header, request)
    denied = []
    kept = []
    for resource in request.resources:
        error = config_resource_error(
            ctx, header, AclOperation.DESCRIBE_CONFIGS, resource.resource_type, resource.resource_name
        )
        if error is None:
            kept.append(resource)
        else:
            denied.append(
                DescribeConfigsResult(
                    error_code=int(error),
                    error_message=default_message(error),
                    resource_type=resource.resource_type,
                    resource_name=resource.resource_name,
                    configs=[],
                )
            )
    request.resources = kept
    response = await handler(ctx, header, request)
    response.results.extend(denied)
    return response


async def check_incremental_alter_configs(ctx: Any, header: RequestHeader, request: Any, handler: Any) -> Any:
    """IncrementalAlterConfigs (and AlterConfigs): ALTER_CONFIGS per resource
    (``config_resource_error``); a denied one is answered with the error and its message, the
    answers in the request's order (Kafka's ``ConfigAdminManager.reassembleIncrementalResponse``)."""
    denied = []
    kept = []
    asked = list(request.resources)
    kept_ids: set[int] = set()
    for resource in asked:
        error = config_resource_error(
            ctx, header, AclOperation.ALTER_CONFIGS, resource.resource_type, resource.resource_name
        )
        if error is None:
            kept.append(resource)
            kept_ids.add(id(resource))
        else:
            denied.append(
                AlterConfigsResourceResponse(
                    error_code=int(error),
                    error_message=default_message(error),
                    resource_type=resource.resource_type,
                    resource_name=resource.resource_name,
                )
            )
    if not denied:
        return await handler(ctx, header, request)
    request.resources = kept
    response = await handler(ctx, header, request)
    answers = list(response.responses)
    if len(answers) != len(kept):  # not one answer per resource: no order to restore
        response.responses = answers + denied
        return response
    refused, answered = iter(denied), iter(answers)
    response.responses = [next(answered) if r in kept_ids else next(refused) for r in map(id, asked)]
    return response
