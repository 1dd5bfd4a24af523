"""The per-topic authorization of the data-plane APIs: Produce, ListOffsets,
OffsetsForLeaderEpoch, DeleteRecords, DescribeProducers, DescribeTopicPartitions.

Owns: splitting a request's topics into the authorized ones, which the API's handler answers, and
the others, answered TOPIC_AUTHORIZATION_FAILED per partition in the response (Kafka's
``AuthHelper.partitionSeqByAuthorized`` / ``filterByAuthorized`` use in ``KafkaApis``).  Does not
own the handlers' own checks nor Fetch's (``fetch`` checks READ inside its session walk).

Kafka concept: ``KafkaApis.handleProduceRequest``, ``handleListOffsetRequest``,
``handleOffsetForLeaderEpochRequest``, ``handleDeleteRecordsRequest``,
``handleDescribeProducersRequest``, ``DescribeTopicPartitionsRequestHandler``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from kafkette.broker.apis import describe_topic_partitions, produce
from kafkette.broker.apis.auth_helper import (
    CLUSTER_NAME,
    authorize,
    authorized_operations,
    filter_by_authorized,
)
from kafkette.common.network.socket_server import CLOSE_CONNECTION
from kafkette.common.security.acl import AclOperation, ResourceType
from kafkette.protocol.apis.delete_records import DeleteRecordsPartitionResult, DeleteRecordsTopicResult
from kafkette.protocol.apis.describe_producers import (
    DescribeProducersPartitionResponse,
    DescribeProducersTopicResponse,
)
from kafkette.protocol.apis.list_offsets import ListOffsetsPartitionResponse, ListOffsetsTopicResponse
from kafkette.protocol.apis.offsets_for_leader_epoch import EpochEndOffset, OffsetForLeaderTopicResult
from kafkette.protocol.apis.produce import ProducePartitionResponse, ProduceTopicResponse
from kafkette.protocol.errors import Errors, default_message
from kafkette.protocol.framing import RequestHeader
from kafkette.protocol.record_batch import CorruptRecordError

Handler = Callable[[Any, RequestHeader, Any], Awaitable[Any]]
DENIED = int(Errors.TOPIC_AUTHORIZATION_FAILED)
PRODUCE_TOPIC_ID_VERSION = 13
"""From Produce v13 (KIP-516) topics are named by id."""


async def split_by_topic(
    ctx: Any,
    header: RequestHeader,
    request: Any,
    handler: Handler,
    operation: AclOperation,
    topics_field: str,
    name_of: Callable[[Any], str | None],
    results_field: str,
    denied_result: Callable[[Any], Any],
) -> Any:
    """Answer the topics of ``request.<topics_field>`` the principal may do ``operation`` on with
    ``handler``, the others with ``denied_result(topic)`` appended to ``response.<results_field>``.

    Args:
        name_of: a request topic's name (None: left to the handler, e.g. an unknown topic id).
        denied_result: a request topic -> its TOPIC_AUTHORIZATION_FAILED result.
    Returns:
        The handler's response with the denied topics added (as is when none is denied, or when the
        handler answers no struct).
    """
    topics = getattr(request, topics_field) or []
    allowed = filter_by_authorized(
        ctx, header, operation, ResourceType.TOPIC, (n for t in topics if (n := name_of(t)) is not None)
    )
    denied = [t for t in topics if (n := name_of(t)) is not None and n not in allowed]
    if not denied:
        return await handler(ctx, header, request)
    setattr(request, topics_field, [t for t in topics if (n := name_of(t)) is None or n in allowed])
    response = await handler(ctx, header, request)
    if response is not None and hasattr(response, results_field):
        getattr(response, results_field).extend(denied_result(t) for t in denied)
    return response


async def check_produce(ctx: Any, header: RequestHeader, request: Any, handler: Handler) -> Any:
    """Produce: transactional batches need WRITE on the request's transactional id (else every
    partition is TRANSACTIONAL_ID_AUTHORIZATION_FAILED); each topic needs WRITE (else its partitions
    are TOPIC_AUTHORIZATION_FAILED; acks=0: the connection is closed, as Kafka closes it on any error)."""
    try:
        transactional = produce._has_transactional_records(request)
    except CorruptRecordError:
        transactional = False  # the handler answers CORRUPT_MESSAGE
    if (
        transactional
        and request.transactional_id is not None
        and not authorize(
            ctx, header, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactional_id
        )
    ):
        return produce._error_for_all(request, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, None)
    by_id = header.api_version >= PRODUCE_TOPIC_ID_VERSION

    def name_of(topic: Any) -> str | None:
        return ctx.metadata_cache.topic_name(topic.topic_id) if by_id else topic.name

    def denied(topic: Any) -> ProduceTopicResponse:
        return ProduceTopicResponse(
            name=topic.name,
            topic_id=topic.topic_id,
            partition_responses=[
                ProducePartitionResponse(
                    index=p.index,
                    error_code=DENIED,
                    base_offset=-1,
                    log_append_time_ms=-1,
                    log_start_offset=-1,
                )
                for p in topic.partition_data
            ],
        )

    count = len(request.topic_data)
    response = await split_by_topic(
        ctx, header, request, handler, AclOperation.WRITE, "topic_data", name_of, "responses", denied
    )
    if request.acks == 0 and len(request.topic_data) < count:
        return CLOSE_CONNECTION
    return response


async def check_list_offsets(ctx: Any, header: RequestHeader, request: Any, handler: Handler) -> Any:
    """ListOffsets: DESCRIBE on each topic, else its partitions are TOPIC_AUTHORIZATION_FAILED
    (offset and timestamp -1)."""

    def denied(topic: Any) -> ListOffsetsTopicResponse:
        return ListOffsetsTopicResponse(
            name=topic.name,
            partitions=[
                ListOffsetsPartitionResponse(
                    partition_index=p.partition_index,
                    error_code=DENIED,
                    timestamp=-1,
                    offset=-1,
                    leader_epoch=-1,
                )
                for p in topic.partitions
            ],
        )

    return await split_by_topic(
        ctx, header, request, handler, AclOperation.DESCRIBE, "topics", lambda t: t.name, "topics", denied
    )


async def check_offsets_for_leader_epoch(
    ctx: Any, header: RequestHeader, request: Any, handler: Handler
) -> Any:
    """OffsetsForLeaderEpoch: CLUSTER_ACTION on the cluster allows every topic (a follower's);
    else DESCRIBE per topic, the others TOPIC_AUTHORIZATION_FAILED (epoch and end offset -1)."""
    if authorize(
        ctx, header, AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER, CLUSTER_NAME, log_if_denied=False
    ):
        return await handler(ctx, header, request)

    def denied(topic: Any) -> OffsetForLeaderTopicResult:
        return OffsetForLeaderTopicResult(
            name=topic.name,
            partitions=[
                EpochEndOffset(error_code=DENIED, partition=p.partition, leader_epoch=-1, end_offset=-1)
                for p in topic.partitions
            ],
        )

    return await split_by_topic(
        ctx, header, request, handler, AclOperation.DESCRIBE, "topics", lambda t: t.name, "topics", denied
    )


async def check_delete_records(ctx: Any, header: RequestHeader, request: Any, handler: Handler) -> Any:
    """DeleteRecords: DELETE on each topic, else its partitions are TOPIC_AUTHORIZATION_FAILED
    (low watermark -1)."""

    def denied(topic: Any) -> DeleteRecordsTopicResult:
        return DeleteRecordsTopicResult(
            name=topic.name,
            partitions=[
                DeleteRecordsPartitionResult(
                    partition_index=p.partition_index, low_watermark=-1, error_code=DENIED
                )
                for p in topic.partitions
            ],
        )

    return await split_by_topic(
        ctx, header, request, handler, AclOperation.DELETE, "topics", lambda t: t.name, "topics", denied
    )


async def check_describe_producers(ctx: Any, header: RequestHeader, request: Any, handler: Handler) -> Any:
    """DescribeProducers: READ on each topic, else its partitions are TOPIC_AUTHORIZATION_FAILED with
    the error's own message (``handleDescribeProducersRequest``: ``new ApiError(error)``)."""

    def denied(topic: Any) -> DescribeProducersTopicResponse:
        return DescribeProducersTopicResponse(
            name=topic.name,
            partitions=[
                DescribeProducersPartitionResponse(
                    partition_index=i,
                    error_code=DENIED,
                    error_message=default_message(Errors.TOPIC_AUTHORIZATION_FAILED),
                    active_producers=[],
                )
                for i in topic.partition_indexes
            ],
        )

    return await split_by_topic(
        ctx, header, request, handler, AclOperation.READ, "topics", lambda t: t.name, "topics", denied
    )


async def check_describe_topic_partitions(
    ctx: Any, header: RequestHeader, request: Any, handler: Handler
) -> Any:
    """DescribeTopicPartitions (KIP-966): DESCRIBE on each topic, checked before the page is cut (see
    ``describe_topic_partitions.describe``): a named topic denied is answered
    TOPIC_AUTHORIZATION_FAILED with no partitions; from an all-topics request the topics the
    principal may not describe are left out, and no page nor cursor names them.  Each topic answered
    carries its authorized operations (Kafka's handler always fills them)."""
    return describe_topic_partitions.describe(
        ctx,
        request,
        lambda name: authorize(ctx, header, AclOperation.DESCRIBE, ResourceType.TOPIC, name),
        lambda name: authorized_operations(ctx, header, ResourceType.TOPIC, name),
    )
