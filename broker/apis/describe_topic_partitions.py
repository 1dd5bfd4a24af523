"""DescribeTopicPartitions handler: the partitions of topics a page at a time, from the metadata cache
(KIP-966).

The topics named (an empty list: every topic the cache knows) from the request's cursor on, sorted,
at most ``response_partition_limit`` partitions (capped at Kafka's ``max.request.partition.size.limit``
default, 2000, and at least 1), the answer's ``next_cursor`` naming where the next request starts.
A cursor whose topic is not among the topics named, or whose partition index is negative, is
INVALID_REQUEST for every topic named, as Kafka's ``DescribeTopicPartitionsRequest.getErrorResponse``.
With an authorizer (``topic_authorization``) only the topics the principal may DESCRIBE are paged; a
named one it may not is TOPIC_AUTHORIZATION_FAILED after the page.  Without one each topic answered
carries every topic operation as its authorized operations (KIP-430).  Kafka concept:
``DescribeTopicPartitionsRequestHandler``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kafkette.common.topic_names import validate_topic_name
from kafkette.protocol.apis.describe_topic_partitions import (
    DescribeTopicPartitionsRequest,
    DescribeTopicPartitionsResponse,
    DescribeTopicPartitionsResponseTopic,
)
from kafkette.protocol.errors import Errors, InvalidTopicError
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.kafka_translation import TOPIC_AUTHORIZED_OPERATIONS

if TYPE_CHECKING:
    from kafkette.broker.apis.apis_context import ApisContext

MAX_REQUEST_PARTITION_SIZE_LIMIT = 2000
"""Kafka's ``max.request.partition.size.limit`` default: the most partitions one answer describes."""


def _topic_error(name: str) -> Errors:
    """The error of a topic the cache does not know: INVALID_TOPIC_EXCEPTION for an illegal name
    (Kafka's ``Topic.validate``), else UNKNOWN_TOPIC_OR_PARTITION."""
    try:
        validate_topic_name(name)
    except InvalidTopicError:
        return Errors.INVALID_TOPIC_EXCEPTION
    return Errors.UNKNOWN_TOPIC_OR_PARTITION


def _invalid_request(request: DescribeTopicPartitionsRequest) -> DescribeTopicPartitionsResponse:
    """Every topic named, INVALID_REQUEST, without partitions (Kafka's ``getErrorResponse``)."""
    return DescribeTopicPartitionsResponse(
        topics=[
            DescribeTopicPartitionsResponseTopic(error_code=Errors.INVALID_REQUEST, name=t.name)
            for t in request.topics
        ]
    )


async def handle(
    ctx: ApisContext, header: RequestHeader, request: DescribeTopicPartitionsRequest
) -> DescribeTopicPartitionsResponse:
    """Describe the partitions of the topics asked, from the cursor on, without an authorizer
    (see the module docstring)."""
    return describe(ctx, request, _every_topic, lambda name: TOPIC_AUTHORIZED_OPERATIONS)


def _every_topic(name: str) -> bool:
    """Without an authorizer every principal may describe every topic."""
    return True


def describe(
    ctx: ApisContext,
    request: DescribeTopicPartitionsRequest,
    may_describe: Callable[[str], bool],
    operations: Callable[[str], int],
) -> DescribeTopicPartitionsResponse:
    """Describe the partitions of the topics asked that ``may_describe`` (a topic name -> whether the
    principal may DESCRIBE it) allows, from the cursor on, a page at a time.  The others are never
    looked up nor paged: a named one is answered TOPIC_AUTHORIZATION_FAILED without partitions or id
    after the page, and from an all-topics request they are left out, so that neither the page nor
    its ``next_cursor`` discloses them (Kafka's ``DescribeTopicPartitionsRequestHandler``).  Each
    topic answered carries ``operations(name)`` (KIP-430's bit field) as its authorized operations.

    Returns:
        The answer; every topic named is INVALID_REQUEST when the cursor is invalid.
    """
    cache = ctx.metadata_cache
    fetch_all_topics = not request.topics
    cursor = request.cursor
    cursor_topic_name = cursor.topic_name if cursor is not None else ""
    names = cache.topic_names() if fetch_all_topics else [t.name for t in request.topics]
    topics = sorted({name for name in names if name >= cursor_topic_name})
    if cursor is not None and (
        (not fetch_all_topics and cursor.topic_name not in topics) or cursor.partition_index < 0
    ):
        return _invalid_request(request)
    authorized = [name for name in topics if may_describe(name)]
    response = cache.describe_topic_partitions(
        authorized,
        {cursor.topic_name: cursor.partition_index} if cursor is not None else {},
        max(min(MAX_REQUEST_PARTITION_SIZE_LIMIT, request.response_partition_limit), 1),
        fetch_all_topics,
        _topic_error,
    )
    for topic in response.topics:
        topic.topic_authorized_operations = operations(topic.name)
    if not fetch_all_topics:
        allowed = set(authorized)
        response.topics.extend(
            DescribeTopicPartitionsResponseTopic(
                error_code=Errors.TOPIC_AUTHORIZATION_FAILED, name=name, is_internal=False, partitions=[]
            )
            for name in topics
            if name not in allowed
        )
    return response
